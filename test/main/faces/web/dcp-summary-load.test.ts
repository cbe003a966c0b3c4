// dcp/summary reads the stored log once and derives the chart, the block table and the `/dcp stats` text from that one
// replay; with `dcp.enabled: false` it still draws the chart. The expected stats text is the one the stored `/dcp stats`
// command (the `sessionctx dcp stats` path) prints over the same log; the expected chart is the enabled configuration's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDcpCorpus } from '../../../../bench/support/dcp-corpus.js';
import { parseStoredDcpCommand, runStoredDcpCommand } from '../../../../src/main/stand-in/compose/stored-dcp-session.js';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { dcpSummary } from '../../../../src/main/catalog/dcp-summary.js';
import type { CatalogEngine as WebEngine } from '../../../../src/main/catalog/session-catalog.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { resolveDcpConfig } from '../../../../src/protocol/dcp/config.js';
import { testEngine } from './web-test-support.js';

const ID = asSessionId('session-long-dcp');
/** Above the ledger service's pool threshold (4096 events), so the long-log fold path is the one exercised. */
const EVENTS = 6000;

let dir: string;
let engine: LocalSessionEngine;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-web-dcp-load-'));
  engine = await testEngine(dir);
  const events = generateDcpCorpus(EVENTS);
  await (engine.store as JsonlSessionStore).create({ version: 0, id: ID, createdAt: events[0]!.time, cwd: '/work/long' }, events);
});

afterAll(async () => {
  await engine?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The engine with a store and a runner that count whole-log reads (the store's own, and `inspect` tasks). */
function countingEngine(): { engine: WebEngine; reads: () => number } {
  const store = engine.store as JsonlSessionStore;
  let reads = 0;
  const counting = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'inspectArtifact' && typeof value === 'function') {
        return (...args: unknown[]) => {
          reads += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const runner: LocalSessionEngine['runner'] = {
    ...engine.runner,
    run: ((kind: string, ...rest: unknown[]) => {
      if (kind === 'inspect') reads += 1;
      return (engine.runner.run as (...a: unknown[]) => unknown).call(engine.runner, kind, ...rest);
    }) as LocalSessionEngine['runner']['run'],
  };
  return { engine: { ...(engine as unknown as WebEngine), store: counting, runner } as WebEngine, reads: () => reads };
}

describe('dcp/summary of a long log', () => {
  it('reads the stored log once, and its stats text is the stored /dcp stats text', async () => {
    const { engine: counted, reads } = countingEngine();
    const summary = await dcpSummary({
      engine: counted,
      sessionId: ID,
      dcp: resolveDcpConfig({}).config,
      signal: new AbortController().signal,
    });
    expect(reads()).toBe(1);
    const stats = await runStoredDcpCommand({
      store: engine.store as JsonlSessionStore,
      sessionId: ID,
      command: parseStoredDcpCommand('stats'),
      dcp: resolveDcpConfig({}),
    });
    expect(summary.statsText).toBe(stats.text);
  });

  it('with dcp.enabled false: the same chart, no blocks, and a stats text saying DCP is disabled', async () => {
    const signal = new AbortController().signal;
    const enabled = await dcpSummary({ engine: engine as unknown as WebEngine, sessionId: ID, dcp: resolveDcpConfig({}).config, signal });
    const disabled = await dcpSummary({
      engine: engine as unknown as WebEngine,
      sessionId: ID,
      dcp: resolveDcpConfig({ enabled: false }).config,
      signal,
    });
    expect(disabled.points).toEqual(enabled.points);
    expect(disabled.drops).toEqual(enabled.drops);
    expect(disabled.drops.some((drop) => drop.kind === 'compaction')).toBe(true);
    expect(disabled.blocks).toEqual([]);
    expect(disabled.statsText).toBe('DCP is disabled in this configuration (dcp.enabled: false), so there are no DCP statistics.');
  });
});

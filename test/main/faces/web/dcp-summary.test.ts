// dcp/summary over HTTP: a DCP conversation dsh + dsh-dcp recorded (test/fixtures/dcp-dsh, stored into a temporary
// root as dsh wrote it) and a dsh-small session with native compactions. Expected counts, ranges and savings are
// read from the fixture logs and from dsh-dcp's own `/dcp stats` output; the stats text from `sessionctx dcp stats`.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { startWebServer } from '../../../../src/main/faces/web/web-server.js';
import type { RunningWebServer } from '../../../../src/main/faces/web/web-server.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { runBuiltCli } from '../../../support/cli-process.js';
import { DCP_DSH, fixtureSessions } from '../../../support/fixtures.js';
import { callApi, makeWebFixture, signIn, testEngine } from './web-test-support.js';
import type { WebFixture } from './web-test-support.js';

/** The dsh-small session with five native compactions (sessions.tsv: "yes(5, 5 checkpoints)"). */
const NATIVE = 'session-b2f4f8ab-862e-4eff-b7d3-68298f7abfc7';

interface Recorded {
  readonly events: any[];
  readonly commands: Array<{ input: string; result: { text: string } }>;
}

function recorded(name: string): Recorded {
  return JSON.parse(readFileSync(join(DCP_DSH, `${name}.dsh.json`), 'utf8')) as Recorded;
}

/** The replacing surface events of a log whose stored predecessor has `type`. */
function replacesAfter(events: readonly any[], type: string): any[] {
  return events.filter((event, index) => typeof event.surfaceOp === 'object' && events[index - 1]?.type === type);
}

let dir: string;
let fixture: WebFixture;
let dcpEngine: LocalSessionEngine;
let dcpServer: RunningWebServer;
let dcpCookie: string;
let smallEngine: LocalSessionEngine;
let smallServer: RunningWebServer;
let smallCookie: string;
const DCP_ROOT = (): string => join(dir, 'dcp-root');
const CACHED_HEADER = (createdAt: number) => ({ version: 0 as const, id: asSessionId('session-cached'), createdAt, cwd: '/work/dcp' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-web-dcp-'));
  const store = await JsonlSessionStore.open({ root: DCP_ROOT(), compression: 'none', titleIndex: false });
  for (const name of ['s2-compress', 's4-dedup', 's11-expand']) {
    const { events } = recorded(name);
    await store.create(
      { version: 0, id: asSessionId(`session-${name}`), createdAt: events[0].time, cwd: '/work/dcp' },
      events as SessionEvent[],
    );
  }
  // A second copy of s2 that the cache test appends to.
  const s2 = recorded('s2-compress').events;
  await store.create(CACHED_HEADER(s2[0].time), s2 as SessionEvent[]);
  fixture = await makeWebFixture();
  dcpEngine = await testEngine(DCP_ROOT());
  dcpServer = await startWebServer({ engine: dcpEngine, assetsDir: fixture.assetsDir });
  dcpCookie = await signIn(dcpServer.port, dcpServer.token);
  smallEngine = await testEngine(fixture.root);
  smallServer = await startWebServer({ engine: smallEngine, assetsDir: fixture.assetsDir });
  smallCookie = await signIn(smallServer.port, smallServer.token);
});

afterAll(async () => {
  await dcpServer?.close();
  await smallServer?.close();
  await dcpEngine?.close();
  await smallEngine?.close();
  await fixture?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('dcp/summary', () => {
  it('s2-compress: one compress drop at block b1 and one prune drop; b1 with its topic, range and savings', async () => {
    const { events, commands } = recorded('s2-compress');
    const { status, reply } = await callApi(dcpServer.port, dcpCookie, 'dcp/summary', { sessionId: 'session-s2-compress' });
    expect(status).toBe(200);
    expect(reply.ok).toBe(true);
    const summary = reply.value;
    const checkpoints = replacesAfter(events, 'compaction/summary');
    const prunes = replacesAfter(events, 'compaction/prune');
    expect(checkpoints).toHaveLength(1);
    const [checkpoint] = checkpoints;
    expect(summary.drops.map((drop: any) => [drop.seq, drop.kind, drop.blockId])).toEqual([
      [checkpoint.seq, 'dcp-compress', checkpoint.data.source.dcp.blockRef],
      ...prunes.map((event) => [event.seq, 'dcp-prune', undefined]),
    ]);
    // dsh-dcp's own `/dcp stats`: shadowed ~308, checkpoint ~44, so b1 saved 308 − 44.
    const dshStats = (commands.find((command) => command.input === '/dcp stats') as { result: { text: string } }).result.text;
    const shadowed = Number(/shadowed tokens:\s+~(\d+)/.exec(dshStats)?.[1]);
    const checkpointTokens = Number(/checkpoint tokens:\s+~(\d+)/.exec(dshStats)?.[1]);
    expect(summary.blocks).toEqual([
      {
        id: checkpoint.data.source.dcp.blockRef,
        topic: checkpoint.data.source.dcp.topic,
        fromSeq: checkpoint.surfaceOp.start,
        toSeq: checkpoint.surfaceOp.end,
        tokensSaved: shadowed - checkpointTokens,
        state: 'active',
      },
    ]);
    const compress = summary.drops[0];
    expect(compress.tokensBefore - compress.tokensAfter).toBe(shadowed - checkpointTokens);
    // One point per surface change of the log, in seq order, each with the turn it belongs to.
    expect(summary.points.map((point: any) => point.seq)).toEqual(
      events
        .filter((event) => event.surfaceOp !== undefined && ['user/message', 'assistant/message', 'tool/result'].includes(event.type))
        .map((event) => event.seq),
    );
    const last = summary.points[summary.points.length - 1];
    const point = summary.points.find((p: any) => p.seq === compress.seq);
    expect(point.tokens).toBe(compress.tokensAfter);
    expect(last.turn).toBe(Math.max(...events.filter((event) => event.type === 'turn/start').map((event) => event.data.turn)));
  });

  it('the stats text is what `sessionctx dcp stats` prints for the same session, and reading it appends nothing', async () => {
    const path = (await dcpEngine.store!.locate(asSessionId('session-s2-compress'))) as string;
    const before = readFileSync(path);
    const { reply } = await callApi(dcpServer.port, dcpCookie, 'dcp/summary', { sessionId: 'session-s2-compress' });
    const cli = await runBuiltCli(['dcp', 'stats', '--session', 'session-s2-compress', '--root', DCP_ROOT(), '--no-workers']);
    expect(cli.code).toBe(0);
    expect(`${reply.value.statsText}\n`).toBe(cli.stdout);
    expect(reply.value.statsText).toMatch(/^DCP statistics \(heuristic token estimates\):\nblocks \(hist\/act\): 1\/1\n/);
    expect(readFileSync(path)).toEqual(before);
  });

  it('s4-dedup: the deduplication prune is the one drop; no blocks', async () => {
    const { events } = recorded('s4-dedup');
    const { reply } = await callApi(dcpServer.port, dcpCookie, 'dcp/summary', { sessionId: 'session-s4-dedup' });
    const prunes = replacesAfter(events, 'compaction/prune');
    expect(prunes.length).toBeGreaterThan(0);
    expect(reply.value.drops.map((drop: any) => [drop.seq, drop.kind])).toEqual(prunes.map((event) => [event.seq, 'dcp-prune']));
    expect(reply.value.blocks).toEqual([]);
  });

  it('s11-expand: every block of the log, in block order, with its state after the expansion and recompression', async () => {
    const { events } = recorded('s11-expand');
    const { reply } = await callApi(dcpServer.port, dcpCookie, 'dcp/summary', { sessionId: 'session-s11-expand' });
    const checkpoints = replacesAfter(events, 'compaction/summary');
    expect(checkpoints).toHaveLength(3);
    expect(reply.value.blocks.map((block: any) => [block.id, block.fromSeq, block.toSeq])).toEqual(
      checkpoints.map((event) => [event.data.source.dcp.blockRef, event.surfaceOp.start, event.surfaceOp.end]),
    );
    // DCP.md §13.1: a block shadowed by a later expansion is `expanded`, by a later summary `consumed`, else `active`.
    const expectedState = (event: any): string => {
      const later = checkpoints.find(
        (other) => other.seq > event.seq && other.surfaceOp.start <= event.seq && event.seq <= other.surfaceOp.end,
      );
      if (later === undefined) return 'active';
      return later.data.source.dcp.kind === 'expansion' ? 'expanded' : 'consumed';
    };
    expect(reply.value.blocks.map((block: any) => block.state)).toEqual(checkpoints.map(expectedState));
    expect(reply.value.blocks.map((block: any) => block.state)).toEqual(['expanded', 'consumed', 'active']);
    // An expansion puts text back: it is no drop; the summaries and the prune are.
    const summaries = checkpoints.filter((event) => event.data.source.dcp.kind === 'summary');
    const prunes = replacesAfter(events, 'compaction/prune');
    expect(reply.value.drops.map((drop: any) => drop.seq)).toEqual(
      [...summaries, ...prunes].map((event) => event.seq).sort((a, b) => a - b),
    );
  });

  it('a session with native compactions: one compaction drop per checkpoint of its log, each a drop', async () => {
    const session = fixtureSessions().find((entry) => entry.id === NATIVE)!;
    const events = readFileSync(session.rawPath, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line));
    const checkpoints = events.filter(
      (event) =>
        event.type === 'user/message' &&
        event.data.source.kind === 'plugin' &&
        event.data.source.plugin === 'compact' &&
        typeof event.surfaceOp === 'object',
    );
    expect(checkpoints).toHaveLength(5);
    const { reply } = await callApi(smallServer.port, smallCookie, 'dcp/summary', { sessionId: NATIVE });
    expect(reply.ok).toBe(true);
    expect(reply.value.drops.map((drop: any) => [drop.seq, drop.kind])).toEqual(checkpoints.map((event) => [event.seq, 'compaction']));
    for (const drop of reply.value.drops) expect(drop.tokensAfter).toBeLessThan(drop.tokensBefore);
    expect(reply.value.blocks).toEqual([]);
    expect(reply.value.statsText).toContain('blocks (hist/act): 0/0');
  });

  it('a session that does not exist is SESSION_QUERY_SESSION_NOT_FOUND', async () => {
    const { status, reply } = await callApi(smallServer.port, smallCookie, 'dcp/summary', { sessionId: 'session-nope' });
    expect(status).toBe(404);
    expect(reply).toMatchObject({ ok: false, error: { code: 'SESSION_QUERY_SESSION_NOT_FOUND' } });
  });

  it('a second view of an unchanged log is served from the cache; an append makes it read the log again', async () => {
    const store = dcpEngine.store!;
    const original = store.inspectArtifact.bind(store);
    let inspections = 0;
    store.inspectArtifact = (...args: Parameters<typeof original>) => {
      inspections += 1;
      return original(...args);
    };
    // The summary reads the log through an `inspect` task of the engine's pool: that is a read too.
    const runner = dcpEngine.runner;
    const originalRun = runner.run.bind(runner);
    runner.run = ((kind: string, ...rest: unknown[]) => {
      if (kind === 'inspect') inspections += 1;
      return (originalRun as (...a: unknown[]) => unknown)(kind, ...rest);
    }) as typeof runner.run;
    try {
      const first = await callApi(dcpServer.port, dcpCookie, 'dcp/summary', { sessionId: 'session-cached' });
      expect(first.reply.ok, JSON.stringify(first.reply).slice(0, 300)).toBe(true);
      const afterFirst = inspections;
      expect(afterFirst).toBeGreaterThan(0);
      const second = await callApi(dcpServer.port, dcpCookie, 'dcp/summary', { sessionId: 'session-cached' });
      expect(second.reply).toEqual(first.reply);
      expect(inspections).toBe(afterFirst);
      const { events } = recorded('s2-compress');
      const last = events[events.length - 1];
      await store.append(CACHED_HEADER(events[0].time), [
        {
          type: 'session/title',
          seq: last.seq + 1,
          time: last.time + 1,
          data: { title: 'Renamed', messageSeqs: [], source: { kind: 'user' } },
        } as SessionEvent,
      ]);
      const third = await callApi(dcpServer.port, dcpCookie, 'dcp/summary', { sessionId: 'session-cached' });
      expect(third.reply.ok).toBe(true);
      expect(inspections).toBeGreaterThan(afterFirst);
    } finally {
      store.inspectArtifact = original;
      runner.run = originalRun;
    }
  });
});

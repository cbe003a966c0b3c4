/**
 * The nine scripted DCP conversations of `test/fixtures/dcp-dsh/` run through `script run`'s composition (the real
 * host, the reference service and DCP mounted, as `sessionctx script run` mounts them) and compared with what
 * dsh + dsh-dcp recorded for them, request by request and record by record. The normalisation and the commented
 * allow-list (each entry citing its DCP.md §20 row) are `test/support/dcp-fixture-comparison.ts`, which the real-host
 * runs of `sessionctx/dsh-dcp` (`test/dsh-host/dcp-fixture-scenarios.test.mts`) use as well.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dcpPlugin } from '../../../../src/main/engine/dcp/dcp-plugin.js';
import { runScenario } from '../../../../src/main/stand-in/scenario/run-scenario.js';
import { parseScenario } from '../../../../src/main/stand-in/scenario/scenario.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { LoggedEvent, ModelRequestRecord, RecordedRun } from '../../../support/dcp-fixture-comparison.js';
import {
  DCP_FIXTURE_SCENARIOS,
  normaliseAgainstItself,
  normaliseScenarioRuns,
  requestContexts,
} from '../../../support/dcp-fixture-comparison.js';
import { DCP_DSH } from '../../../support/fixtures.js';

describe('script run against what dsh + dsh-dcp recorded (test/fixtures/dcp-dsh)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-dsh-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  for (const name of DCP_FIXTURE_SCENARIOS) {
    it(`${name}: every request and every record match dsh's byte for byte, allow-list aside`, async () => {
      const scenario = parseScenario(JSON.parse(readFileSync(join(DCP_DSH, `${name}.scenario.json`), 'utf8')) as unknown);
      const recorded = JSON.parse(readFileSync(join(DCP_DSH, `${name}.dsh.json`), 'utf8')) as RecordedRun;
      const store = await JsonlSessionStore.open({ root: join(root, name), compression: 'none', titleIndex: false });
      const requests: ModelRequestRecord[] = [];
      const run = await runScenario(scenario, store, {
        plugins: [dcpPlugin()],
        onModelRequest: (request) => requests.push(JSON.parse(JSON.stringify(request)) as ModelRequestRecord),
      });
      const events = (await store.inspect(asSessionId(run.sessionId))).events as unknown as LoggedEvent[];
      // The ordinals of the `/dcp` commands our run refused at command time.
      const refused = new Set(run.commands.flatMap((command, ordinal) => (command.kind === 'error' ? [ordinal] : [])));
      const compared = normaliseScenarioRuns({ events, requests }, recorded, refused);

      // Request by request.
      expect(requests.length).toBe(recorded.requests.length);
      compared.requests.ours.forEach((request, index) => expect(request, `request ${index}`).toEqual(compared.requests.dsh[index]));

      // Record by record.
      expect(compared.records.ours).toEqual(compared.records.dsh);
      expect(compared.strategyPrunes.ours).toEqual(compared.strategyPrunes.dsh);

      // The window a scenario runs with is recorded as dsh records it (HOST.md §12): after each `request/header`,
      // `request/context {provider, model, contextWindow}`. dsh also writes one without a window; ours only with one.
      expect(requestContexts(events)).toEqual(requestContexts(recorded.events).filter((data) => data.includes('"contextWindow"')));
      if (scenario.contextWindow !== undefined) expect(requestContexts(events).length).toBeGreaterThan(0);

      // What each command returned to the person is what its `command/done` says (compared above).
      const done = new Map(
        events.filter((event) => event.type === 'command/done').map((event) => [String(event.data['commandId']), event.data]),
      );
      const runs = events.filter((event) => event.type === 'command/run');
      expect(run.commands.map((command) => ({ kind: command.kind, text: command.text }))).toEqual(
        runs.map((event) => {
          const data = done.get(String(event.data['commandId'])) as Record<string, unknown>;
          return { kind: data['kind'], text: data['text'] };
        }),
      );
    });
  }

  it('normalising a log against itself sets no record aside', () => {
    // Independent of our run: with nothing diverged and nothing refused, every compared record of dsh's log is kept
    // (in place or among the strategy prunes); entries only rewrite.
    const recorded = JSON.parse(readFileSync(join(DCP_DSH, 's11-expand.dsh.json'), 'utf8')) as RecordedRun;
    const once = normaliseAgainstItself(recorded.events);
    expect(once.diverged).toBe(0);
    expect(once.kept).toBe(once.compared);
  });
});

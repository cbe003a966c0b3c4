/**
 * The scripted DCP conversations of `test/fixtures/dcp-dsh/` on a real dsh 0.1.0-rc.8 host with `sessionctx/dsh-dcp`
 * mounted from the packed tarball (`support/dcp-scenario.mts`), compared with what dsh + dsh-dcp recorded for them by
 * the comparison the stand-in host's `script run` is held to (`test/support/dcp-fixture-comparison.ts`, compiled;
 * same normalisation, same allow-list): every request, every record, the strategy prunes, and dsh's `request/context`
 * records exactly. On every request: no `agent/error`, messages equal a cold fold of the log, system and tools equal
 * the folded request header, and the plugin's view lists dsh's surface nodes; no invariant or listener failure is
 * logged.
 */
import { describe, expect, it } from 'vitest';
import { DCP_FIXTURE_SCENARIOS, normaliseScenarioRuns, requestContexts } from './support/dcp-dist.mts';
import { rc8Kit } from './support/dcp-kit-rc8.mts';
import { readRecording, runDcpScenario } from './support/dcp-scenario.mts';

describe(`sessionctx/dsh-dcp on ${rc8Kit.label} against what dsh + dsh-dcp recorded (test/fixtures/dcp-dsh)`, () => {
  for (const name of DCP_FIXTURE_SCENARIOS) {
    it(`${name}: every request and every record match dsh-dcp's, allow-list aside; every request holds the invariants`, async () => {
      const run = await runDcpScenario(rc8Kit, name);
      const recorded = readRecording(name);
      expect(run.agentErrors).toEqual([]);
      expect(run.mismatches).toEqual([]);
      expect(run.problems).toEqual([]);

      const refused = new Set(run.commands.flatMap((command, ordinal) => (command.kind === 'error' ? [ordinal] : [])));
      const compared = normaliseScenarioRuns(run, recorded, refused);
      expect(run.requests.length).toBe(recorded.requests.length);
      compared.requests.ours.forEach((request, index) => expect(request, `request ${index}`).toEqual(compared.requests.dsh[index]));
      expect(compared.records.ours).toEqual(compared.records.dsh);
      expect(compared.strategyPrunes.ours).toEqual(compared.strategyPrunes.dsh);
      // dsh records the route of every request (with its window when known), as it did for dsh-dcp.
      expect(requestContexts(run.events)).toEqual(requestContexts(recorded.events));
    });
  }
});

/**
 * The scripted DCP conversations of `test/fixtures/dcp-dsh/` on a real dsh 0.1.0-rc.6 host — the release dsh-dcp
 * recorded them on — with `sessionctx/dsh-dcp` mounted from the packed tarball, compared with the recording by the
 * comparison every run is held to (`test/support/dcp-fixture-comparison.ts`, compiled), with the per-request checks of
 * `../dsh-host/support/dcp-host.mts`. Each scenario also runs on the rc.8 host of `test/dsh-host` in the same process
 * (its kit resolves that package's packages), and the two releases must give identical normalised outputs.
 */
import { describe, expect, it } from 'vitest';
import { DCP_FIXTURE_SCENARIOS, normaliseScenarioRuns, requestContexts } from '../dsh-host/support/dcp-dist.mts';
import { rc8Kit } from '../dsh-host/support/dcp-kit-rc8.mts';
import type { DcpScenarioRun } from '../dsh-host/support/dcp-scenario.mts';
import { readRecording, runDcpScenario } from '../dsh-host/support/dcp-scenario.mts';
import { rc6Kit } from './support/dcp-kit-rc6.mts';

const refusedOf = (run: DcpScenarioRun): Set<number> =>
  new Set(run.commands.flatMap((command, ordinal) => (command.kind === 'error' ? [ordinal] : [])));

describe(`sessionctx/dsh-dcp on ${rc6Kit.label} against what dsh + dsh-dcp recorded, and against ${rc8Kit.label}`, () => {
  for (const name of DCP_FIXTURE_SCENARIOS) {
    it(`${name}: every request and every record match dsh-dcp's, allow-list aside; rc.6 and rc.8 give identical normalised outputs`, async () => {
      const recorded = readRecording(name);
      const rc6 = await runDcpScenario(rc6Kit, name);
      expect(rc6.agentErrors).toEqual([]);
      expect(rc6.mismatches).toEqual([]);
      expect(rc6.problems).toEqual([]);
      const compared = normaliseScenarioRuns(rc6, recorded, refusedOf(rc6));
      expect(rc6.requests.length).toBe(recorded.requests.length);
      compared.requests.ours.forEach((request, index) => expect(request, `request ${index}`).toEqual(compared.requests.dsh[index]));
      expect(compared.records.ours).toEqual(compared.records.dsh);
      expect(compared.strategyPrunes.ours).toEqual(compared.strategyPrunes.dsh);
      expect(requestContexts(rc6.events)).toEqual(requestContexts(recorded.events));

      const rc8 = await runDcpScenario(rc8Kit, name);
      const other = normaliseScenarioRuns(rc8, recorded, refusedOf(rc8));
      expect(other.requests.ours).toEqual(compared.requests.ours);
      expect(other.records.ours).toEqual(compared.records.ours);
      expect(other.strategyPrunes.ours).toEqual(compared.strategyPrunes.ours);
      expect(requestContexts(rc8.events)).toEqual(requestContexts(rc6.events));
      expect(rc8.commands).toEqual(rc6.commands);
      expect(JSON.stringify(rc8.derived)).toBe(JSON.stringify(rc6.derived));
    });
  }
});

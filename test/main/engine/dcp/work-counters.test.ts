// DCP.md §18 item 72 (§19 D2): on the §19 corpus, a pre-step with no candidates does no fold, no surface scan and
// no log scan, and visits at most 8 × (new events + emitted aliases + 1) index nodes; validating a 10-node range
// visits O(10) nodes whatever the log length. Deterministic counters, never timing.
import { describe, expect, it } from 'vitest';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import { dcpPlugin } from '../../../../src/main/engine/dcp/dcp-plugin.js';
import type { DcpIndex } from '../../../../src/main/engine/dcp/dcp-index.js';
import { planRange } from '../../../../src/main/engine/dcp/range-plan.js';
import { DcpWorkCounters } from '../../../../src/main/engine/dcp/work-counters.js';
import type { Session } from '../../../../src/main/stand-in/host/session.js';
import { generateDcpCorpus } from '../../../../bench/support/dcp-corpus.js';
import { loggedMarkers, TEST_DCP_CONFIG, texts, turn } from './dcp-harness.js';

async function corpusHarness(size: number) {
  const counters = new DcpWorkCounters();
  const plugin = dcpPlugin({ counters });
  const harness = createTestHarness({
    seed: generateDcpCorpus(size),
    plugins: [plugin],
    config: { dcp: TEST_DCP_CONFIG },
    script: texts(4),
  });
  // The first contact builds the index by one cold replay.
  const index = plugin.runtime!.indexFor(harness.session);
  expect(counters.folds).toBe(1);
  return { harness, counters, index, runtime: plugin.runtime! };
}

/** Two active markers `count` surface nodes apart in the old part of the surface, as a 10-node range. */
function rangeOf(index: DcpIndex, session: Session, count: number): { startRef: string; endRef: string } {
  const { surface } = session;
  for (let position = 1; position + count < surface.length - 40; position++) {
    const start = index.markerRefAt(surface.at(position)!);
    const end = index.markerRefAt(surface.at(position + count)!);
    if (start !== undefined && end !== undefined) return { startRef: start, endRef: end };
  }
  throw new Error(`no ${count}-node range between markers`);
}

describe('§18 item 72: work counters', () => {
  it('a pre-step on the 50k corpus visits O(new events + aliases) nodes with no fold or scan', async () => {
    const { harness, counters } = await corpusHarness(50_000);
    expect(harness.session.events.length).toBeGreaterThanOrEqual(50_000);
    for (const prompt of ['one', 'two', 'three']) {
      counters.reset();
      const before = harness.session.events.length;
      await turn(harness, prompt);
      const newEvents = harness.session.events.length - before;
      const aliases = loggedMarkers(harness.session)
        .at(-1)!
        .text.split('\n')
        .filter((line) => line.startsWith('alias ')).length;
      expect(counters.folds).toBe(0);
      expect(counters.surfaceScans).toBe(0);
      expect(counters.logScans).toBe(0);
      expect(counters.nodesVisited).toBeLessThanOrEqual(8 * (newEvents + aliases + 1));
    }
    // The corpus's native brackets left pending aliases; markers drain them 32 at a time.
    expect(loggedMarkers(harness.session).at(-1)!.text).toContain('\nalias m');
  });

  it('validating a 10-node range visits the same O(10) nodes at 1k and 50k events', async () => {
    const visits: number[] = [];
    for (const size of [1_000, 50_000]) {
      const { harness, counters, index, runtime } = await corpusHarness(size);
      harness.session.append('turn/start', { turn: (harness.session.highestTurn() ?? 0) + 1 });
      const refs = rangeOf(index, harness.session, 10);
      const context = {
        index,
        session: harness.session,
        hintCount: 3,
        events: harness.session.events,
        estimateOf: (seq: number) => harness.session.meter.estimateOf(seq),
        currentTurn: harness.session.highestTurn()!,
        retainRecentTurns: 1,
        minNetSavingsTokens: 1,
        appendix: {
          protectUserMessages: false,
          protectTags: true,
          protectedSources: [],
          protectedTools: [],
          matchesProtectedFile: runtime.matchesProtectedFile,
        },
        authorSeq: undefined,
        topic: 't',
        authorMessageId: 'unknown',
        callId: 'c',
      };
      counters.reset();
      const planned = planRange(
        context,
        { ...refs, givenStartRef: refs.startRef, givenEndRef: refs.endRef, label: 'x', summary: 'short' },
        'b1',
      );
      expect(planned.ok).toBe(true);
      expect(planned.ok && planned.plan.shadowed.length).toBe(10);
      expect(counters.surfaceScans).toBe(0);
      expect(counters.nodesVisited).toBeLessThanOrEqual(8 * (10 + 1));
      visits.push(counters.nodesVisited);
    }
    expect(visits[1]).toBe(visits[0]);
  });
});

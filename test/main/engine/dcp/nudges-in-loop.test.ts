// DCP.md §18 item 56 through the real loop (the reducer itself is covered in test/protocol/dcp/nudge.test.ts):
// a native compaction after a nudge re-arms it, and no nudge is written in manual mode or with compress disabled.
import { describe, expect, it } from 'vitest';
import { bracketWithSource, createDcpHarness, expectHealthyLog, loggedMarkers, texts, turn } from './dcp-harness.js';

const NUDGE_RE = /^DCP compression recommended: context is at \d+% of the model window\. Compress a closed range to free space\.$/;

function nudgeLines(harness: ReturnType<typeof createDcpHarness>): Array<string | undefined> {
  return loggedMarkers(harness.session).map((marker) =>
    marker.text.split('\n').find((line) => line.startsWith('DCP compression recommended:')),
  );
}

describe('§18 item 56: nudges in the loop', () => {
  it('after a nudge, a native compaction re-arms it and the next pressured marker nudges again', async () => {
    const harness = createDcpHarness({ contextWindow: 1500, dcp: { nudge: { frequencySteps: 1 } }, script: texts(12) });
    let turns = 0;
    while (!nudgeLines(harness).some((line) => line !== undefined) && turns < 10) await turn(harness, `turn ${++turns} ${'n'.repeat(300)}`);
    expect(harness.index().nudgeState.armed).toBe(false);
    await turn(harness, `turn ${++turns} ${'n'.repeat(300)}`);
    // Disarmed: still under pressure, but no second nudge yet.
    expect(nudgeLines(harness).at(-1)).toBeUndefined();
    const { surface } = harness.session;
    bracketWithSource(
      harness.session,
      'native-1',
      surface.at(0)!,
      surface.at(1)!,
      { kind: 'plugin', plugin: 'compact', compactionId: 'native-1' },
      'native summary',
    );
    expect(harness.index().nudgeState.armed).toBe(true);
    await turn(harness, `turn ${++turns} ${'n'.repeat(300)}`);
    expect(nudgeLines(harness).at(-1)).toMatch(NUDGE_RE);
    expectHealthyLog(harness);
  });

  it('manual mode writes no nudge, even under pressure', async () => {
    const harness = createDcpHarness({ contextWindow: 1500, dcp: { nudge: { frequencySteps: 1 } }, script: texts(8) });
    await harness.runCommand('/dcp manual on');
    for (let index = 1; index <= 8; index++) await turn(harness, `turn ${index} ${'n'.repeat(300)}`);
    expect(harness.session.meter.measure().ratio).toBeGreaterThan(0.8);
    expect(nudgeLines(harness).every((line) => line === undefined)).toBe(true);
    expect(loggedMarkers(harness.session)[0]!.text).toContain('\nDCP manual mode: on.');
  });

  it('with compress disabled there is no marker, hence no nudge', async () => {
    const harness = createDcpHarness({
      contextWindow: 1000,
      dcp: { compress: { enabled: false }, nudge: { frequencySteps: 1 } },
      script: texts(8),
    });
    for (let index = 1; index <= 8; index++) await turn(harness, `turn ${index} ${'n'.repeat(300)}`);
    expect(harness.session.meter.measure().ratio).toBeGreaterThan(0.8);
    expect(loggedMarkers(harness.session)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { INITIAL_NUDGE_STATE, decideNudge, foldNudgeCheckpoint, foldNudgeMarker, nudgesAllowed } from '../../../src/protocol/dcp/nudge.js';
import type { NudgeState } from '../../../src/protocol/dcp/nudge.js';

const settings = { minRatio: 0.6, maxRatio: 0.8, frequencySteps: 8, iterationThreshold: 12 };
const PRESSURE_90 = 'DCP compression recommended: context is at 90% of the model window. Compress a closed range to free space.';
const NO_DATA =
  'DCP compression recommended: long-running step chain without pressure data. Compress a closed range to keep context bounded.';

/** Builds one marker the way the pre-step does: decide, then fold the marker with what it carried. */
function marker(state: NudgeState, ratio: number | undefined): { state: NudgeState; line: string | undefined } {
  const line = decideNudge(state, ratio, settings);
  return { state: foldNudgeMarker(state, line !== undefined, ratio, settings.minRatio), line };
}

function markers(state: NudgeState, ratios: ReadonlyArray<number | undefined>): { state: NudgeState; lines: Array<string | undefined> } {
  const lines: Array<string | undefined> = [];
  let current = state;
  for (const ratio of ratios) {
    const built = marker(current, ratio);
    current = built.state;
    lines.push(built.line);
  }
  return { state: current, lines };
}

describe('§18 item 55: nudge decisions (window 1000)', () => {
  it('2 markers at 900 tokens → no nudge, sinceNudge 2', () => {
    const run = markers(INITIAL_NUDGE_STATE, [0.9, 0.9]);
    expect(run.lines).toEqual([undefined, undefined]);
    expect(run.state).toEqual({ sinceNudge: 2, armed: true });
  });

  it('9 markers at 900 → the 9th carries the pressure text with 90%', () => {
    const run = markers(INITIAL_NUDGE_STATE, Array(9).fill(0.9));
    expect(run.lines.slice(0, 8)).toEqual(Array(8).fill(undefined));
    expect(run.lines[8]).toBe(PRESSURE_90);
    expect(run.state).toEqual({ sinceNudge: 0, armed: false });
  });

  it('a marker at 500 → no nudge, sinceNudge 0', () => {
    const run = markers(INITIAL_NUDGE_STATE, [0.9, 0.9, 0.9, 0.5]);
    expect(run.lines[3]).toBeUndefined();
    expect(run.state).toEqual({ sinceNudge: 0, armed: true });
  });

  it('no window and 13 markers → the "without pressure data" text on the 13th', () => {
    const run = markers(INITIAL_NUDGE_STATE, Array(13).fill(undefined));
    expect(run.lines.slice(0, 12)).toEqual(Array(12).fill(undefined));
    expect(run.lines[12]).toBe(NO_DATA);
  });

  it('between minRatio and maxRatio nothing is nudged; rounding uses round(r*100)', () => {
    expect(decideNudge({ sinceNudge: 100, armed: true }, 0.7, settings)).toBeUndefined();
    expect(decideNudge({ sinceNudge: 100, armed: true }, 0.8, settings)).toBeUndefined();
    expect(decideNudge({ sinceNudge: 8, armed: true }, 0.855, settings)).toBe(
      'DCP compression recommended: context is at 86% of the model window. Compress a closed range to free space.',
    );
  });
});

describe('§18 item 56: hysteresis and gates', () => {
  it('after a nudge, pressure ≤ minRatio at a marker re-arms; the nudge returns after frequencySteps markers', () => {
    let run = markers(INITIAL_NUDGE_STATE, Array(9).fill(0.9));
    expect(run.lines[8]).toBe(PRESSURE_90);
    run = markers(run.state, Array(20).fill(0.9));
    expect(run.lines.every((line) => line === undefined)).toBe(true);
    run = markers(run.state, [0.5]);
    expect(run.state).toEqual({ sinceNudge: 0, armed: true });
    run = markers(run.state, Array(9).fill(0.9));
    expect(run.lines.slice(0, 8)).toEqual(Array(8).fill(undefined));
    expect(run.lines[8]).toBe(PRESSURE_90);
  });

  it('after a nudge, a checkpoint-class replace (e.g. native compaction) re-arms it', () => {
    let run = markers(INITIAL_NUDGE_STATE, Array(9).fill(0.9));
    run = markers(run.state, Array(8).fill(0.9));
    expect(run.state).toEqual({ sinceNudge: 8, armed: false });
    expect(decideNudge(run.state, 0.9, settings)).toBeUndefined();
    const rearmed = foldNudgeCheckpoint(run.state);
    expect(rearmed).toEqual({ sinceNudge: 8, armed: true });
    expect(decideNudge(rearmed, 0.9, settings)).toBe(PRESSURE_90);
  });

  it('a replayed marker that carried a nudge resets the state whatever the ratio', () => {
    expect(foldNudgeMarker({ sinceNudge: 5, armed: true }, true, 0.1, 0.6)).toEqual({ sinceNudge: 0, armed: false });
  });

  it('no nudge in manual mode, with nudges disabled or with compress disabled', () => {
    expect(nudgesAllowed(true, true, false)).toBe(true);
    expect(nudgesAllowed(true, true, true)).toBe(false);
    expect(nudgesAllowed(false, true, false)).toBe(false);
    expect(nudgesAllowed(true, false, false)).toBe(false);
  });
});

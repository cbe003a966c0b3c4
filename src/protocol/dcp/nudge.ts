/**
 * Nudges (DCP.md §9): an optional line of a marker that recommends compression. The state `{sinceNudge, armed}`
 * is a fold over the log (markers and checkpoint-class replaces), and the decision is a pure function of that
 * state, the current pressure ratio and the configuration. Hysteresis: after a nudge the state is disarmed until
 * pressure falls to `minRatio` at a marker or a checkpoint-class replace happens.
 */
import { NUDGE_PREFIX } from './constants.js';

/** The folded nudge state. */
export interface NudgeState {
  /** Markers since the last nudge or low-pressure marker. */
  readonly sinceNudge: number;
  /** False after a nudge, until re-armed. */
  readonly armed: boolean;
}

/** The nudge settings (`dcp.nudge.*`). */
export interface NudgeSettings {
  readonly minRatio: number;
  readonly maxRatio: number;
  readonly frequencySteps: number;
  readonly iterationThreshold: number;
}

/** The state before any marker. */
export const INITIAL_NUDGE_STATE: NudgeState = Object.freeze({ sinceNudge: 0, armed: true });

/** The pressure nudge: `DCP compression recommended: context is at <round(r*100)>% of the model window. …`. */
export function pressureNudgeLine(ratio: number): string {
  return `${NUDGE_PREFIX} context is at ${Math.round(ratio * 100)}% of the model window. Compress a closed range to free space.`;
}

/** The nudge used when the context window is unknown. */
export const NO_PRESSURE_DATA_NUDGE_LINE = `${NUDGE_PREFIX} long-running step chain without pressure data. Compress a closed range to keep context bounded.`;

/**
 * Folds one marker (§9 rule 3). `ratio` is `measure().ratio` just before the marker was appended, `undefined` when
 * the window is unknown.
 */
export function foldNudgeMarker(state: NudgeState, hasNudge: boolean, ratio: number | undefined, minRatio: number): NudgeState {
  if (hasNudge) return { sinceNudge: 0, armed: false };
  if (ratio !== undefined && ratio <= minRatio) return { sinceNudge: 0, armed: true };
  return { sinceNudge: state.sinceNudge + 1, armed: state.armed };
}

/** Folds a checkpoint-class replace (DCP block, native, foreign-dcp, purge): it re-arms (§9 rule 3). */
export function foldNudgeCheckpoint(state: NudgeState): NudgeState {
  return state.armed ? state : { sinceNudge: state.sinceNudge, armed: true };
}

/**
 * The nudge line for the marker being built (§9 rule 4), or `undefined`. `ratio` is the current pressure,
 * measured after this step's prunes. The gates of §9 rule 2 (nudges disabled, no marker, manual mode) are the
 * caller's: see {@link nudgesAllowed}.
 */
export function decideNudge(state: NudgeState, ratio: number | undefined, settings: NudgeSettings): string | undefined {
  if (ratio !== undefined) {
    if (ratio <= settings.minRatio) return undefined;
    if (ratio > settings.maxRatio && state.armed && state.sinceNudge >= settings.frequencySteps) return pressureNudgeLine(ratio);
    return undefined;
  }
  return state.armed && state.sinceNudge >= settings.iterationThreshold ? NO_PRESSURE_DATA_NUDGE_LINE : undefined;
}

/**
 * Whether {@link decideNudge} could return a line for `state` whatever the ratio: armed and past the smaller of the two
 * step thresholds. When false the ratio need not be measured.
 */
export function nudgeCouldFire(state: NudgeState, settings: NudgeSettings): boolean {
  return state.armed && state.sinceNudge >= Math.min(settings.frequencySteps, settings.iterationThreshold);
}

/** §9 rule 2: a marker may carry a nudge only with nudges and compress enabled and manual mode off. */
export function nudgesAllowed(nudgeEnabled: boolean, compressEnabled: boolean, manualOn: boolean): boolean {
  return nudgeEnabled && compressEnabled && !manualOn;
}

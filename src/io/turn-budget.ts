/**
 * The time budget of one event-loop turn, shared by the title scans on a host's thread (issue 27 item 6). Dozens of
 * title reads run at once in a title build; their completions arrive in one poll phase and each continues with its
 * scan, so together they held the thread 8–20 ms although no single scan was long. Each scan asks {@link turnSpent}
 * first and hops when the scans before it in the same turn have used the budget. (Not the query layer's inspections:
 * their start keeps dsh's scheduling, SESSION-LOG.md §10.5.)
 *
 * A turn is noticed by its first step, which queues an immediate that ends it: every continuation of the same poll
 * (or check) phase runs before that immediate, so they share the turn's start.
 */
import { HOST_SLICE_MS } from './time-slice.js';
import { yieldToEventLoop } from './yield-to-event-loop.js';

/** When the current turn's first step ran (`undefined`: no step yet in this turn). */
let turnStart: number | undefined;

function endTurn(): void {
  turnStart = undefined;
}

/** True when the steps run in the current turn have used {@link HOST_SLICE_MS}: the caller hops before its step. */
export function turnSpent(): boolean {
  const now = performance.now();
  if (turnStart === undefined) {
    turnStart = now;
    setImmediate(endTurn);
    return false;
  }
  return now - turnStart >= HOST_SLICE_MS;
}

/** Hops to the event loop when {@link turnSpent}; otherwise resolves at once. */
export async function yieldIfTurnSpent(): Promise<void> {
  if (turnSpent()) await yieldToEventLoop();
}

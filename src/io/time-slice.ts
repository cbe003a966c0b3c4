/**
 * The time budget of cooperative work on a host's thread (issue 27 item 6): a loop asks {@link TimeSlice.due} before
 * each step and hops ({@link TimeSlice.hop}, one {@link yieldToEventLoop}) once the current slice has run its budget.
 * Budgets by time, not by a count of steps: steps differ a hundredfold in cost (a known title index entry is a lookup,
 * a fresh one an encoding and a hash), so any fixed count is either many hops or a long stretch.
 */
import { yieldToEventLoop } from './yield-to-event-loop.js';

/**
 * How long one slice runs before it hops: the event-loop gap a background job may add is "the idle floor + 2 ms"
 * (issue 27 item 6), and a slice overshoots its budget by at most one step.
 */
export const HOST_SLICE_MS = 1.5;

/** Steps between two looks at the clock for a loop of cheap steps (a few map operations each, well under a microsecond). */
export const CHEAP_STEP_CLOCK_EVERY = 32;

/** What a {@link TimeSlice} is built from; every field has a default. */
export interface TimeSliceOptions {
  /** The slice's budget in milliseconds (default {@link HOST_SLICE_MS}). */
  readonly budgetMs?: number;
  /** How many steps pass between two looks at the clock (default 1: cheap steps may ask for fewer looks). */
  readonly clockEvery?: number;
  /** The hop (default {@link yieldToEventLoop}; tests count them). */
  readonly pause?: () => Promise<void>;
  /** The clock in milliseconds (default `performance.now`; tests drive it). */
  readonly now?: () => number;
}

/** One run of sliced work: starts its first slice when constructed. */
export class TimeSlice {
  readonly #budgetMs: number;
  readonly #clockEvery: number;
  readonly #pause: () => Promise<void>;
  readonly #now: () => number;
  #sliceStart: number;
  #countdown: number;
  #hops = 0;

  constructor(options: TimeSliceOptions = {}) {
    this.#budgetMs = options.budgetMs ?? HOST_SLICE_MS;
    this.#clockEvery = Math.max(1, Math.floor(options.clockEvery ?? 1));
    this.#pause = options.pause ?? yieldToEventLoop;
    this.#now = options.now ?? (() => performance.now());
    this.#sliceStart = this.#now();
    this.#countdown = this.#clockEvery;
  }

  /**
   * True when the current slice has used its budget: the caller hops before its next step. Looks at the clock every
   * `clockEvery` calls only; {@link dueNow} for a step much dearer than the others.
   */
  due(): boolean {
    this.#countdown -= 1;
    if (this.#countdown > 0) return false;
    return this.dueNow();
  }

  /** {@link due}, looking at the clock now whatever the count. */
  dueNow(): boolean {
    this.#countdown = this.#clockEvery;
    return this.#now() - this.#sliceStart >= this.#budgetMs;
  }

  /** Hops to the event loop and starts the next slice. */
  async hop(): Promise<void> {
    this.#hops += 1;
    await this.#pause();
    this.#sliceStart = this.#now();
    this.#countdown = this.#clockEvery;
  }

  /** How many hops this run took. */
  get hops(): number {
    return this.#hops;
  }
}

/**
 * The class of every replacing event (DCP.md §6.3), decided once when the replace is folded: the DCP index's other
 * folds read it from the step, and resolution and leaf collection read it later by seq. A class depends on the
 * event and the one before it (a prune's replace follows its `compaction/prune`), so this fold sees every event.
 */
import type { SessionEvent } from '../../../protocol/events.js';
import type { ClassifiedReplace, ReplaceClass } from '../../../protocol/dcp/replace-class.js';
import { classifyReplace } from '../../../protocol/dcp/replace-class.js';

/** The replace classes of one session. */
export class ReplaceClasses {
  readonly #classes = new Map<number, ReplaceClass>();
  #previous: SessionEvent | undefined;

  /** The class of the replacing event `seq`, or `undefined` for any other seq. */
  get(seq: number): ReplaceClass | undefined {
    return this.#classes.get(seq);
  }

  /** Every (seq, class). */
  entries(): ReadonlyMap<number, ReplaceClass> {
    return this.#classes;
  }

  /**
   * Folds one event; `replaces` is true when it replaced surface nodes.
   * @returns the replace's classification, `undefined` for any other event
   */
  apply(event: SessionEvent, replaces: boolean): ClassifiedReplace | undefined {
    const classified = replaces ? classifyReplace(event, this.#previous) : undefined;
    if (classified !== undefined) this.#classes.set(event.seq, classified.kind);
    this.#previous = event;
    return classified;
  }
}

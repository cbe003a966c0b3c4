/**
 * The runtime snapshots DCP protects (DCP.md §7.7): the `form: 'snapshot'` user messages in seq order, with the
 * newest one still on the surface on top. A snapshot that a replace shadowed is popped at once, so the top is
 * always current. O(1) amortised per event.
 */
import { isEventOf } from '../../../protocol/event-map.js';
import type { DcpWorkCounters } from './work-counters.js';
import type { IndexStep } from './index-step.js';

/** The snapshot stack of one session. */
export class SnapshotStack {
  readonly #seqs: number[] = [];
  readonly #counters: DcpWorkCounters;

  constructor(counters: DcpWorkCounters) {
    this.#counters = counters;
  }

  /** The newest `form:'snapshot'` user message still on the surface, or `undefined`. */
  get latest(): number | undefined {
    return this.#seqs.at(-1);
  }

  /** The stacked seqs, oldest first. */
  list(): number[] {
    return [...this.#seqs];
  }

  /** Folds one event. */
  apply(step: IndexStep): void {
    const { event } = step;
    if (!step.appended && step.replace === undefined) return;
    if (isEventOf(event, 'user/message') && event.data.source['form'] === 'snapshot') this.#seqs.push(event.seq);
    if (step.replace === undefined) return;
    const { surface } = step.host;
    while (this.#seqs.length > 0 && !surface.has(this.#seqs.at(-1) as number)) {
      this.#counters.nodesVisited += 1;
      this.#seqs.pop();
    }
  }
}

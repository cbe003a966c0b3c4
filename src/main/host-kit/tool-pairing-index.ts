/**
 * The running tool-pairing count behind the balance functions (HOST.md §5): +1 per `tool-call` block of an
 * `assistant/message` node, −1 per `tool/result` node, in surface order. The count after each position is kept
 * in a prefix array that is valid up to some position and recomputed lazily beyond it.
 */
import type { SessionEvent } from '../../protocol/events.js';
import type { AnyTypedEvent } from '../../protocol/event-map.js';
import { SeqTable } from '../host-api/seq-table.js';
import type { SurfaceDelta, SurfaceReader } from '../../protocol/surface-view.js';
import type { ToolPairingReader } from '../host-api/host-api.js';
export type { ToolPairingReader } from '../host-api/host-api.js';

/** A node's contribution to the count. */
function pairingContribution(event: SessionEvent): number {
  // Surface nodes passed the message shape checks: `message.content` is an array of blocks.
  const typed = event as AnyTypedEvent;
  switch (typed.type) {
    case 'tool/result':
      return -1;
    case 'assistant/message': {
      let calls = 0;
      for (const block of typed.data.message.content) if (block.type === 'tool-call') calls += 1;
      return calls;
    }
    default:
      return 0;
  }
}

/**
 * The prefix counts of one session, kept per node (by seq) rather than per position, so that a replace never shifts
 * them: a replace whose removed nodes contribute as much as the new node (every legal checkpoint, prune and cleanup
 * over closed units) leaves every later count as it was, and the new node takes the count of the last node it
 * removed, O(k); any other replace marks the counts from its position on dirty. Counts are valid for the nodes at
 * positions `0..#validThrough` and computed lazily beyond.
 */
export class ToolPairingIndex implements ToolPairingReader {
  readonly #surface: SurfaceReader;
  readonly #contribution = new SeqTable();
  /** The count through each node, by seq; valid for the nodes at positions `<= #validThrough`. */
  readonly #countAfter = new SeqTable();
  #validThrough = -1;

  constructor(surface: SurfaceReader) {
    this.#surface = surface;
  }

  countThrough(position: number): number {
    if (position < 0) return 0;
    const surface = this.#surface;
    while (this.#validThrough < position) {
      const next = this.#validThrough + 1;
      const before = next === 0 ? 0 : this.#countAfter.get(surface.at(next - 1) as number);
      const seq = surface.at(next) as number;
      this.#countAfter.set(seq, before + this.#contribution.get(seq));
      this.#validThrough = next;
    }
    return this.#countAfter.get(surface.at(position) as number);
  }

  /** Folds in a stored surface change; the surface view has already applied it. */
  apply(event: SessionEvent, delta: SurfaceDelta | undefined): void {
    if (delta === undefined) return;
    const contribution = pairingContribution(event);
    this.#contribution.set(event.seq, contribution);
    if (delta.kind === 'append') {
      if (this.#validThrough === delta.position - 1) {
        const before = delta.position === 0 ? 0 : this.#countAfter.get(this.#surface.at(delta.position - 1) as number);
        this.#countAfter.set(event.seq, before + contribution);
        this.#validThrough = delta.position;
      }
      return;
    }
    const start = delta.position;
    const removed = delta.shadowed.length;
    let removedContribution = 0;
    for (const seq of delta.shadowed) removedContribution += this.#contribution.get(seq);
    if (removedContribution === contribution && this.#validThrough >= start + removed - 1) {
      // The count after the old last node is the count after the new node; later counts keep their values.
      this.#countAfter.set(event.seq, this.#countAfter.get(delta.shadowed[removed - 1] as number));
      this.#validThrough -= removed - 1;
    } else {
      this.#validThrough = Math.min(this.#validThrough, start - 1);
    }
  }
}

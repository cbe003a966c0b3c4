/**
 * The running tool-pairing count behind the balance functions (HOST.md §5): +1 per `tool-call` block of an
 * `assistant/message` node, −1 per `tool/result` node, in surface order. The count after each position is kept
 * in a prefix array that is valid up to some position and recomputed lazily beyond it.
 */
import type { SessionEvent } from '../../protocol/events.js';
import { isRecord } from '../../protocol/events.js';
import { SeqTable } from './seq-table.js';
import type { SurfaceDelta, SurfaceReader } from '../../protocol/surface-view.js';

/** Read access to the running count. */
export interface ToolPairingReader {
  /**
   * The count over the nodes at positions `0..position` inclusive; 0 for `position = -1`. O(1) amortised.
   * Call with `-1 <= position < surface.length`.
   */
  countThrough(position: number): number;
}

/** A node's contribution to the count. */
function pairingContribution(event: SessionEvent): number {
  switch (event.type) {
    case 'tool/result':
      return -1;
    case 'assistant/message': {
      const message = isRecord(event.data) ? event.data['message'] : undefined;
      const content = isRecord(message) ? message['content'] : undefined;
      if (!Array.isArray(content)) return 0;
      let calls = 0;
      for (const block of content) if (isRecord(block) && block['type'] === 'tool-call') calls += 1;
      return calls;
    }
    default:
      return 0;
  }
}

/**
 * The prefix counts of one session. A replace whose removed nodes contribute as much as the new node (every
 * legal checkpoint, prune and cleanup over closed units) leaves every later count as it was, so only the
 * removed positions go; any other replace marks the counts from its position on dirty.
 */
export class ToolPairingIndex implements ToolPairingReader {
  readonly #surface: SurfaceReader;
  readonly #contribution = new SeqTable();
  /** `#prefix[p]` is the count through position `p`, valid for every `p < #prefix.length`. */
  readonly #prefix: number[] = [];

  constructor(surface: SurfaceReader) {
    this.#surface = surface;
  }

  countThrough(position: number): number {
    if (position < 0) return 0;
    while (this.#prefix.length <= position) {
      const next = this.#prefix.length;
      const before = next === 0 ? 0 : this.#prefix[next - 1] as number;
      this.#prefix.push(before + this.#contribution.get(this.#surface.at(next) as number));
    }
    return this.#prefix[position] as number;
  }

  /** Folds in a stored surface change; the surface view has already applied it. */
  apply(event: SessionEvent, delta: SurfaceDelta | undefined): void {
    if (delta === undefined) return;
    const contribution = pairingContribution(event);
    this.#contribution.set(event.seq, contribution);
    if (delta.kind === 'append') {
      if (this.#prefix.length === delta.position) this.#prefix.push(this.countThrough(delta.position - 1) + contribution);
      return;
    }
    const start = delta.position;
    const removed = delta.shadowed.length;
    let removedContribution = 0;
    for (const seq of delta.shadowed) removedContribution += this.#contribution.get(seq);
    const validThroughEnd = this.#prefix.length >= start + removed;
    if (removedContribution === contribution && validThroughEnd) {
      // The count after the old last node is the count after the new node; later counts keep their values.
      this.#prefix.splice(start, removed - 1);
    } else {
      this.#prefix.length = Math.min(this.#prefix.length, start);
    }
  }
}

/**
 * The compaction brackets of a log (HOST.md §3.5): the open bracket, if any, and the ids of the brackets that
 * `session/end-seed` made stale. Kept up to date event by event so that the bracket rules, `openBrackets()`
 * and the fork boundary check are O(1).
 */
import type { SessionEvent } from '../../protocol/events.js';
import type { AnyTypedEvent } from '../../protocol/event-map.js';
import type { OpenBracket } from '../host-api/host-api.js';

/** Read access to the bracket state. */
export interface CompactionBracketReader {
  /** The open, non-stale bracket, or `undefined`. There is at most one. */
  readonly open: OpenBracket | undefined;
  /** True when a bracket with `compactionId` was left open by a seed and made stale by `session/end-seed`. */
  isStale(compactionId: unknown): boolean;
}

/**
 * Bracket bookkeeping over stored events. Only the first event of each kind that fits the open bracket moves
 * it; with the host layers in place every event fits (the layer has checked it), and without them the state
 * stays well-defined.
 */
export class CompactionBracketState implements CompactionBracketReader {
  #open: OpenBracket | undefined;
  readonly #stale = new Set<unknown>();

  get open(): OpenBracket | undefined {
    return this.#open;
  }

  isStale(compactionId: unknown): boolean {
    return this.#stale.has(compactionId);
  }

  /** Folds in one stored event. */
  apply(event: SessionEvent): void {
    // Stored events passed the validation layers (or are a seed the layers replayed): payloads are the map's.
    const typed = event as AnyTypedEvent;
    switch (typed.type) {
      case 'compaction/start':
        this.#open = { compactionId: typed.data.compactionId, turn: typed.data.turn, startSeq: event.seq };
        break;
      case 'compaction/summary':
        if (this.#matchesOpen(typed.data.compactionId)) this.#open = { ...(this.#open as OpenBracket), summarySeq: event.seq };
        break;
      case 'compaction/end':
        if (this.#matchesOpen(typed.data.compactionId)) this.#open = undefined;
        break;
      case 'session/end-seed':
        // HOST.md §3.5 rule 6: a bracket the seed left open can never be continued; it no longer locks.
        if (this.#open !== undefined) this.#stale.add(this.#open.compactionId);
        this.#open = undefined;
        break;
      default:
        // Checkpoints do not change the bracket; other types have nothing to do with compaction.
        break;
    }
  }

  #matchesOpen(compactionId: string): boolean {
    return this.#open !== undefined && compactionId === this.#open.compactionId;
  }
}

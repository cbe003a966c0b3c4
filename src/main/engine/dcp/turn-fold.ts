/**
 * Turns as the DCP index folds them (DCP.md §3.3): the open turn, the last started one, and `turnOf[seq]` of every
 * surface node, current or shadowed. O(1) per event; a replace of k nodes is O(k).
 */
import { isEventOf } from '../../../protocol/event-map.js';
import { storedPayload } from '../../../protocol/dcp/stored-payload.js';
import { SeqTable } from '../../host-api/seq-table.js';
import type { IndexStep } from './index-step.js';

/** The turn fold of one session. */
export class TurnFold {
  readonly #turnOf = new SeqTable();
  #openTurn: number | null = null;
  #lastStartedTurn = 0;

  /** The open turn as last folded, or `null`. */
  get openTurn(): number | null {
    return this.#openTurn;
  }

  /** The turn of the latest `turn/start` (0 before any). */
  get lastStartedTurn(): number {
    return this.#lastStartedTurn;
  }

  /** `turnOf[seq]` (§3.3) of a surface node, current or shadowed. O(1). */
  turnOf(seq: number): number {
    return this.#turnOf.get(seq);
  }

  /** Folds one event. */
  apply(step: IndexStep): void {
    const { event } = step;
    if (isEventOf(event, 'turn/start')) {
      const { turn } = storedPayload(event);
      if (typeof turn === 'number') {
        this.#openTurn = turn;
        this.#lastStartedTurn = turn;
      }
    } else if (isEventOf(event, 'turn/end')) {
      this.#openTurn = null;
    }
    if (!step.appended && step.replace === undefined) return;
    if (isEventOf(event, 'user/message')) {
      // A replacing user message (a checkpoint, a purge) belongs to the latest turn it shadows.
      this.#turnOf.set(
        event.seq,
        step.replace === undefined ? (this.#openTurn ?? this.#lastStartedTurn) : this.#latestTurnOf(step.replace.delta.shadowed),
      );
    } else if (isEventOf(event, 'assistant/message') || isEventOf(event, 'tool/result')) {
      this.#turnOf.set(event.seq, turnField(event.data.turn));
    }
  }

  #latestTurnOf(seqs: readonly number[]): number {
    let turn = 0;
    for (const seq of seqs) turn = Math.max(turn, this.#turnOf.get(seq));
    return turn;
  }
}

/**
 * A message event's `turn` as a number. The storage boundary validates the message, not `turn`, so a log from
 * another writer may hold it as text: it is coerced, as dsh-dcp's arithmetic on it would.
 */
function turnField(turn: unknown): number {
  return Number(turn);
}

/**
 * The open turn and step of a session log (HOST.md §2.5, §3.4), kept up to date event by event so that the
 * turn rules and `openTurn()` / `openStep()` are O(1).
 */
import type { AnyTypedEvent } from '../../protocol/event-map.js';
import type { SessionEvent } from '../../protocol/events.js';
import { isRecord } from '../../protocol/events.js';

/** A `turn`/`step` field of event data, read without assuming the data is a record. */
export function dataField(data: unknown, key: string): unknown {
  return isRecord(data) ? data[key] : undefined;
}

/**
 * Where a log stands in its turn structure. Updated only with events that passed validation, so the values
 * read from them are the validated ones.
 */
export class TurnState {
  #openTurn: number | null = null;
  #openStep: number | null = null;
  /** The last step entered in the open turn (0 before its first step/start). */
  #lastStep = 0;
  /** The greatest `turn/start` number in the log, or `null` before the first one. */
  #maxTurn: number | null = null;

  /** The open turn number, or `null`. */
  get openTurn(): number | null {
    return this.#openTurn;
  }

  /** The open step number, or `null`. */
  get openStep(): number | null {
    return this.#openStep;
  }

  /** The last step number entered in the open turn; 0 when none was entered yet. */
  get lastStep(): number {
    return this.#lastStep;
  }

  /** The greatest turn number started in the log, or `null` when no turn was started. */
  get maxTurn(): number | null {
    return this.#maxTurn;
  }

  /** Folds in one accepted event. Events other than turn/step markers do not change the state. */
  apply(event: SessionEvent): void {
    // Accepted events passed the validation layers: their payloads have the map's types.
    const typed = event as AnyTypedEvent;
    switch (typed.type) {
      case 'turn/start': {
        const turn = typed.data.turn;
        this.#openTurn = turn;
        this.#openStep = null;
        this.#lastStep = 0;
        if (this.#maxTurn === null || turn > this.#maxTurn) this.#maxTurn = turn;
        break;
      }
      case 'turn/end':
        this.#openTurn = null;
        this.#openStep = null;
        this.#lastStep = 0;
        break;
      case 'step/start': {
        const step = typed.data.step;
        this.#openStep = step;
        this.#lastStep = step;
        break;
      }
      case 'step/end':
        this.#openStep = null;
        break;
      default:
        // Every other type leaves the turn structure as it is (HOST.md §3.4 rule 6).
        break;
    }
  }
}

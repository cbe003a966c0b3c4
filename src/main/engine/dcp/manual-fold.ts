/**
 * The manual state as the DCP index replays it (DCP.md §11.4): each `command/run` is remembered until its
 * `command/done`, and a successful `/dcp manual on|off` pair sets the state; the turn of the latest manual trigger
 * message opens the compress gate (§11.4 rule 3). O(1) per event.
 */
import { isEventOf } from '../../../protocol/event-map.js';
import { manualStateFromCommand } from '../../../protocol/dcp/manual-replay.js';
import { storedPayload } from '../../../protocol/dcp/stored-payload.js';
import { isManualTriggerMessage } from '../../../protocol/dcp/trigger-message.js';
import type { IndexStep } from './index-step.js';

/** A command between its `command/run` and `command/done`, as logged (the fields may be of any type). */
export interface RunningCommand {
  readonly name: unknown;
  readonly args: unknown;
}

/** The manual fold of one session. */
export class ManualFold {
  readonly #running = new Map<string, RunningCommand>();
  readonly #turnOf: (seq: number) => number;
  #manualOn: boolean;
  #lastTriggerTurn: number | undefined;

  /** `manualDefault` is `manualMode.default`; `turnOf` reads the turn fold, which folds each event first. */
  constructor(manualDefault: boolean, turnOf: (seq: number) => number) {
    this.#manualOn = manualDefault;
    this.#turnOf = turnOf;
  }

  /** The replayed manual state (§11.4). */
  get manualOn(): boolean {
    return this.#manualOn;
  }

  /** `turnOf` of the latest manual trigger message, or `undefined`. */
  get lastTriggerTurn(): number | undefined {
    return this.#lastTriggerTurn;
  }

  /** The commands still running, by commandId. */
  running(): ReadonlyMap<string, RunningCommand> {
    return this.#running;
  }

  /** Folds one event. */
  apply(step: IndexStep): void {
    const { event } = step;
    // Log-only records: a stored log's record may lack any field (stored-payload.ts); an id is used as text.
    if (isEventOf(event, 'command/run')) {
      const { commandId, name, args } = storedPayload(event);
      this.#running.set(String(commandId), { name, args });
    } else if (isEventOf(event, 'command/done')) {
      const { commandId, kind } = storedPayload(event);
      const run = this.#running.get(String(commandId));
      if (run === undefined) return;
      this.#running.delete(String(commandId));
      const state = manualStateFromCommand(run.name, run.args, kind);
      if (state !== undefined) this.#manualOn = state;
    } else if (step.appended && step.marker === undefined && isEventOf(event, 'user/message') && isManualTriggerMessage(event.data)) {
      this.#lastTriggerTurn = this.#turnOf(event.seq);
    }
  }
}

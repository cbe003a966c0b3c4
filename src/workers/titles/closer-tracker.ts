/**
 * The closer scan of SESSION-LOG.md §9.12 rule 1 (open turn, open step, pending tool calls) kept as plain data,
 * so the title index can continue it over appended events and compute the synthetic closers of any prefix
 * without the events themselves (§10.7 "closer-scan state … or its first error").
 *
 * Field reads that may throw, and the closers themselves, are delegated to `interruptedTurnClosers`, so every
 * error text is the one a full inspection produces.
 */
import type { SessionEvent } from '../../protocol/events.js';
import { interruptedTurnClosers } from '../../protocol/closers.js';
import { decodeValue, encodeValue, type EncodedValue } from './json-text.js';
import { serializeError, type SerializedError } from './serialized-error.js';

/** One pending call of the scan's ordered map `callId → {step, callSeq?}`. */
export interface PendingCallCheckpoint {
  /** The call id (the Map key). */
  readonly callId: EncodedValue;
  /**
   * True when the key is an object or array: such a key is only ever equal to itself, so no later
   * `tool/call` or `tool/result` (which carry freshly parsed values) can match it.
   */
  readonly unique: boolean;
  readonly step: EncodedValue;
  /** The seq of the `tool/call` that recorded the call as started, if any. */
  readonly callSeq: number | null;
}

/** The plain-data state of a {@link CloserTracker}. */
export interface CloserCheckpoint {
  readonly openTurn: EncodedValue;
  readonly openStep: EncodedValue;
  readonly pending: readonly PendingCallCheckpoint[];
  /** The first error the scan threw (a field read of `null` data); the scan stops there. */
  readonly error: SerializedError | null;
}

/** `encodeValue(null)`: no open turn or step. */
const NONE = 'null';

/** The event types whose scan step reads fields that may throw on malformed data. */
const READING_TYPES: ReadonlySet<string> = new Set(['turn/start', 'step/start', 'assistant/message', 'tool/call']);

type Data = Readonly<Record<string, unknown>>;

/** True for keys compared by value in a Map (everything but non-null objects). */
function isValueKey(key: unknown): boolean {
  return typeof key !== 'object' || key === null;
}

/** A resumable closer scan over migrated, adopted events fed in seq order. */
export class CloserTracker {
  #openTurn: EncodedValue;
  #openStep: EncodedValue;
  #pending: PendingCallCheckpoint[];
  #error: SerializedError | null;

  private constructor(checkpoint: CloserCheckpoint) {
    this.#openTurn = checkpoint.openTurn;
    this.#openStep = checkpoint.openStep;
    this.#pending = [...checkpoint.pending];
    this.#error = checkpoint.error;
  }

  /** A scan that has seen no event. */
  static empty(): CloserTracker {
    return new CloserTracker({ openTurn: NONE, openStep: NONE, pending: [], error: null });
  }

  /** A scan continuing from `checkpoint` (copied). */
  static restore(checkpoint: CloserCheckpoint): CloserTracker {
    return new CloserTracker(checkpoint);
  }

  /** The plain-data state (a copy). */
  checkpoint(): CloserCheckpoint {
    return { openTurn: this.#openTurn, openStep: this.#openStep, pending: [...this.#pending], error: this.#error };
  }

  /** The scan's first error, once it threw. */
  get error(): SerializedError | null {
    return this.#error;
  }

  /**
   * Advances the scan over `event` (seq `seq`). A throwing field read is recorded as the scan's error; later
   * events are then ignored, as the full scan never reaches them.
   */
  observe(event: SessionEvent, seq: number): void {
    if (this.#error !== null) return;
    if (READING_TYPES.has(event.type)) {
      try {
        // A one-event scan performs exactly this event's reads, so it throws exactly the full scan's error. Its
        // closers are dropped at once: not frozen.
        interruptedTurnClosers([event], false);
      } catch (error) {
        this.#error = serializeError(error);
        return;
      }
    }
    const data = event.data as Data;
    switch (event.type) {
      case 'turn/start':
        this.#openTurn = encodeValue(data['turn']);
        this.#openStep = NONE;
        this.#pending = [];
        break;
      case 'turn/end':
        this.#openTurn = NONE;
        this.#openStep = NONE;
        this.#pending = [];
        break;
      case 'step/start':
        this.#openStep = encodeValue(data['step']);
        break;
      case 'step/end':
        this.#pending = [];
        this.#openStep = NONE;
        break;
      case 'assistant/message':
        for (const block of (data['message'] as Data)['content'] as Iterable<Data>) {
          if (block['type'] === 'tool-call') this.#setPending(block['id'], encodeValue(data['step']));
        }
        break;
      case 'tool/call': {
        const index = this.#indexOf(data['callId']);
        if (index !== -1) this.#pending[index] = { ...(this.#pending[index] as PendingCallCheckpoint), callSeq: seq };
        break;
      }
      case 'tool/result': {
        const index = this.#indexOf(((data['message'] as Data)['source'] as Data)['callId']);
        if (index !== -1) this.#pending.splice(index, 1);
        break;
      }
      default:
        // Other event types do not move the turn/step cursor.
        break;
    }
  }

  /**
   * The synthetic closers after a log whose last event has seq `lastSeq` and time `lastTime` (§9.12 rule 2),
   * adopted and frozen, computed by `interruptedTurnClosers` over a minimal log that leaves its scan in this
   * tracker's state. Empty when no turn is open or the log is empty (`lastSeq < 0`).
   *
   * @throws what `interruptedTurnClosers` throws for these closers (an S5 failure).
   */
  closers(lastSeq: number, lastTime: EncodedValue): SessionEvent[] {
    const openTurn = decodeValue(this.#openTurn);
    if (openTurn === null || lastSeq < 0) return [];
    const log: SessionEvent[] = [{ type: 'turn/start', seq: 0, time: 0, data: { turn: openTurn } }];
    const openStep = decodeValue(this.#openStep);
    if (openStep !== null) log.push({ type: 'step/start', seq: 0, time: 0, data: { step: openStep } });
    for (const call of this.#pending) {
      const callId = decodeValue(call.callId);
      const toolCall = { type: 'tool-call', id: callId };
      log.push({ type: 'assistant/message', seq: 0, time: 0, data: { step: decodeValue(call.step), message: { content: [toolCall] } } });
      if (call.callSeq !== null) log.push({ type: 'tool/call', seq: call.callSeq, time: 0, data: { callId } });
    }
    // An event of no scanned type: it fixes the closers' first seq and their time, and nothing else.
    log.push({ type: 'sessionctx/closer-anchor', seq: lastSeq, time: decodeValue(lastTime) as number, data: null });
    return interruptedTurnClosers(log);
  }

  /** `pending.set(callId, {step})`: a value key keeps its position and loses its `callSeq`; an object key is new. */
  #setPending(callId: unknown, step: EncodedValue): void {
    const entry: PendingCallCheckpoint = { callId: encodeValue(callId), unique: !isValueKey(callId), step, callSeq: null };
    const index = this.#indexOf(callId);
    if (index === -1) this.#pending.push(entry);
    else this.#pending[index] = entry;
  }

  /** The position of the pending call a Map lookup of `callId` finds, or -1. */
  #indexOf(callId: unknown): number {
    if (!isValueKey(callId)) return -1;
    const key = encodeValue(callId);
    return this.#pending.findIndex((call) => !call.unique && call.callId === key);
  }
}

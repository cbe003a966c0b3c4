/**
 * Calls and their results as the DCP index folds them (DCP.md §3.1 "calls", "results", "dedup groups, error
 * units"): each tool call by id (from the assistant message that holds it and its `tool/call` event), each original
 * tool result with the call it answers, and the strategy candidates kept current as results join and leave the
 * surface. O(1) amortised per event; a shadowed result costs O(its dedup group).
 */
import { isEventOf } from '../../../protocol/event-map.js';
import type { TypedEvent } from '../../../protocol/event-map.js';
import type { ToolResultBlock } from '../../../protocol/events.js';
import { isIdentifiedToolCall, resultCallId } from '../../../protocol/dcp/stored-blocks.js';
import { storedPayload } from '../../../protocol/dcp/stored-payload.js';
import type { CallRecord } from './call-record.js';
import { CallEntry, rawArguments } from './call-record.js';
import type { IndexStep } from './index-step.js';
import { DedupGroups, ErrorUnits } from './strategy-candidates.js';

/** An original (appended) tool result (§3.1 "results"). */
export interface ResultRecord {
  readonly callId: string;
  readonly isError: boolean;
  readonly turn: number;
}

/** The call fold of one session. */
export class CallFold {
  readonly #calls = new Map<string, CallEntry>();
  readonly #results = new Map<number, ResultRecord>();
  readonly #dedupGroups = new DedupGroups();
  readonly #errorUnits = new ErrorUnits();
  readonly #turnOf: (seq: number) => number;

  /** `turnOf` reads the turn fold, which has folded the same event before this one. */
  constructor(turnOf: (seq: number) => number) {
    this.#turnOf = turnOf;
  }

  /** The call with this id (the latest one when a provider reused ids), or `undefined`. */
  call(callId: string): CallRecord | undefined {
    return this.#calls.get(callId);
  }

  /** Every call, by id. */
  calls(): ReadonlyMap<string, CallEntry> {
    return this.#calls;
  }

  /** The original tool result appended at `seq`, or `undefined`. */
  result(seq: number): ResultRecord | undefined {
    return this.#results.get(seq);
  }

  /** Every original result, by seq. */
  results(): ReadonlyMap<number, ResultRecord> {
    return this.#results;
  }

  /** The dedup groups and their dirty set (§8.3). */
  get dedupGroups(): DedupGroups {
    return this.#dedupGroups;
  }

  /** The errored originals waiting for the purge age (§8.4). */
  get errorUnits(): ErrorUnits {
    return this.#errorUnits;
  }

  /** Folds one event. */
  apply(step: IndexStep): void {
    const { event } = step;
    if (isEventOf(event, 'tool/call')) this.#foldToolCall(event);
    if (step.appended) {
      if (isEventOf(event, 'assistant/message')) this.#foldAssistant(event);
      else if (isEventOf(event, 'tool/result')) this.#foldResult(event);
    } else if (step.replace !== undefined) {
      // A shadowed result is no longer a current original: it leaves its dedup group.
      for (const seq of step.replace.delta.shadowed) this.#dedupGroups.remove(seq);
    }
  }

  #foldToolCall(event: TypedEvent<'tool/call'>): void {
    // Log-only: a stored log's record may lack any field (stored-payload.ts).
    const { callId, name, arguments: args } = storedPayload(event);
    if (typeof callId !== 'string') return;
    const existing = this.#calls.get(callId);
    if (existing !== undefined && existing.callSeq === undefined) {
      existing.callSeq = event.seq;
      return;
    }
    const entry = new CallEntry(callId, typeof name === 'string' ? name : '', rawArguments(args));
    entry.callSeq = event.seq;
    this.#calls.set(callId, entry);
  }

  #foldAssistant(event: TypedEvent<'assistant/message'>): void {
    for (const block of event.data.message.content) {
      // The boundary checks the message's shape, not each block (stored-blocks.ts).
      const call: unknown = block;
      if (!isIdentifiedToolCall(call)) continue;
      const entry = new CallEntry(call.id, typeof call.name === 'string' ? call.name : '', rawArguments(call.arguments));
      entry.assistantSeq = event.seq;
      this.#calls.set(call.id, entry);
    }
  }

  #foldResult(event: TypedEvent<'tool/result'>): void {
    const first = event.data.message.content[0] as ToolResultBlock | undefined;
    const callId = String(resultCallId(event.data.message));
    const isError = first?.isError === true;
    this.#results.set(event.seq, { callId, isError, turn: this.#turnOf(event.seq) });
    const call = this.#calls.get(callId);
    if (call !== undefined) this.#dedupGroups.add(event.seq, call.key);
    if (isError) this.#errorUnits.add(event.seq);
  }
}

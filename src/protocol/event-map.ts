/**
 * The typed event vocabulary (SESSION-LOG.md §3.3, HOST.md §3): one payload type per event type this
 * build writes or interprets. `SessionEventMap` is an interface so that a plugin declares its own
 * events by declaration merging, the way dsh's plugins extend its map:
 *
 * ```ts
 * declare module 'sessionctx' {
 *   interface SessionEventMap {
 *     'my-plugin/note': { readonly text: string };
 *   }
 * }
 * ```
 *
 * Payloads reach a typed reader only through a boundary that validated them (the storage decode and
 * envelope fold for stored logs, the host's append layers for live ones); inside one process they are
 * trusted.
 */
import type { AssistantMessageData, ContentBlock, Message, SessionEvent, SessionTitleData, ToolResultData } from './events.js';

/** `turn/start` (SESSION-LOG.md §3.3). */
export interface TurnStartData {
  readonly turn: number;
}

/** Why a turn ended (SESSION-LOG.md §3.4); `kind` is an open string in logs other writers produced. */
export interface TurnEndReason {
  readonly kind: string;
  readonly [detail: string]: unknown;
}

/** `turn/end` (SESSION-LOG.md §3.3–§3.4). */
export interface TurnEndData {
  readonly turn: number;
  readonly reason: TurnEndReason;
}

/** `step/start` and `step/end` (SESSION-LOG.md §3.3). */
export interface StepData {
  readonly turn: number;
  readonly step: number;
}

/** `assistant/chunk` (SESSION-LOG.md §3.5): one streamed chunk, log-only. */
export interface AssistantChunkData {
  readonly turn: number;
  readonly step: number;
  readonly chunk: { readonly type: string; readonly [field: string]: unknown };
}

/** `tool/call` (SESSION-LOG.md §3.3): the call as the model asked for it, arguments as streamed text. */
export interface ToolCallData {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

/** `request/header` (SESSION-LOG.md §3.6, HOST.md §8): the request header, logged when it changes. */
export interface RequestHeaderData {
  readonly header: { readonly config: { readonly provider: string; readonly model: string; readonly [field: string]: unknown }; readonly [field: string]: unknown };
  readonly reason?: string;
}

/** `command/run` (HOST.md §9): `args` verbatim, leading space kept, absent when the command had none. */
export interface CommandRunData {
  readonly commandId: string;
  readonly name: string;
  readonly args?: string;
  readonly source: { readonly kind: string; readonly [field: string]: unknown };
}

/** `command/done` (HOST.md §9). */
export interface CommandDoneData {
  readonly commandId: string;
  readonly kind: string;
  readonly text: string;
}

/** The shadowed span of a compaction or prune (HOST.md §3.5 rule 2). */
export interface ShadowedSpan {
  readonly shadowedRange: { readonly start: number; readonly end: number };
  readonly shadowedSeqs: readonly number[];
  readonly shadowedTokenCount: number;
}

/** `compaction/start` (HOST.md §3.5 rule 1); `turn: null` for a standalone compaction. */
export interface CompactionStartData {
  readonly compactionId: string;
  readonly turn: number | null;
}

/** `compaction/summary` (HOST.md §3.5 rule 2). */
export interface CompactionSummaryData extends ShadowedSpan {
  readonly compactionId: string;
  /** The summary as content blocks (dsh writes `[{type:'text', text}]`). */
  readonly summary: readonly ContentBlock[];
  readonly provider?: string;
  readonly model?: string;
  readonly [field: string]: unknown;
}

/** `compaction/end` (HOST.md §3.5 rule 4). */
export interface CompactionEndData {
  readonly compactionId: string;
  readonly turn: number | null;
  readonly error?: unknown;
}

/** `compaction/prune` (HOST.md §3.5 rule 7). */
export type CompactionPruneData = ShadowedSpan;

/** `session/end-seed` (SESSION-LOG.md §3.3): an empty record separating replayed from new events. */
export type EndSeedData = Readonly<Record<string, never>>;

/**
 * Event type → payload type. Extend it by declaration merging (see the module comment); a type
 * missing here can still be appended and read as `unknown` through {@link SessionEvent}.
 */
export interface SessionEventMap {
  'user/message': Message;
  'assistant/message': AssistantMessageData;
  'tool/result': ToolResultData;
  'assistant/chunk': AssistantChunkData;
  'tool/call': ToolCallData;
  'turn/start': TurnStartData;
  'turn/end': TurnEndData;
  'step/start': StepData;
  'step/end': StepData;
  'session/title': SessionTitleData;
  'session/end-seed': EndSeedData;
  'request/header': RequestHeaderData;
  'command/run': CommandRunData;
  'command/done': CommandDoneData;
  'compaction/start': CompactionStartData;
  'compaction/summary': CompactionSummaryData;
  'compaction/end': CompactionEndData;
  'compaction/prune': CompactionPruneData;
}

/** A type the map knows. */
export type KnownEventType = keyof SessionEventMap & string;

/** An event whose payload has the map's type for `K`. */
export type TypedEvent<K extends KnownEventType> = SessionEvent<K, SessionEventMap[K]>;

/** Any event the map knows, discriminated by `type`. */
export type AnyTypedEvent = { [K in KnownEventType]: TypedEvent<K> }[KnownEventType];

/**
 * Narrows an event to the map's payload type for `type`. The payload is not re-checked: call it only on
 * events that passed a validating boundary (a fold of a stored log, the host's append layers).
 * @param event - a validated event
 * @param type - the type to test for
 * @returns whether `event.type === type`
 */
export function isEventOf<K extends KnownEventType>(event: SessionEvent, type: K): event is TypedEvent<K> {
  return event.type === type;
}

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
 * The host's default validation layers accept only the types of SESSION-LOG.md §3.1 (dsh's known types), so a
 * declared type is appended through a host whose known-type layer admits it.
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
  /** The chunk as the model client produced it; its fields depend on `type` (the host's `ModelChunk`). */
  readonly chunk: { readonly type: string };
}

/** `tool/call` (SESSION-LOG.md §3.3): the call as the model asked for it, arguments as streamed text. */
export interface ToolCallData {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

/** The `config` of a request header: provider and model (checked by the envelope layer) and writer extras. */
export interface RequestConfig {
  readonly provider: string;
  readonly model: string;
  readonly [field: string]: unknown;
}

/**
 * A request header record (SESSION-LOG.md §3.6): `config` is checked where headers enter a log; `system`, `tools`
 * and anything else a writer adds are not, so they read as `unknown`.
 */
export interface RequestHeaderRecord {
  readonly config: RequestConfig;
  readonly [field: string]: unknown;
}

/** `request/header` (SESSION-LOG.md §3.6, HOST.md §8): the request header, logged when it changes. */
export interface RequestHeaderData {
  readonly header: RequestHeaderRecord;
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
  /** A failed attempt's reason. dsh declares it a string and DCP writes one; logs of other writers may hold anything. */
  readonly error?: unknown;
}

/** `compaction/prune` (HOST.md §3.5 rule 7). */
export type CompactionPruneData = ShadowedSpan;

/**
 * `request/context` (dsh's log-only record of a request's context window): written right after a step's
 * `request/header` by the scenario runner's recording model, read by `sessionctx dcp context`; keys in dsh's order.
 */
export interface RequestContextData {
  readonly provider: string;
  readonly model: string;
  readonly contextWindow: number;
}

/** `session/end-seed` (SESSION-LOG.md §3.3): an empty record separating replayed from new events. */
export type EndSeedData = Readonly<Record<string, never>>;

/**
 * The payload of a known type whose content this build does not interpret (SESSION-LOG.md §3.1): a JSON record,
 * logged and replayed as is.
 */
export type UninterpretedData = Readonly<Record<string, unknown>>;

/**
 * Event type → payload type: every type of SESSION-LOG.md §3.1 (the host accepts no other). Extend it by
 * declaration merging (see the module comment) for a plugin's own types; events read from a log are
 * {@link SessionEvent}s of any type, narrowed with {@link isEventOf}.
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
  'request/context': RequestContextData;
  'command/run': CommandRunData;
  'command/done': CommandDoneData;
  'compaction/start': CompactionStartData;
  'compaction/summary': CompactionSummaryData;
  'compaction/end': CompactionEndData;
  'compaction/prune': CompactionPruneData;
  // The other known types of SESSION-LOG.md §3.1: accepted and kept, never interpreted here.
  'agent-preset/selected': UninterpretedData;
  'agent/inbox/spliced': UninterpretedData;
  'approval/asked': UninterpretedData;
  'approval/decided': UninterpretedData;
  'approval/policy': UninterpretedData;
  'feedback/record': UninterpretedData;
  'goal/change': UninterpretedData;
  'hook/invoked': UninterpretedData;
  'hook/result': UninterpretedData;
  'llm/retry': UninterpretedData;
  'llm/retry-started': UninterpretedData;
  'permission/preset': UninterpretedData;
  'plan/mode': UninterpretedData;
  'sandbox/mode': UninterpretedData;
  'schedule/change': UninterpretedData;
  'session/title-llm-request': UninterpretedData;
  'subagent/descriptor': UninterpretedData;
  'team/member': UninterpretedData;
  'team/message/delivered': UninterpretedData;
  'team/message/queued': UninterpretedData;
  'team/task': UninterpretedData;
  'todo/write': UninterpretedData;
  'tool-workflow/agent-end': UninterpretedData;
  'tool-workflow/agent-start': UninterpretedData;
  'tool-workflow/run-end': UninterpretedData;
  'tool-workflow/run-start': UninterpretedData;
  'tool/code-dispatch': UninterpretedData;
  'tool/code-dispatch-start': UninterpretedData;
  'web/deepseek-search-llm-request': UninterpretedData;
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

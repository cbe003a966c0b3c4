/**
 * The dsh-compatible event model (SESSION-LOG.md §2–§4): envelopes, payloads, messages, sources and
 * the session header. These are the shapes *after* validation at a boundary (file, worker message,
 * append); inside one typed process they are trusted.
 */

/** An opaque session id. Branded so that ids are never confused with other strings. */
export type SessionId = string & { readonly __brand: 'SessionId' };

/** Brands a string as a session id. Call only where the string really names a session (a boundary). */
export function asSessionId(value: string): SessionId {
  return value as SessionId;
}

/** The only session format version this build reads and writes (`SESSION_FORMAT_VERSION`). */
export const SESSION_FORMAT_VERSION = 0;

/** A surface replacement marker: replace surface nodes `start..end` (inclusive, by seq) with this event. */
export interface ReplaceSurfaceOp {
  readonly op: 'replace';
  readonly start: number;
  readonly end: number;
}

/** How a surface event changes the surface (SESSION-LOG.md §5.1). */
export type SurfaceOp = 'append' | ReplaceSurfaceOp;

/**
 * One event of a session log (SESSION-LOG.md §2.1). `seq` equals the event's index in its log.
 * `data` is any JSON value; its shape depends on `type`.
 */
export interface SessionEvent<T extends string = string, D = unknown> {
  readonly type: T;
  readonly seq: number;
  readonly time: number;
  readonly data: D;
  readonly sourceEventSeqs?: readonly number[];
  readonly surfaceOp?: SurfaceOp;
  readonly ignorable?: true;
}

/** The seven envelope keys an event may carry, in writer order (SESSION-LOG.md §2.1, §2.2). */
export const ENVELOPE_KEYS = ['type', 'seq', 'time', 'data', 'sourceEventSeqs', 'surfaceOp', 'ignorable'] as const;

/** The 48 event types dsh 0.1.1-rc.2 knows (SESSION-LOG.md §3.1). */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set([
  'agent-preset/selected',
  'agent/inbox/spliced',
  'approval/asked',
  'approval/decided',
  'approval/policy',
  'assistant/chunk',
  'assistant/message',
  'command/done',
  'command/run',
  'compaction/end',
  'compaction/prune',
  'compaction/start',
  'compaction/summary',
  'feedback/record',
  'goal/change',
  'hook/invoked',
  'hook/result',
  'llm/retry',
  'llm/retry-started',
  'permission/preset',
  'plan/mode',
  'request/context',
  'request/header',
  'sandbox/mode',
  'schedule/change',
  'session/end-seed',
  'session/title',
  'session/title-llm-request',
  'step/end',
  'step/start',
  'subagent/descriptor',
  'team/member',
  'team/message/delivered',
  'team/message/queued',
  'team/task',
  'todo/write',
  'tool-workflow/agent-end',
  'tool-workflow/agent-start',
  'tool-workflow/run-end',
  'tool-workflow/run-start',
  'tool/call',
  'tool/code-dispatch',
  'tool/code-dispatch-start',
  'tool/result',
  'turn/end',
  'turn/start',
  'user/message',
  'web/deepseek-search-llm-request',
]);

/** The event types that carry a model message and join the surface (SESSION-LOG.md §3.2). */
export type SurfaceEventType = 'user/message' | 'assistant/message' | 'tool/result';

/** True for the three surface-eligible event types. */
export function isSurfaceType(type: string): type is SurfaceEventType {
  return type === 'user/message' || type === 'assistant/message' || type === 'tool/result';
}

/** A text content block. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** A reasoning content block (extra provider fields are preserved). */
export interface ReasoningBlock {
  readonly type: 'reasoning';
  readonly text: string;
  readonly [extra: string]: unknown;
}

/** A tool call requested by the model. */
export interface ToolCallBlock {
  readonly type: 'tool-call';
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  readonly [extra: string]: unknown;
}

/** The single block of a tool result message. */
export interface ToolResultBlock {
  readonly type: 'tool-result';
  readonly toolCallId: string;
  readonly content: readonly ContentBlock[];
  readonly isError: boolean;
}

/** A block of a type this build does not interpret; preserved as is (SESSION-LOG.md §4.2). */
export interface OpaqueBlock {
  readonly type: string;
  readonly [extra: string]: unknown;
}

/** A message content block (open set). */
export type ContentBlock = TextBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock | OpaqueBlock;

/** Where a message came from (open set, discriminated by `kind`; SESSION-LOG.md §4.3). */
export interface MessageSource {
  readonly kind: string;
  readonly [extra: string]: unknown;
}

/** A model-visible message (SESSION-LOG.md §4.1). */
export interface Message {
  readonly id: string;
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: readonly ContentBlock[];
  readonly source: MessageSource;
}

/** `assistant/message` payload. */
export interface AssistantMessageData {
  readonly turn: number;
  readonly step: number;
  readonly message: Message;
  readonly usage?: unknown;
  readonly interrupted?: true;
}

/** `tool/result` payload. */
export interface ToolResultData {
  readonly turn: number;
  readonly step: number;
  readonly message: Message;
  readonly error?: { readonly name: string; readonly code: string };
  readonly meta?: unknown;
}

/** `session/title` payload (SESSION-LOG.md §6.1). */
export interface SessionTitleData {
  readonly title: string;
  readonly messageSeqs: readonly number[];
  readonly source: TitleSource;
}

/** Who produced a session title. */
export type TitleSource =
  | { readonly kind: 'fallback' }
  | { readonly kind: 'provider'; readonly provider: string; readonly model?: { readonly provider: string; readonly model: string } }
  | { readonly kind: 'user' };

/**
 * The folded title of a session (SESSION-LOG.md §6.2), keys in this order:
 * `title, messageSeqs, source, eventSeq, updatedAt`.
 */
export interface SessionTitleSnapshot {
  readonly title: string;
  readonly messageSeqs: readonly unknown[];
  readonly source: TitleSource;
  readonly eventSeq: number;
  readonly updatedAt: number;
}

/** The in-memory session header (SESSION-LOG.md §7.1). */
export interface SessionHeader {
  readonly version: 0;
  readonly id: SessionId;
  readonly createdAt: number;
  readonly cwd?: string;
  readonly parentSession?: string;
  readonly seedLength?: number;
  readonly origin?: 'subagent';
  readonly delegationDepth?: number;
  readonly agentPreset?: string;
}

/** A surface event as returned by `readSurface`: a current `user/message`, `assistant/message` or `tool/result`. */
export type SurfaceEvent = SessionEvent<SurfaceEventType>;

/** `{session, capturedThroughSeq, events}` — the `readSurface` snapshot (SESSION-LOG.md §10.4), key order exact. */
export interface SessionSurfaceSnapshot {
  readonly session: SessionHeader;
  readonly capturedThroughSeq: number | null;
  readonly events: readonly SurfaceEvent[];
}

/** A JSON value as produced by `JSON.parse`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The record guard (`record-guard.ts`), re-exported for the many modules that read it from here. */
export { isRecord } from './record-guard.js';

/** True for a non-negative safe integer. */
export function isNonNegativeSafeInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

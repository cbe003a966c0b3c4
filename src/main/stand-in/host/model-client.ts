/**
 * The model interface of the agent loop (HOST.md §6.2 steps 8–9): a request built only from logged events and
 * an async stream of the chunk variants that dsh logs as `assistant/chunk` (SESSION-LOG.md §3.5).
 */
import type { ContentBlock, Message } from '../../../protocol/events.js';

/** A model tool as the request header lists it (HOST.md §8). */
export interface ToolDescriptor {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
}

/** One model request (HOST.md §6.2 step 8). `system`/`tools` equal the latest `request/header`. */
export interface ModelRequest {
  readonly system: string;
  readonly tools: readonly ToolDescriptor[];
  readonly messages: readonly Message[];
}

/** `{type:'block-start', index, blockType}`. */
export interface BlockStartChunk {
  readonly type: 'block-start';
  readonly index: number;
  readonly blockType: string;
}

/** `{type:'text-delta', index, text}`. */
export interface TextDeltaChunk {
  readonly type: 'text-delta';
  readonly index: number;
  readonly text: string;
}

/** `{type:'reasoning-delta', index, text}`. */
export interface ReasoningDeltaChunk {
  readonly type: 'reasoning-delta';
  readonly index: number;
  readonly text: string;
}

/** `{type:'tool-call-delta', index, id, name?, argumentsDelta}`. */
export interface ToolCallDeltaChunk {
  readonly type: 'tool-call-delta';
  readonly index: number;
  readonly id: string;
  readonly name?: string;
  readonly argumentsDelta: string;
}

/** `{type:'block-end', index, block}`: the complete block. */
export interface BlockEndChunk {
  readonly type: 'block-end';
  readonly index: number;
  readonly block: ContentBlock;
}

/** `{type:'usage', usage}`. */
export interface UsageChunk {
  readonly type: 'usage';
  readonly usage: unknown;
}

/** A provider failure as dsh records it (`turn/end` reason `error`, SESSION-LOG.md §3.4). */
export interface ModelFailure {
  readonly message: string;
  readonly code: string;
  readonly status?: number;
  readonly providerRetryAfterMs?: number;
  readonly requestId?: string;
}

/**
 * `{type:'finish', reason, replayState?, …}`. `reason.kind` is `stop`, `tool-calls`, … or `error` with a
 * `failure`; `replayState` is copied into the assistant message's model source.
 */
export interface FinishChunk {
  readonly type: 'finish';
  readonly reason: { readonly kind: string; readonly failure?: ModelFailure; readonly [extra: string]: unknown };
  readonly replayState?: unknown;
  readonly [extra: string]: unknown;
}

/** Every chunk variant of SESSION-LOG.md §3.5. */
export type ModelChunk =
  | BlockStartChunk
  | TextDeltaChunk
  | ReasoningDeltaChunk
  | ToolCallDeltaChunk
  | BlockEndChunk
  | UsageChunk
  | FinishChunk;

/** A model the agent can dispatch to. */
export interface ModelClient {
  /** Logged in the request header config and the assistant messages' model source. */
  readonly provider: string;
  readonly model: string;
  /** The model's context window in tokens, when the model declares it (HOST.md §2.5). */
  readonly contextWindow?: number;
  /**
   * Streams the reply to `request`. An aborted `signal` must end the stream promptly, by returning or by
   * throwing; the agent treats either as an abort. A provider failure is a `finish` chunk with
   * `reason.kind === 'error'` or a thrown error.
   */
  stream(request: ModelRequest, options: { readonly signal: AbortSignal }): AsyncIterable<ModelChunk>;
}

/**
 * The error a host session throws when an append (or a seed) fails validation (HOST.md §2.2, §3). A failed
 * append leaves the log and every projection unchanged.
 */

/** Stable codes of append failures. Host rules have their own codes; SESSION-LOG rules share one. */
export type SessionAppendErrorCode =
  /** §3.1: the type is not one of the 48 known event types. */
  | 'HOST_UNKNOWN_EVENT_TYPE'
  /**
   * §3.2: a SESSION-LOG writer, message-shape, envelope or surface-fold rule failed (SESSION-LOG.md §2.3–§5.2).
   * The message is the SESSION-LOG text unchanged and the original `SessionLogError` is the `cause`.
   */
  | 'HOST_INVALID_EVENT'
  /** SESSION-LOG.md §2.4 rule 5: an append from inside an append notification. */
  | 'HOST_REENTRANT_APPEND'
  /** §3.3: a `tool/result` replacement outside every turn. */
  | 'HOST_NO_OPEN_TURN'
  /** §3.3: an `assistant/message` replacement outside its own open step. */
  | 'HOST_ASSISTANT_REPLACE'
  /** §3.4: turn/step order. */
  | 'HOST_TURN'
  /** §2.1 rule 3: a fork cut outside the log or not at a turn boundary (open turn, step or non-stale bracket). */
  | 'HOST_FORK'
  /** §3.5 rule 1: a `compaction/start` while a non-stale bracket is open. */
  | 'HOST_STILL_COMPACTING'
  /** §3.5 rule 6: a summary, checkpoint or end naming a bracket that `session/end-seed` made stale. */
  | 'HOST_STALE_BRACKET'
  /** §3.5: every other bracket rule (and the pricing fields of §3.5 rules 2 and 7). */
  | 'HOST_BRACKET'
  /** §3.6: a replace right after a metering event whose range differs from the claim. */
  | 'HOST_SHADOW_PRICE';

/**
 * A failed append or seed. Where HOST.md writes `CODE: text`, `code` is `CODE` and `message` is the text after
 * `CODE: `; SESSION-LOG texts are the message unchanged (code `HOST_INVALID_EVENT`). `seq` is the seq the
 * rejected event would have had (its index for a seed event).
 */
export class SessionAppendError extends Error {
  /** The stable classification of this failure. */
  readonly code: SessionAppendErrorCode;
  /** The seq of the rejected candidate. */
  readonly seq: number | undefined;

  constructor(code: SessionAppendErrorCode, message: string, options?: { readonly cause?: unknown; readonly seq?: number }) {
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.seq = options?.seq;
    Object.defineProperty(this, 'name', { value: 'SessionAppendError', enumerable: false, configurable: true, writable: true });
  }
}

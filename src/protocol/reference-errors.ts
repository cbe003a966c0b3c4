/**
 * The typed error of the cross-session reference service (SESSION-REFERENCE.md §14) and one factory
 * per exact message text, so every raise site spells the contract's literal the same way.
 */
import type { Message } from './events.js';

/** Stable codes of reference failures (§14). The host's turn-end record keeps them (D8). */
export type SessionReferenceErrorCode =
  /** Service configuration rejected (§3). */
  | 'SESSION_REFERENCE_INVALID_CONFIG'
  /** Malformed URI, mention or reference input, or an invalid candidate limit (§4, §5, §7.3, §8). */
  | 'SESSION_REFERENCE_INVALID_REFERENCE'
  /** A message references its own session (§8). */
  | 'SESSION_REFERENCE_SELF_REFERENCE'
  /** More distinct references than `maxReferences` (§8). */
  | 'SESSION_REFERENCE_TOO_MANY'
  /** A source read failed (§8 step 5). */
  | 'SESSION_REFERENCE_READ_FAILED'
  /** A source cannot fit its byte budget (§8 step 7, §10). */
  | 'SESSION_REFERENCE_BUDGET_EXCEEDED'
  /** The caller's signal aborted discovery or preparation. */
  | 'SESSION_REFERENCE_CANCELLED';

/** What a `SESSION_REFERENCE_BUDGET_EXCEEDED` error knows about the budget it exceeded. */
export interface BudgetExceededDetails {
  /** The referenced session that needs the largest budget among those that did not fit. */
  readonly sourceSessionId: string;
  /** The smallest `maxReferenceBytes` with which the same preparation, on the same reads, would not throw. */
  readonly minimumBudgetBytes: number;
}

/** Construction options of {@link SessionReferenceError}. */
export interface SessionReferenceErrorOptions {
  /** The underlying failure; the `cause` property is only created when this key is present. */
  readonly cause?: unknown;
  /** The claimed direct user messages of a failed step (§13.3). */
  readonly claimedDirectMessages?: readonly Message[];
  /** The details of a budget failure; the two properties are only created when this key is present. */
  readonly budget?: BudgetExceededDetails;
}

/**
 * A reference failure. `name` is exactly `SessionReferenceError` (hosts and `errorChain` render it);
 * `code` classifies it. `claimedDirectMessages` is set by the pre-step listener so that a host can
 * re-queue the prompt of a failed step (§13.3).
 */
export class SessionReferenceError extends Error {
  /** The stable classification of this error. */
  readonly code: SessionReferenceErrorCode;

  /**
   * The messages of the failed step whose `source.kind === 'user'`, original frozen objects, in order.
   * Declared (not initialised) so that errors without claimed messages do not carry the key at all;
   * writable because the listener attaches it to an error raised deeper in `prepare()`.
   */
  declare claimedDirectMessages?: readonly Message[];

  /**
   * `SESSION_REFERENCE_BUDGET_EXCEEDED` only: the id of the referenced session that did not fit its byte budget —
   * of several, the one that needs the largest budget (the first in reference order on a tie). Absent on every
   * other code. The message stays dsh's exact text (§8 step 7), so this is where a host reads which source it was.
   */
  declare readonly sourceSessionId?: string;

  /**
   * `SESSION_REFERENCE_BUDGET_EXCEEDED` only: the smallest `maxReferenceBytes` for which the same preparation over
   * the same source reads would not have thrown — every source fits it, and with one byte less
   * {@link sourceSessionId} does not. Absent on every other code.
   */
  declare readonly minimumBudgetBytes?: number;

  constructor(code: SessionReferenceErrorCode, message: string, options?: SessionReferenceErrorOptions) {
    // Only forward `cause` when given: `new Error(m, {cause: undefined})` would create an own `cause` key.
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    Object.defineProperty(this, 'name', { value: 'SessionReferenceError', enumerable: false, configurable: true, writable: true });
    if (options?.claimedDirectMessages !== undefined) this.claimedDirectMessages = options.claimedDirectMessages;
    if (options?.budget !== undefined) {
      this.sourceSessionId = options.budget.sourceSessionId;
      this.minimumBudgetBytes = options.budget.minimumBudgetBytes;
    }
  }
}

/** `session-reference: <key> must be a positive safe integer` (§3). */
export function configNotPositiveSafeIntegerError(key: string): SessionReferenceError {
  return new SessionReferenceError('SESSION_REFERENCE_INVALID_CONFIG', `session-reference: ${key} must be a positive safe integer`);
}

/** `session-reference: maxReferences must not exceed 3` (§3). */
export function configMaxReferencesTooLargeError(): SessionReferenceError {
  return new SessionReferenceError('SESSION_REFERENCE_INVALID_CONFIG', 'session-reference: maxReferences must not exceed 3');
}

/**
 * `invalid session reference URI <JSON.stringify(uri)>` (§4). Scheme and payload failures have no
 * cause (omit it); decode and canonical-check failures pass theirs, which is never `undefined`.
 */
export function invalidReferenceUriError(uri: unknown, cause?: unknown): SessionReferenceError {
  const message = `invalid session reference URI ${String(JSON.stringify(uri))}`;
  return cause === undefined
    ? new SessionReferenceError('SESSION_REFERENCE_INVALID_REFERENCE', message)
    : new SessionReferenceError('SESSION_REFERENCE_INVALID_REFERENCE', message, { cause });
}

/** `session reference must be an object` (§8 step 2.1). */
export function referenceNotObjectError(): SessionReferenceError {
  return new SessionReferenceError('SESSION_REFERENCE_INVALID_REFERENCE', 'session reference must be an object');
}

/** `session reference must contain a string sessionId and optional string label` (§8 step 2.2). */
export function referenceShapeError(): SessionReferenceError {
  return new SessionReferenceError(
    'SESSION_REFERENCE_INVALID_REFERENCE',
    'session reference must contain a string sessionId and optional string label',
  );
}

/** `candidate limit must be a positive safe integer` (§7.3 step 1). */
export function candidateLimitError(): SessionReferenceError {
  return new SessionReferenceError('SESSION_REFERENCE_INVALID_REFERENCE', 'candidate limit must be a positive safe integer');
}

/** `session <JSON.stringify(id)> cannot reference itself` (§8 step 2.3). */
export function selfReferenceError(sessionId: string): SessionReferenceError {
  return new SessionReferenceError('SESSION_REFERENCE_SELF_REFERENCE', `session ${JSON.stringify(sessionId)} cannot reference itself`);
}

/** `a message may reference at most <N> sessions` (§8 step 2). */
export function tooManyReferencesError(maxReferences: number): SessionReferenceError {
  return new SessionReferenceError('SESSION_REFERENCE_TOO_MANY', `a message may reference at most ${maxReferences} sessions`);
}

/**
 * `failed to read referenced session: <m>` (§8 step 5), `<m>` being the rejection's `message` for an
 * `Error`, else `String(rejection)`; the rejection becomes the cause. Callers that raced the read
 * against a signal pass the already wrapped `Error` (§7.2).
 */
export function readFailedError(rejection: unknown): SessionReferenceError {
  const detail = rejection instanceof Error ? rejection.message : String(rejection);
  return new SessionReferenceError('SESSION_REFERENCE_READ_FAILED', `failed to read referenced session: ${detail}`, { cause: rejection });
}

/**
 * `referenced session snapshot cannot fit the configured byte budget` (§8 step 7): dsh's exact text; which source
 * and what budget would fit travel as {@link SessionReferenceError.sourceSessionId} and
 * {@link SessionReferenceError.minimumBudgetBytes}.
 */
export function budgetExceededError(details: BudgetExceededDetails): SessionReferenceError {
  return new SessionReferenceError(
    'SESSION_REFERENCE_BUDGET_EXCEEDED',
    'referenced session snapshot cannot fit the configured byte budget',
    { budget: details },
  );
}

/** `session reference preparation was cancelled`, cause `signal.reason` (§7.2, §14). */
export function cancelledError(reason: unknown): SessionReferenceError {
  return new SessionReferenceError('SESSION_REFERENCE_CANCELLED', 'session reference preparation was cancelled', { cause: reason });
}

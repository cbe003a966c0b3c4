/**
 * How a failed step is recorded (SESSION-REFERENCE.md §13.3): dsh's error-chain renderer, which turns an
 * error and its causes into one line of text, and the turn-end reason a host writes when an
 * `agent/pre-step` listener throws.
 */

/** Rendered in place of a value that is already on the current rendering path (a cause cycle). */
const CIRCULAR_CAUSE = '<circular cause>';

/** Rendered in place of a node whose rendering threw (a throwing getter, an object without `toString`). */
const UNRENDERABLE_VALUE = '<unrenderable value>';

/** The string `message` of a non-`Error` object when it is an own data property, else `undefined`. */
function ownMessage(value: object): string | undefined {
  const descriptor = Object.getOwnPropertyDescriptor(value, 'message');
  if (descriptor === undefined || !('value' in descriptor)) return undefined;
  return typeof descriptor.value === 'string' ? descriptor.value : undefined;
}

/** Renders one node; `path` holds the objects currently being rendered (ancestors of this node). */
function renderNode(value: unknown, path: Set<unknown>): string {
  try {
    if (path.has(value)) return CIRCULAR_CAUSE;
    if (!(value instanceof Error)) {
      if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
        const message = ownMessage(value);
        if (message !== undefined) return message;
      }
      return String(value);
    }
    path.add(value);
    try {
      return renderError(value, path);
    } finally {
      // The error stops being an ancestor once its subtree is rendered, so siblings may repeat it.
      path.delete(value);
    }
  } catch {
    // Any throw while rendering this node (getter, Proxy trap, String() of a null-prototype object)
    // replaces only this node; the rest of the chain still renders.
    return UNRENDERABLE_VALUE;
  }
}

/** `message` (or `name` when empty), the AggregateError members, then `: <cause>` when it adds anything. */
function renderError(error: Error, path: Set<unknown>): string {
  const message: unknown = error.message;
  // String() because a subclass may store a non-string message; the chain is text either way.
  let text = String(message === '' ? error.name : message);
  if (error instanceof AggregateError) {
    const members: unknown = error.errors;
    if (Array.isArray(members) && members.length > 0) {
      text += ` [${members.map((member) => renderNode(member, path)).join('; ')}]`;
    }
  }
  const cause: unknown = error.cause;
  if (cause !== undefined && cause !== null) {
    const rendered = renderNode(cause, path);
    if (rendered !== '' && rendered !== message) text += `: ${rendered}`;
  }
  return text;
}

/**
 * dsh's error renderer (SESSION-REFERENCE.md §13.3 rule 4). For an `Error`: its `message` (its `name` when
 * the message is empty); for an `AggregateError` with members, ` [` + the members rendered and joined by
 * `; ` + `]`; then `: ` + the rendered `cause`, unless the cause is `undefined`/`null`, renders empty or
 * renders exactly equal to the message. A non-`Error` renders as its own string data property `message`, else
 * `String(value)`. A value already on the current rendering path renders `<circular cause>`; a node whose
 * rendering throws renders `<unrenderable value>`. Never throws.
 */
export function errorChain(value: unknown): string {
  return renderNode(value, new Set());
}

/** The `error` record of a `turn/end` with `reason.kind === 'error'` (SESSION-LOG.md §3.4). */
export interface TurnEndErrorRecord {
  readonly message: string;
  readonly code: string;
}

/** The `turn/end` reason of a step whose pre-step failed (SESSION-REFERENCE.md §13.3 rule 3). */
export type StepFailureTurnEndReason =
  | { readonly kind: 'aborted'; readonly reason: unknown }
  | { readonly kind: 'error'; readonly error: TurnEndErrorRecord };

/** The error's `code` when it is a string starting with `SESSION_REFERENCE_`; reading it never throws. */
function sessionReferenceCode(error: unknown): string | undefined {
  if ((typeof error !== 'object' || error === null) && typeof error !== 'function') return undefined;
  let code: unknown;
  try {
    code = (error as { readonly code?: unknown }).code;
  } catch {
    // A throwing `code` getter means the error has no usable code; it is recorded as UNKNOWN.
    return undefined;
  }
  return typeof code === 'string' && code.startsWith('SESSION_REFERENCE_') ? code : undefined;
}

/**
 * The turn-end reason a host writes when a step fails before anything of it was logged (SESSION-REFERENCE.md
 * §13.3 rule 3): `{kind:'aborted', reason: signal.reason}` when `signal` is aborted (as dsh);
 * `{kind:'error', error:{message: errorChain(error), code}}` keeping a `SESSION_REFERENCE_*` code (D8);
 * otherwise the same with `code: 'UNKNOWN'` (as dsh).
 */
export function turnEndReasonForStepFailure(error: unknown, signal: AbortSignal | undefined): StepFailureTurnEndReason {
  if (signal?.aborted === true) return { kind: 'aborted', reason: signal.reason as unknown };
  const code = sessionReferenceCode(error) ?? 'UNKNOWN';
  return { kind: 'error', error: { message: errorChain(error), code } };
}

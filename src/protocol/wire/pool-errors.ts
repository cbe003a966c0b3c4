/**
 * Errors of the worker pipeline itself (ARCHITECTURE.md §2–§3): a worker thread that died under its
 * task, a malformed message from a worker, a task kind the runner does not serve, a task stopped by its
 * control port. Failures of the work a task performs keep their own classes and cross the thread boundary
 * unchanged (see wire-error.ts).
 */

/** Stable codes of pool failures. */
export type SessionPoolErrorCode =
  /** The worker thread running the task exited or crashed; only that task fails, the pool respawns a thread. */
  | 'SESSION_POOL_WORKER_FAILED'
  /** A worker sent a result that does not have the shape of its task kind's result. */
  | 'SESSION_POOL_PROTOCOL'
  /** The pool configuration is invalid. */
  | 'SESSION_POOL_INVALID_CONFIG'
  /** The pool was closed before or while the task ran. */
  | 'SESSION_POOL_CLOSED'
  /** The task saw `{type:'abort'}` on its control port and stopped (worker side; the caller settled already). */
  | 'SESSION_POOL_TASK_ABORTED'
  /** A task kind the runner's worker entry does not serve; refused before any thread runs it. */
  | 'SESSION_POOL_UNKNOWN_TASK';

/** A failure of the worker pipeline. Name exactly `SessionPoolError`. */
export class SessionPoolError extends Error {
  /** The stable classification of this failure. */
  readonly code: SessionPoolErrorCode;

  constructor(code: SessionPoolErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    Object.defineProperty(this, 'name', { value: 'SessionPoolError', enumerable: false, configurable: true, writable: true });
  }
}

/** The error a task throws inside its worker when its control port delivered `{type:'abort'}`. */
export function taskAbortedError(): SessionPoolError {
  return new SessionPoolError('SESSION_POOL_TASK_ABORTED', 'worker task was aborted by its caller');
}

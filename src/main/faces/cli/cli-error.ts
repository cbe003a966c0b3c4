/**
 * Failures that only the command line has: a root the user named that does not exist, a session id prefix
 * that names more than one session, an input file it cannot read, and — as a last line of defence — any
 * operating-system error that reached the CLI without a typed wrapper. Each has a stable code and exits
 * with status 1.
 */

/** The codes of {@link CliError}. */
export type CliErrorCode =
  | 'CLI_ROOT_NOT_FOUND'
  | 'CLI_SESSION_ID_AMBIGUOUS'
  | 'CLI_INPUT_UNREADABLE'
  | 'CLI_IO_FAILED'
  | 'CLI_INDEX_NOT_WRITTEN';

/** A typed CLI failure (exit status 1). */
export class CliError extends Error {
  /** The stable code. */
  readonly code: CliErrorCode;
  /** What the command had done when it failed, for `--json` (`error.details`). */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  /**
   * @param code - the stable code.
   * @param message - what went wrong, naming the path or the input.
   * @param options - the cause, and details for `--json`.
   */
  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown; details?: Readonly<Record<string, unknown>> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
    this.details = options?.details;
  }
}

/** The shape of a Node.js system error (`ENOENT`, `EACCES`, …). */
interface SystemError {
  readonly code: string;
  readonly syscall: string;
  readonly path?: string;
  readonly message: string;
}

function isSystemError(error: unknown): error is SystemError {
  return (
    error instanceof Error &&
    typeof (error as { syscall?: unknown }).syscall === 'string' &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/**
 * Wraps a raw operating-system error in `CLI_IO_FAILED` (the path and the system code in the message, the
 * original as `cause`), so no `ENOENT` or `EISDIR` is ever printed as a code; every other value is returned
 * as it is. The stores and commands wrap the failures they expect with codes of their own; this catches the
 * ones nobody expected.
 * @param error - what a command threw.
 */
export function typedSystemError(error: unknown): unknown {
  if (!isSystemError(error)) return error;
  const where = error.path === undefined ? '' : ` "${error.path}"`;
  return new CliError('CLI_IO_FAILED', `${error.syscall}${where} failed: ${error.code}`, { cause: error });
}

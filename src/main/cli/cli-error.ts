/**
 * Failures that only the command line has: a root the user named that does not exist, a session id prefix
 * that names more than one session. Each has a stable code and exits with status 1.
 */

/** The codes of {@link CliError}. */
export type CliErrorCode = 'CLI_ROOT_NOT_FOUND' | 'CLI_SESSION_ID_AMBIGUOUS';

/** A typed CLI failure (exit status 1). */
export class CliError extends Error {
  /** The stable code. */
  readonly code: CliErrorCode;

  /**
   * @param code - the stable code.
   * @param message - what went wrong, naming the path or the input.
   */
  constructor(code: CliErrorCode, message: string) {
    super(message);
    this.name = 'CliError';
    this.code = code;
  }
}

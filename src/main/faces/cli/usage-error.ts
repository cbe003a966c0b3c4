/**
 * A command line that cannot be run as written. The CLI prints it and exits with status 2.
 */
export class UsageError extends Error {
  /** Always `CLI_USAGE`. */
  readonly code = 'CLI_USAGE' as const;

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

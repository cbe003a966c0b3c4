/**
 * A configuration value that cannot be used: the key, where it came from and why are in the
 * message, so a user can fix the right file or variable.
 */
export class SessionctxConfigError extends Error {
  /** Always `SESSIONCTX_INVALID_CONFIG`. */
  readonly code = 'SESSIONCTX_INVALID_CONFIG' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SessionctxConfigError';
  }
}

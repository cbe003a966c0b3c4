/**
 * The typed error of `sessionctx/dsh-dcp` (docs/DSH-DCP.md §6): mounting it beside dsh-dcp, host members the
 * adapter does not offer, a session disposed while its log is read. Configuration failures stay DCP's own `DcpConfigError` (`DCP_CONFIG_INVALID`).
 */

/** The stable codes. */
export type DshDcpErrorCode =
  /** dsh-dcp is mounted in the same host (its plugin, a `compress` tool, a `dcp` command or a DCP guidance section). */
  | 'DSH_DCP_CONFLICT'
  /** A host member DCP does not use and the dsh adapter does not provide (the agent facade's registration methods). */
  | 'DSH_DCP_UNSUPPORTED'
  /** dsh disposed a session while DCP was still folding its log (the pre-step, tool call or command waiting for it fails). */
  | 'DSH_DCP_SESSION_DISPOSED';

/** A failure of the dsh adapter. */
export class DshDcpError extends Error {
  readonly code: DshDcpErrorCode;

  constructor(code: DshDcpErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.code = code;
    Object.defineProperty(this, 'name', { value: 'DshDcpError', enumerable: false, configurable: true, writable: true });
  }
}

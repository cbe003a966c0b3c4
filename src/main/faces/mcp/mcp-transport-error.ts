/**
 * A failure of the MCP server's transport that ends the server: a stdio message longer than the SDK's read limit
 * (10 MiB) — the SDK drops its buffer and closes the transport, which would otherwise look like a client that went
 * away (exit 0, or a server that stops answering). `sessionctx mcp` exits 1 with this code.
 */

/** The stable codes of {@link McpTransportError}. */
export type McpTransportErrorCode = 'MCP_MESSAGE_TOO_LARGE';

/** A transport failure that ended the server. */
export class McpTransportError extends Error {
  /** The stable code. */
  readonly code: McpTransportErrorCode;

  /**
   * @param code - the stable code.
   * @param message - what happened, for a person.
   */
  constructor(code: McpTransportErrorCode, message: string) {
    super(message);
    this.name = 'McpTransportError';
    this.code = code;
  }
}

/**
 * A request the MCP server refuses as the protocol's own error (not a tool result): a malformed URI or cursor, an
 * unknown session, arguments that do not match a schema. The server maps `kind` to a JSON-RPC error code.
 */

import { CatalogError } from '../../catalog/catalog-error.js';

/** Why a request is refused. */
export type McpRequestErrorKind =
  /** The arguments are malformed (JSON-RPC -32602). */
  | 'invalid-params'
  /** The named session does not exist (MCP's resource-not-found, -32002). */
  | 'not-found';

/** A refused MCP request. */
export class McpRequestError extends Error {
  /** Why the request is refused. */
  readonly kind: McpRequestErrorKind;
  /** The stable code a tool result carries: `SESSION_QUERY_SESSION_NOT_FOUND` or `MCP_INVALID_ARGUMENTS`. */
  readonly code: 'SESSION_QUERY_SESSION_NOT_FOUND' | 'MCP_INVALID_ARGUMENTS';

  /**
   * @param kind - why the request is refused
   * @param message - what the client is told
   * @param options - the underlying cause, if any
   */
  constructor(kind: McpRequestErrorKind, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'McpRequestError';
    this.kind = kind;
    this.code = kind === 'not-found' ? 'SESSION_QUERY_SESSION_NOT_FOUND' : 'MCP_INVALID_ARGUMENTS';
  }
}

/**
 * A catalog refusal in MCP's terms (`invalid-argument` → `invalid-params`, `not-found` and `no-root` → `not-found`);
 * anything else as it is.
 */
export function asMcpRefusal(error: unknown): unknown {
  if (!(error instanceof CatalogError)) return error;
  return new McpRequestError(error.kind === 'invalid-argument' ? 'invalid-params' : 'not-found', error.message, { cause: error.cause });
}

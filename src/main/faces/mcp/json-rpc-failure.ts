/**
 * How the MCP server's failures reach the client as JSON-RPC errors, with their text once. The SDK's `McpError`
 * writes `MCP error <code>: ` into its own message, and the SDK's client adds the same prefix again when it rebuilds
 * the error, so a server that throws `McpError` is read as `MCP error -32602: MCP error -32602: …` (issue 26). The
 * SDK sends any thrown error's numeric `code`, `message` and `data` as they are, so the server throws this instead.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { errorCode } from '../../../protocol/error-code.js';
import { asMcpRefusal, McpRequestError } from './mcp-request-error.js';

/** MCP's resource-not-found error code (the specification's suggestion for `resources/read`). */
export const RESOURCE_NOT_FOUND = -32002;

/** A JSON-RPC error as the server sends it: the code, our message without any prefix, the stable code in `data`. */
export class JsonRpcFailure extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** `{code}`: the stable code of the failure. */
  readonly data: { readonly code: string };

  /**
   * @param code - the JSON-RPC error code.
   * @param message - what the client is told.
   * @param stableCode - the stable code (`MCP_INVALID_ARGUMENTS`, `SESSION_QUERY_SESSION_NOT_FOUND`, …).
   */
  constructor(code: number, message: string, stableCode: string) {
    super(message);
    this.name = 'JsonRpcFailure';
    this.code = code;
    this.data = { code: stableCode };
  }
}

/**
 * A failure as the protocol error the client sees: refusals keep their kind (-32602 or -32002), the engine's typed
 * errors their stable code (in the message and in `data.code`, -32603).
 * @param thrown - what a handler threw.
 */
export function protocolFailure(thrown: unknown): JsonRpcFailure {
  if (thrown instanceof JsonRpcFailure) return thrown;
  const error = asMcpRefusal(thrown);
  if (error instanceof McpRequestError) {
    return new JsonRpcFailure(error.kind === 'not-found' ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams, error.message, error.code);
  }
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return new JsonRpcFailure(ErrorCode.InternalError, `${code}: ${message}`, code);
}

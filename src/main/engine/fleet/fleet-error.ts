/**
 * The typed errors of the shared corpus index (issue 29). Every message is ours and names no credential: a
 * connection URL, user password or the driver's connection parameters never reach a message, a cause or a log.
 */

/** The stable codes, all prefixed `FLEET_`. */
export type FleetErrorCode =
  /** The configuration cannot be used (the backend name, or a postgres backend without a URL). */
  | 'FLEET_INVALID_CONFIG'
  /** The server could not be reached (refused, timed out, unknown host, not accepting connections). */
  | 'FLEET_UNREACHABLE'
  /** The server refused the credentials (password or authorization). */
  | 'FLEET_AUTH_FAILED'
  /** The database's `sessionctx` schema carries a version this program does not know: never modified. */
  | 'FLEET_SCHEMA_UNKNOWN_VERSION'
  /** The database's `sessionctx` schema holds tables that are not ours: never modified. */
  | 'FLEET_SCHEMA_FOREIGN_TABLES'
  /** A statement failed on a reachable server (its SQLSTATE is in the message). */
  | 'FLEET_QUERY_FAILED'
  /** A fleet operation was asked of an engine whose corpus index is not shared (the `sqlite` backend, or no root). */
  | 'FLEET_NOT_CONFIGURED'
  /** The engine that held the connection was closed: nothing more is published or asked. */
  | 'FLEET_CLOSED';

/** An error of the shared corpus index. Name exactly `FleetError`. */
export class FleetError extends Error {
  /** The stable `FLEET_*` code. */
  readonly code: FleetErrorCode;

  constructor(code: FleetErrorCode, message: string) {
    // No `cause`: the driver's errors may carry connection parameters.
    super(message);
    this.code = code;
    Object.defineProperty(this, 'name', { value: 'FleetError', enumerable: false, configurable: true, writable: true });
  }
}

/** True when `error` is a {@link FleetError}, and, when `code` is given, carries that code. */
export function isFleetError(error: unknown, code?: FleetErrorCode): error is FleetError {
  return error instanceof FleetError && (code === undefined || error.code === code);
}

/** System error codes that mean the server is out of reach. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** SQLSTATEs of refused credentials: invalid_password, invalid_authorization_specification. */
const AUTH_STATES = new Set(['28P01', '28000']);

/** SQLSTATEs of a server that is there but does not serve: cannot_connect_now, too_many_connections, admin_shutdown, crash_shutdown, invalid_catalog_name. */
const UNAVAILABLE_STATES = new Set(['57P03', '53300', '57P01', '57P02', '3D000']);

/**
 * The typed form of a driver or system failure while `doing` (e.g. `connecting to the corpus index`). Only codes and
 * our own words are kept: the driver's message can quote the user name or host, never the password, but we keep
 * none of it for connection failures so that no future driver text can leak a credential.
 */
export function fleetFailure(error: unknown, doing: string): FleetError {
  if (error instanceof FleetError) return error;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && AUTH_STATES.has(code)) {
    return new FleetError('FLEET_AUTH_FAILED', `${doing}: the server refused the credentials (SQLSTATE ${code})`);
  }
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_STATES.has(code))) {
    return new FleetError('FLEET_UNREACHABLE', `${doing}: the server is unreachable (${code})`);
  }
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    const message = error instanceof Error ? error.message : 'unknown error';
    return new FleetError('FLEET_QUERY_FAILED', `${doing}: ${message} (SQLSTATE ${code})`);
  }
  if (error instanceof Error && /timeout|terminated|Connection terminated/i.test(error.message)) {
    return new FleetError('FLEET_UNREACHABLE', `${doing}: the server is unreachable (connection lost or timed out)`);
  }
  return new FleetError('FLEET_UNREACHABLE', `${doing}: the server is unreachable`);
}

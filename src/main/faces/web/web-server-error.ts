/**
 * The typed failures of `sessionctx serve` (issue 18): a refused bind, and every request the server turns away before
 * or instead of a handler. Each code has one HTTP status, so the reply's status and its `{ok:false, error}` body
 * always agree.
 */

/** The stable codes of {@link WebServerError}, each with the HTTP status its reply carries. */
export const WEB_ERROR_STATUS = {
  /** `startWebServer` was asked to bind a host that is not a loopback address (nothing was bound). */
  WEB_HOST_NOT_LOOPBACK: 0,
  /** `--port` / `port` is not an integer in 0–65535. */
  WEB_INVALID_PORT: 0,
  /** The request repeats `Host` or `Origin` (a second copy could name another host than the one checked). */
  WEB_DUPLICATE_HEADER: 400,
  /** The request's `Host` is not a loopback name with the server's port (DNS rebinding). */
  WEB_FORBIDDEN_HOST: 403,
  /** The request's `Origin` is present and is not the server's own origin. */
  WEB_FORBIDDEN_ORIGIN: 403,
  /** `Sec-Fetch-Site` says the request was started by another site (or another port of this host). */
  WEB_FORBIDDEN_FETCH_SITE: 403,
  /** No valid session cookie (or a wrong token on the exchange). */
  WEB_UNAUTHORIZED: 401,
  /** An HTTP method the path does not take (OPTIONS everywhere, GET on the API, POST on a page). */
  WEB_METHOD_NOT_ALLOWED: 405,
  /** An API request whose body is not `application/json`. */
  WEB_UNSUPPORTED_MEDIA_TYPE: 415,
  /** An API request body over the size limit. */
  WEB_PAYLOAD_TOO_LARGE: 413,
  /** An API body that is not JSON, or a path that cannot be decoded. */
  WEB_BAD_REQUEST: 400,
  /** Arguments that do not match the method's schema. */
  WEB_INVALID_ARGUMENTS: 400,
  /** `POST /api/<service>/<method>` for a method the API does not have. */
  WEB_UNKNOWN_METHOD: 404,
  /** A static file that does not exist (or may not be served). */
  WEB_NOT_FOUND: 404,
  /** `dcp/summary` on a server whose engine has no session root. */
  WEB_NO_SESSION_ROOT: 404,
  /** `search/sessions` on a server that was started without a search function. */
  SEARCH_UNAVAILABLE: 501,
  /** `GET /api/events` while the server already holds its limit of open event streams. */
  WEB_TOO_MANY_STREAMS: 503,
} as const;

/** A code of {@link WebServerError}. */
export type WebServerErrorCode = keyof typeof WEB_ERROR_STATUS;

/** A failure of the Web server itself (not of the engine call a request ran). */
export class WebServerError extends Error {
  /** The stable code. */
  readonly code: WebServerErrorCode;

  /**
   * @param code - the stable code.
   * @param message - what was refused and why.
   */
  constructor(code: WebServerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebServerError';
    this.code = code;
  }

  /** The HTTP status of a reply that reports this error. */
  get status(): number {
    return WEB_ERROR_STATUS[this.code];
  }
}

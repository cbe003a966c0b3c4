/**
 * How a failure becomes a reply: the project's one code rule (`protocol/error-code.ts`: a string `code`, else
 * `UNKNOWN`) and the error's message, as `{ok:false, error:{code, message}}`, with the HTTP status that class of
 * failure carries. The page reads the body either way; the status is for people and tools looking at the traffic.
 */
import { errorCode } from '../../../protocol/error-code.js';
import type { WebError } from '../../../protocol/web/web-api.js';
import { WebServerError } from './web-server-error.js';

/**
 * The `{code, message}` of any thrown value.
 * @param error - what a handler or the server threw.
 * @returns the reply's error.
 */
export function webErrorOf(error: unknown): WebError {
  return { code: errorCode(error), message: error instanceof Error ? error.message : String(error) };
}

/**
 * The HTTP status of a failed reply: a Web server error's own status; 404 for a session that does not exist; 422 for
 * any other typed error of the engine (the request was understood, the engine refused it); 500 for an untyped one.
 * @param error - what was thrown.
 */
export function httpStatusOf(error: unknown): number {
  if (error instanceof WebServerError) return error.status;
  const code = errorCode(error);
  if (code === 'SESSION_QUERY_SESSION_NOT_FOUND') return 404;
  return code === 'UNKNOWN' ? 500 : 422;
}

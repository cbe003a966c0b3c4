/**
 * Typed client stubs of the Web API (issue 18): one `call` over `POST /api/<service>/<method>`, typed by the same
 * {@link WebApi} the server's handlers are written against, so a method's arguments and value cannot drift apart.
 */
import type { WebApi, WebMethod, WebReply } from '../../../src/protocol/web/web-api.js';

/** Codes the client itself gives, when no typed reply came back. */
export const CLIENT_ERROR_CODES = {
  /** The request never got an answer (server gone, network refused). */
  network: 'WEB_NETWORK_FAILED',
  /** The answer was not a JSON {@link WebReply}. */
  badReply: 'WEB_BAD_REPLY',
} as const;

/** A failed call: the server's typed error (stable `code`, readable `message`) or one of {@link CLIENT_ERROR_CODES}. */
export class WebApiError extends Error {
  /** The stable code of the failure. */
  readonly code: string;

  /**
   * @param code the stable code
   * @param message what went wrong, in words
   */
  constructor(code: string, message: string) {
    super(message);
    this.name = 'WebApiError';
    this.code = code;
  }
}

/** True when `error` is the rejection of a call whose signal was aborted (the caller asked for it; nothing to show). */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function isReply(value: unknown): value is WebReply<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const reply = value as { ok?: unknown; error?: unknown };
  if (reply.ok === true) return 'value' in reply;
  if (reply.ok !== false || typeof reply.error !== 'object' || reply.error === null) return false;
  const error = reply.error as { code?: unknown; message?: unknown };
  return typeof error.code === 'string' && typeof error.message === 'string';
}

/**
 * Calls one remote method.
 *
 * @param method `<service>/<method>`
 * @param args the method's arguments (JSON)
 * @param signal aborts the request; the server aborts the engine call with it
 * @returns the method's value
 * @throws WebApiError the server's typed error, or a client code when no reply came; an `AbortError` DOMException
 * when `signal` aborted
 */
export async function call<M extends WebMethod>(method: M, args: WebApi[M]['args'], signal?: AbortSignal): Promise<WebApi[M]['value']> {
  let response: Response;
  try {
    response = await fetch(`/api/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(args),
      credentials: 'same-origin',
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new WebApiError(
      CLIENT_ERROR_CODES.network,
      `the server did not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new WebApiError(CLIENT_ERROR_CODES.badReply, `the server's reply (HTTP ${response.status}) is not JSON`);
  }
  if (!isReply(body))
    throw new WebApiError(CLIENT_ERROR_CODES.badReply, `the server's reply (HTTP ${response.status}) is not a Web API reply`);
  if (!body.ok) throw new WebApiError(body.error.code, body.error.message);
  return body.value as WebApi[M]['value'];
}

/**
 * The per-run secret of `sessionctx serve`: the token printed in the URL and the cookie it is exchanged for
 * (docs/WEB.md "Security model"). The token only proves that the visitor read the server's first line; the cookie
 * (a second random value, `HttpOnly; SameSite=Strict`) is what every later request shows, so the token can leave the
 * address bar at once and a page script can never read the credential.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh random secret: 32 bytes (256 bits) as base64url. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Compares two secrets in time independent of where they differ (digests first, so lengths need not match).
 * @param a - one secret.
 * @param b - the other.
 */
export function sameSecret(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}

/** The values of every cookie named `name` in a `Cookie` header. */
function cookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}

/** One run's token and cookie. */
export class WebAuth {
  /** The token of the URL (`/?token=…`). */
  readonly token: string;
  /** The cookie's name: per run, so two servers on one machine never read each other's cookie. */
  readonly cookieName: string;
  readonly #cookieValue: string;

  /**
   * @param token - the token to accept (default: a fresh random one).
   */
  constructor(token: string = randomSecret()) {
    this.token = token;
    this.cookieName = `sessionctx-${randomBytes(6).toString('hex')}`;
    this.#cookieValue = randomSecret();
  }

  /**
   * True when `candidate` is this run's token.
   * @param candidate - the `token` query parameter.
   */
  acceptsToken(candidate: string): boolean {
    return sameSecret(candidate, this.token);
  }

  /** The `Set-Cookie` value of a successful exchange: a session cookie for the whole server, never sent cross-site. */
  setCookieHeader(): string {
    return `${this.cookieName}=${this.#cookieValue}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /**
   * True when the request's `Cookie` header carries this run's cookie.
   * @param header - the `Cookie` header, if any.
   */
  hasCookie(header: string | undefined): boolean {
    return cookieValues(header, this.cookieName).some((value) => sameSecret(value, this.#cookieValue));
  }
}

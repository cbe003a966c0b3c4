/**
 * A PostgreSQL connection URL as a secret: the driver gets it through {@link DatabaseUrl.reveal}; every other way
 * of turning it into text (`String`, template literals, `JSON.stringify`, `util.inspect`, a logger) gives the
 * redacted form, which keeps the host, port, database and user but never the password.
 */
import { inspect } from 'node:util';

const PASSWORD_MASK = '***';

/** A connection URL that prints redacted. */
export class DatabaseUrl {
  readonly #url: string;

  /** Keeps `url` (already checked to be a `postgres:` or `postgresql:` URL). */
  constructor(url: string) {
    this.#url = url;
  }

  /** The URL itself, for the driver only. */
  reveal(): string {
    return this.#url;
  }

  /** The URL without its password (and without query parameters, which may carry one). */
  redacted(): string {
    return redactDatabaseUrl(this.#url);
  }

  /** The redacted form: a URL in a template literal or a log line never shows its password. */
  toString(): string {
    return this.redacted();
  }

  /** The redacted form, for `JSON.stringify`. */
  toJSON(): string {
    return this.redacted();
  }

  /** The redacted form, for `console.log` and `util.inspect`. */
  [inspect.custom](): string {
    return `DatabaseUrl(${this.redacted()})`;
  }
}

/**
 * `url` with its password masked and its query dropped; a text that does not parse as a URL is replaced whole, since
 * we cannot tell which part of it is the secret.
 */
export function redactDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '<unparsable database URL>';
  }
  if (parsed.password !== '') parsed.password = PASSWORD_MASK;
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}

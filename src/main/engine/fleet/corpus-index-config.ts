/**
 * The `corpusIndex` configuration namespace (issue 29): which backend holds the corpus index. `sqlite` (the default)
 * is the embedded index every engine keeps for itself; `postgres` publishes this engine's root into a shared
 * PostgreSQL database, where a fleet of hosts discovers (and later searches and cites) every published corpus.
 *
 * Keys: `backend` (`'sqlite' | 'postgres'`), `databaseUrl` (a `postgres://` or `postgresql://` URL; the variable
 * `SESSIONCTX_DATABASE_URL` wins over the file, so a secret can stay out of it; `SESSIONCTX_CORPUS_INDEX` likewise
 * names the backend), `host` (the name this machine
 * publishes under; default the operating system's host name). A rule's failure names the key and why, never the URL.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { firstConfigIssue, nullAsAbsent } from '../../../protocol/config-schema.js';
import { DatabaseUrl } from './database-url.js';
import { FleetError } from './fleet-error.js';

/** The variable that carries the connection URL (it wins over the file's `databaseUrl`). */
export const DATABASE_URL_VARIABLE = 'SESSIONCTX_DATABASE_URL';

/** The variable that names the backend (it wins over the file's `backend`): a host enabled by its environment alone. */
export const BACKEND_VARIABLE = 'SESSIONCTX_CORPUS_INDEX';

const BACKEND = "must be 'sqlite' or 'postgres'";
const URL_RULE = 'must be a postgres:// or postgresql:// URL';
const HOST = 'must be a non-empty string';

/** The rules of each key (also what a composition file's `corpusIndex` object may hold). */
export const corpusIndexConfigSchema = z.strictObject(
  {
    backend: nullAsAbsent(z.enum(['sqlite', 'postgres'], { error: BACKEND }).default('sqlite')),
    databaseUrl: nullAsAbsent(
      z
        .string({ error: URL_RULE })
        .refine((value) => isPostgresUrl(value), { error: URL_RULE })
        .optional(),
    ),
    host: nullAsAbsent(z.string({ error: HOST }).min(1, { error: HOST }).optional()),
  },
  {
    // An unknown key is named (a typo such as `databaseURL` would otherwise read as "must be an object").
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `has unknown keys (${issue.keys.join(', ')}); known: backend, databaseUrl, host`
        : 'must be an object',
  },
);

/** What a caller may pass; values are validated, not trusted. */
export type CorpusIndexConfigInput = { readonly [K in keyof z.input<typeof corpusIndexConfigSchema>]?: unknown };

/** The embedded index (nothing shared). */
export interface SqliteCorpusIndexConfig {
  readonly backend: 'sqlite';
}

/** The shared PostgreSQL index. */
export interface PostgresCorpusIndexConfig {
  readonly backend: 'postgres';
  /** The connection URL (prints redacted). */
  readonly databaseUrl: DatabaseUrl;
  /** Where the URL came from. */
  readonly databaseUrlSource: 'env' | 'file';
  /** The host name this machine publishes under. */
  readonly host: string;
}

/** The resolved configuration. */
export type CorpusIndexConfig = SqliteCorpusIndexConfig | PostgresCorpusIndexConfig;

/** True for a URL the `pg` driver takes as a PostgreSQL connection string. */
function isPostgresUrl(value: string): boolean {
  try {
    const protocol = new URL(value).protocol;
    return protocol === 'postgres:' || protocol === 'postgresql:';
  } catch {
    return false;
  }
}

/**
 * Resolves and validates the namespace.
 * @param input - the file's (or caller's) `corpusIndex` object.
 * @param env - the environment ({@link DATABASE_URL_VARIABLE}, {@link BACKEND_VARIABLE}).
 * @throws FleetError `FLEET_INVALID_CONFIG` naming the key and the rule (never the value).
 */
export function resolveCorpusIndexConfig(
  input: CorpusIndexConfigInput | undefined,
  env: NodeJS.ProcessEnv = process.env,
): CorpusIndexConfig {
  const parsed = corpusIndexConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = firstConfigIssue(parsed.error);
    throw new FleetError(
      'FLEET_INVALID_CONFIG',
      `invalid corpusIndex config: ${issue.key === '' ? 'corpusIndex' : `corpusIndex.${issue.key}`} ${issue.reason}`,
    );
  }
  const config = parsed.data;
  const backend = env[BACKEND_VARIABLE];
  if (backend !== undefined && backend !== '' && backend !== 'sqlite' && backend !== 'postgres')
    throw new FleetError('FLEET_INVALID_CONFIG', `invalid corpusIndex config: ${BACKEND_VARIABLE} ${BACKEND}`);
  if ((backend === undefined || backend === '' ? config.backend : backend) === 'sqlite') return { backend: 'sqlite' };
  const fromEnv = env[DATABASE_URL_VARIABLE];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!isPostgresUrl(fromEnv))
      throw new FleetError('FLEET_INVALID_CONFIG', `invalid corpusIndex config: ${DATABASE_URL_VARIABLE} ${URL_RULE}`);
    return { backend: 'postgres', databaseUrl: new DatabaseUrl(fromEnv), databaseUrlSource: 'env', host: config.host ?? hostname() };
  }
  if (config.databaseUrl === undefined) {
    throw new FleetError(
      'FLEET_INVALID_CONFIG',
      `invalid corpusIndex config: the postgres backend needs corpusIndex.databaseUrl or ${DATABASE_URL_VARIABLE}`,
    );
  }
  return {
    backend: 'postgres',
    databaseUrl: new DatabaseUrl(config.databaseUrl),
    databaseUrlSource: 'file',
    host: config.host ?? hostname(),
  };
}

/**
 * Configuration of the JSONL directory store (SESSION-LOG.md §9.1) as one schema (type, defaults, rules and
 * texts), resolved and validated once.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { firstConfigIssue } from '../../../protocol/config-schema.js';
import { SessionLogError } from '../../../protocol/errors.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import { expandHome, homeDirectory } from '../config/home-path.js';

/** What a caller may pass to open a store. */
export interface JsonlStoreOptions {
  /** The session root; resolved to an absolute path once. */
  readonly root: string;
  /** `'zstd'` (dsh's default) or `'none'`; one root holds one encoding. */
  readonly compression?: Compression;
  /** Pack runs of stream chunks into rows when writing (readers always decode rows). */
  readonly packChunks?: boolean;
  /**
   * How a listing treats an artifact it cannot list (default `'tolerant'`): `'tolerant'` skips it and reports
   * it as a listing problem, `'strict'` fails the whole listing with dsh's error (SESSION-LOG.md §9.13 step 8).
   */
  readonly listing?: ListingMode;
}

/** The listing modes of {@link JsonlStoreOptions.listing}. */
export type ListingMode = 'strict' | 'tolerant';

/** Defaults of SESSION-LOG.md §9.1. */
export const DEFAULT_COMPRESSION: Compression = 'zstd';

/** One damaged artifact must not hide every healthy session, so listings tolerate damage unless asked not to. */
export const DEFAULT_LISTING_MODE: ListingMode = 'tolerant';

/** `must be "a" or "b", got <the value as JSON>`. */
function oneOfReason(values: readonly [string, string]): (issue: { readonly input?: unknown }) => string {
  return (issue) => `must be ${values.map((value) => JSON.stringify(value)).join(' or ')}, got ${JSON.stringify(issue.input)}`;
}

/** The store's schema (§9.1): keys in validation order, each with its default and its rule. */
const jsonlStoreConfigSchema = z.object({
  // Resolved to an absolute path once, here.
  root: z
    .string({ error: 'must be a non-empty path' })
    .min(1, { error: 'must be a non-empty path' })
    .transform((root) => resolve(root)),
  compression: z.enum(['zstd', 'none'], { error: oneOfReason(['zstd', 'none']) }).default(DEFAULT_COMPRESSION),
  packChunks: z.boolean({ error: 'must be a boolean' }).default(true),
  listing: z.enum(['strict', 'tolerant'], { error: oneOfReason(['strict', 'tolerant']) }).default(DEFAULT_LISTING_MODE),
});

/** The resolved, validated store configuration. */
export type JsonlStoreConfig = z.output<typeof jsonlStoreConfigSchema>;

/**
 * Validates store options and fills in the defaults (SESSION-LOG.md §9.1).
 * @param options - the caller's options.
 * @returns the configuration, its root absolute.
 * @throws SessionLogError `SESSION_STORE_INVALID_CONFIG`: `session store: <key> <reason>` for the first bad key.
 */
export function resolveJsonlStoreConfig(options: JsonlStoreOptions): JsonlStoreConfig {
  const parsed = jsonlStoreConfigSchema.safeParse(options);
  if (!parsed.success) {
    const issue = firstConfigIssue(parsed.error);
    throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', `session store: ${issue.key} ${issue.reason}`);
  }
  return parsed.data;
}

/**
 * The default session root: `$DSH_HOME/sessions`, with `DSH_HOME` defaulting to `~/.dsh`.
 * A relative `DSH_HOME` is taken relative to the working directory.
 */
export function defaultSessionRoot(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const dshHome = env.DSH_HOME !== undefined && env.DSH_HOME !== '' ? expandHome(env.DSH_HOME, env) : join(homeDirectory(env), '.dsh');
  return join(isAbsolute(dshHome) ? dshHome : resolve(cwd, dshHome), 'sessions');
}

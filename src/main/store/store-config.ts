/**
 * Configuration of the JSONL directory store (SESSION-LOG.md §9.1), resolved and validated once.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { SessionLogError } from '../../protocol/errors.js';
import type { Compression } from '../../protocol/storage-paths.js';
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

/** The resolved, validated store configuration. */
export interface JsonlStoreConfig {
  readonly root: string;
  readonly compression: Compression;
  readonly packChunks: boolean;
  readonly listing: ListingMode;
}

/** Defaults of SESSION-LOG.md §9.1. */
export const DEFAULT_COMPRESSION: Compression = 'zstd';

/** One damaged artifact must not hide every healthy session, so listings tolerate damage unless asked not to. */
export const DEFAULT_LISTING_MODE: ListingMode = 'tolerant';

/** Validates store options and fills in the defaults (SESSION-LOG.md §9.1). */
export function resolveJsonlStoreConfig(options: JsonlStoreOptions): JsonlStoreConfig {
  if (typeof options.root !== 'string' || options.root === '') {
    throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', 'session store: root must be a non-empty path');
  }
  const compression = options.compression ?? DEFAULT_COMPRESSION;
  if (compression !== 'zstd' && compression !== 'none') {
    throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', `session store: compression must be "zstd" or "none", got ${JSON.stringify(compression)}`);
  }
  const packChunks = options.packChunks ?? true;
  if (typeof packChunks !== 'boolean') {
    throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', 'session store: packChunks must be a boolean');
  }
  const listing = options.listing ?? DEFAULT_LISTING_MODE;
  if (listing !== 'strict' && listing !== 'tolerant') {
    throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', `session store: listing must be "strict" or "tolerant", got ${JSON.stringify(listing)}`);
  }
  return { root: resolve(options.root), compression, packChunks, listing };
}

/**
 * The default session root: `$DSH_HOME/sessions`, with `DSH_HOME` defaulting to `~/.dsh`.
 * A relative `DSH_HOME` is taken relative to the working directory.
 */
export function defaultSessionRoot(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const dshHome = env.DSH_HOME !== undefined && env.DSH_HOME !== '' ? expandHome(env.DSH_HOME, env) : join(homeDirectory(env), '.dsh');
  return join(isAbsolute(dshHome) ? dshHome : resolve(cwd, dshHome), 'sessions');
}

/**
 * The `search` configuration namespace (issue 17), one zod schema whose defaults are resolved once, when the engine
 * is built: whether search is on, whether tool calls and results are indexed, page and hit bounds, the snippet
 * length, how long a locked index is waited for, and where the index lives. The composition's file key `search`
 * (`composition-config.ts`) and the engine option `search` both validate through it.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { booleanRule, firstConfigIssue, nullAsAbsent, safeIntegerBetween } from '../../../protocol/config-schema.js';
import { homeDirectoryOf, userCacheDirectory } from '../config/cache-location.js';
import { SEARCH_DATABASE_FILE } from '../../../workers/search/search-database.js';
import { SearchError } from '../../../workers/search/search-error.js';

/** The folder of the index inside sessionctx's cache directory. */
export const SEARCH_CACHE_FOLDER = 'search';

const BOOLEAN = 'must be a boolean';
const PATH = 'must be a non-empty path or null';

/** The rules of each key (also the composition file's `search` object). */
export const searchConfigSchema = z.strictObject(
  {
    /** `false`: `searchSessions` fails with `SEARCH_DISABLED` and no worker starts. */
    enabled: nullAsAbsent(booleanRule(BOOLEAN).default(true)),
    /** Index tool calls (name and arguments) and tool results as role `tool`. Changing it re-indexes each log once. */
    includeTools: nullAsAbsent(booleanRule(BOOLEAN).default(false)),
    /** Sessions per page when a query names no limit. */
    defaultLimit: nullAsAbsent(safeIntegerBetween(1, 1000, 'must be a whole number from 1 to 1000').default(20)),
    /** The largest limit a query may ask for. */
    maxLimit: nullAsAbsent(safeIntegerBetween(1, 1000, 'must be a whole number from 1 to 1000').default(100)),
    /** Hits per session, best first. */
    hitsPerSession: nullAsAbsent(safeIntegerBetween(1, 50, 'must be a whole number from 1 to 50').default(3)),
    /** UTF-16 units of a snippet, ellipses and escapes included. */
    snippetLength: nullAsAbsent(safeIntegerBetween(16, 4000, 'must be a whole number from 16 to 4000').default(160)),
    /** How long a statement waits for another process's lock on the index before `SEARCH_INDEX_BUSY`. */
    busyTimeoutMs: nullAsAbsent(safeIntegerBetween(0, 600_000, 'must be a whole number of milliseconds up to 600000').default(5000)),
    /** The index's directory; `null` keeps it in memory. Default `<user cache directory>/search`. */
    directory: z.union([z.string({ error: PATH }).min(1, { error: PATH }), z.null({ error: PATH })], { error: PATH }).optional(),
  },
  { error: 'must be an object' },
);

/** What a caller may pass; values are validated, not trusted. */
export type SearchConfigInput = { readonly [K in keyof z.input<typeof searchConfigSchema>]?: unknown };

/** The resolved configuration. */
export interface SearchConfig {
  readonly enabled: boolean;
  readonly includeTools: boolean;
  readonly defaultLimit: number;
  readonly maxLimit: number;
  readonly hitsPerSession: number;
  readonly snippetLength: number;
  readonly busyTimeoutMs: number;
  /** The index file, or `null` in memory (also when no cache directory can be determined). */
  readonly databasePath: string | null;
}

/**
 * Resolves and validates the `search` namespace.
 * @param input - the caller's values (`undefined`: defaults).
 * @param env - the environment of the default directory (XDG_CACHE_HOME, HOME, LOCALAPPDATA).
 * @param cacheDirectory - sessionctx's cache directory when the caller names one (the store's `cacheDirectory`).
 * @throws SearchError `SEARCH_INVALID_CONFIG` naming the first bad key.
 */
export function resolveSearchConfig(
  input: SearchConfigInput | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cacheDirectory?: string,
): SearchConfig {
  const parsed = searchConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const { key, reason } = firstConfigIssue(parsed.error);
    throw new SearchError('SEARCH_INVALID_CONFIG', `search${key === '' ? '' : `.${key}`} ${reason}`);
  }
  const value = parsed.data;
  if (value.defaultLimit > value.maxLimit)
    throw new SearchError('SEARCH_INVALID_CONFIG', 'search.defaultLimit must not exceed search.maxLimit');
  let directory: string | null;
  if (value.directory !== undefined) directory = value.directory;
  else {
    const base = cacheDirectory ?? userCacheDirectory(env, process.platform, homeDirectoryOf(env, process.platform));
    directory = base === undefined ? null : join(base, SEARCH_CACHE_FOLDER);
  }
  return Object.freeze({
    enabled: value.enabled,
    includeTools: value.includeTools,
    defaultLimit: value.defaultLimit,
    maxLimit: value.maxLimit,
    hitsPerSession: value.hitsPerSession,
    snippetLength: value.snippetLength,
    busyTimeoutMs: value.busyTimeoutMs,
    databasePath: directory === null ? null : join(directory, SEARCH_DATABASE_FILE),
  });
}

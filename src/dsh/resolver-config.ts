/**
 * The configuration of the `sessionctx/dsh` resolver (docs/DSH.md §3): dsh's three keys with dsh's rules and
 * messages, plus sessionctx's own engine keys. One resolution, run synchronously in the constructor as dsh's resolver
 * does; every failure is a `SESSION_REFERENCE_INVALID_CONFIG` `SessionReferenceError` naming the key, so a dsh host
 * routes it like dsh's own.
 */
import Schema from '@deepseek-ai/schemastery';
import { SessionReferenceError } from '../protocol/reference-errors.js';
import type { Compression } from '../protocol/storage-paths.js';
import { resolveSourceCacheConfig } from '../main/engine/cache/source-cache-config.js';
import type { SourceCacheConfigInput } from '../main/engine/cache/source-cache-config.js';
import { resolveCorpusViewConfig } from '../main/engine/corpus/corpus-view-config.js';
import type { CorpusViewConfigInput } from '../main/engine/corpus/corpus-view-config.js';
import { resolvePoolConfig } from '../main/engine/pool/pool-config.js';
import {
  DEFAULT_CANDIDATE_LIMIT,
  DEFAULT_MAX_REFERENCE_BYTES,
  MAX_REFERENCES,
  resolveReferenceConfig,
} from '../main/engine/reference/reference-config.js';
import type { SessionReferenceConfig } from '../main/engine/reference/reference-config.js';

/** Where preparation and discovery read: sessionctx's engine over the JSONL root, or the host's `ctx.sessionQuery`. */
export type DshReads = 'engine' | 'host';

/** The plugin's configuration as a dsh profile writes it (every key optional). */
export interface DshResolverConfig {
  /** dsh: distinct sessions one message may cite, 1..3 (default 3). */
  maxReferences?: number;
  /** dsh: default number of discovery candidates (default 50). */
  candidateLimit?: number;
  /** dsh: UTF-8 budget of one source's rendered JSON (default 65,536). */
  maxReferenceBytes?: number;
  /**
   * `engine` (the default when a root is known): sessionctx's engine reads the JSONL root on its worker pool, live
   * sessions of this host attached. `host`: every read goes through the host's `ctx.sessionQuery`, for hosts whose
   * corpus is not a local root. With no `root` and no JSONL persistence in the host the plugin reads through the host.
   */
  reads?: DshReads;
  /** The JSONL session root; default: derived from the host's JSONL persistence (`ctx.sessionPersistence.locate`). */
  root?: string;
  /** The root's encoding (`zstd` or `none`); default: the persistence's, else detected from the root. */
  compression?: Compression;
  /** `false` runs every stage on the host's thread (identical output); default `true`, a worker pool. */
  workers?: boolean;
  /** Worker threads (default `min(3, cores)`). */
  poolSize?: number;
  /** The incremental source cache: `false` turns it off; `{maxBytes, directory}` as in the README. */
  sourceCache?: false | { maxBytes?: number; directory?: string | null };
  /** The warm corpus view of discovery: `{watch, revalidateMs}` as in the README. */
  corpus?: { watch?: boolean; revalidateMs?: number };
}

/** The resolved configuration. */
export interface ResolvedDshResolverConfig {
  readonly reference: SessionReferenceConfig;
  readonly reads: DshReads | undefined;
  readonly root: string | undefined;
  readonly compression: Compression | undefined;
  readonly workers: boolean;
  readonly poolSize: number | undefined;
  readonly sourceCache: SourceCacheConfigInput | undefined;
  readonly corpus: CorpusViewConfigInput | undefined;
}

const KEYS = new Set([
  'maxReferences',
  'candidateLimit',
  'maxReferenceBytes',
  'reads',
  'root',
  'compression',
  'workers',
  'poolSize',
  'sourceCache',
  'corpus',
]);

/**
 * The schemastery schema a dsh Loader validates a profile's row with before the constructor runs (cordis applies
 * a plugin's `static Config`). Its bounds are the constructor's; the constructor still validates a direct `new`.
 */
export const dshResolverConfigSchema: Schema<DshResolverConfig> = Schema.object({
  maxReferences: Schema.natural().min(1).max(MAX_REFERENCES).default(MAX_REFERENCES).description('Distinct sessions one message may cite.'),
  candidateLimit: Schema.natural().min(1).default(DEFAULT_CANDIDATE_LIMIT).description('Default number of discovery candidates.'),
  maxReferenceBytes: Schema.natural().min(1).default(DEFAULT_MAX_REFERENCE_BYTES).description('UTF-8 budget of one source snapshot.'),
  reads: Schema.union([Schema.const('engine' as const), Schema.const('host' as const)]).description(
    "Read through sessionctx's engine (default when a root is known) or through the host's sessionQuery.",
  ),
  root: Schema.string().description("The JSONL session root (default: the host's JSONL persistence root)."),
  compression: Schema.union([Schema.const('zstd' as const), Schema.const('none' as const)]).description("The root's encoding."),
  workers: Schema.boolean().default(true).description('Run reads and folds on a worker pool.'),
  poolSize: Schema.natural().min(1).description('Worker threads.'),
  sourceCache: Schema.union([
    Schema.const(false as const),
    Schema.object({ maxBytes: Schema.natural(), directory: Schema.union([Schema.string(), Schema.const(null)]) }),
  ]).description('The incremental source cache (false: off).'),
  corpus: Schema.object({ watch: Schema.boolean(), revalidateMs: Schema.natural() }).description('The warm corpus view of discovery.'),
}) as unknown as Schema<DshResolverConfig>;

function invalid(message: string, cause?: unknown): SessionReferenceError {
  return new SessionReferenceError(
    'SESSION_REFERENCE_INVALID_CONFIG',
    `session-reference: ${message}`,
    cause === undefined ? undefined : { cause },
  );
}

/** Runs a resolver of another namespace and restates its failure in this plugin's voice. */
function restated<T>(key: string, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    throw invalid(`${key} is invalid: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

/**
 * Validates and resolves the plugin's configuration (dsh's keys first, with dsh's messages).
 * @throws SessionReferenceError `SESSION_REFERENCE_INVALID_CONFIG` naming the first bad key.
 */
export function resolveDshResolverConfig(input: unknown = {}): ResolvedDshResolverConfig {
  if (input === null || input === undefined) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) throw invalid('config must be an object');
  const config = input as Record<string, unknown>;
  const reference = resolveReferenceConfig({
    maxReferences: config.maxReferences,
    candidateLimit: config.candidateLimit,
    maxReferenceBytes: config.maxReferenceBytes,
  });
  for (const key of Object.keys(config)) if (!KEYS.has(key)) throw invalid(`unknown option ${JSON.stringify(key)}`);
  const { reads, root, compression, workers, poolSize, sourceCache, corpus } = config;
  if (reads !== undefined && reads !== 'engine' && reads !== 'host') throw invalid('reads must be "engine" or "host"');
  if (root !== undefined && (typeof root !== 'string' || root === '')) throw invalid('root must be a non-empty string');
  if (compression !== undefined && compression !== 'zstd' && compression !== 'none') {
    throw invalid('compression must be "zstd" or "none"');
  }
  if (workers !== undefined && typeof workers !== 'boolean') throw invalid('workers must be a boolean');
  if (poolSize !== undefined) restated('poolSize', () => resolvePoolConfig({ size: poolSize as number }));
  if (sourceCache !== undefined) restated('sourceCache', () => resolveSourceCacheConfig(sourceCache as SourceCacheConfigInput, {}));
  if (corpus !== undefined) restated('corpus', () => resolveCorpusViewConfig(corpus as CorpusViewConfigInput));
  return Object.freeze({
    reference,
    reads: reads as DshReads | undefined,
    root: root as string | undefined,
    compression: compression as Compression | undefined,
    workers: (workers as boolean | undefined) ?? true,
    poolSize: poolSize as number | undefined,
    sourceCache: sourceCache as SourceCacheConfigInput | undefined,
    corpus: corpus as CorpusViewConfigInput | undefined,
  });
}

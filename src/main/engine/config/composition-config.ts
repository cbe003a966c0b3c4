/**
 * The configuration of the `sessionctx` composition (issue 5) as one schema, {@link compositionKeys}: each key's
 * rule, default, `SESSIONCTX_*` environment variable and command-line flag, from which the type, the file's known
 * keys, the environment layer and every error text come. Values come from one file (`sessionctx.config.json` in the
 * working directory, or `--config F`), the environment and flags, resolved once with the source of every value.
 * Precedence: flag > environment > file > default. The reference keys use the reference service's own rules
 * (`reference/reference-config.ts`), so a value the composition accepts is one the service accepts.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import {
  booleanRule,
  firstConfigIssue,
  positiveSafeInteger,
  POSITIVE_SAFE_INTEGER_REASON,
  safeIntegerBetween,
} from '../../../protocol/config-schema.js';
import { assertNever } from '../../../protocol/assert-never.js';
import { resolveDcpConfig } from '../../../protocol/dcp/config.js';
import type { ResolvedDcpConfig } from '../../../protocol/dcp/config.js';
import { isRecord } from '../../../protocol/record-guard.js';
import { defaultPoolSize, maxPoolSize } from '../pool/pool-config.js';
import {
  DEFAULT_CANDIDATE_LIMIT,
  DEFAULT_MAX_REFERENCE_BYTES,
  MAX_REFERENCES,
  MAX_REFERENCES_CEILING_REASON,
  referenceKeyRules,
} from '../reference/reference-config.js';
import { DatabaseUrl } from '../fleet/database-url.js';
import { resolveCorpusIndexConfig, type CorpusIndexConfig } from '../fleet/corpus-index-config.js';
import { defaultSessionRoot } from '../store/store-config.js';
import { searchConfigSchema } from '../search/search-config.js';
import { readConfigFile } from './config-file.js';
import { SessionctxConfigError } from './config-error.js';
import { expandHome } from './home-path.js';

export { CONFIG_FILE_NAME } from './config-file.js';

/** Where a value came from. */
export type ConfigSource = 'default' | 'file' | 'env' | 'flag';

/** What the resolution needs from the process and the command line. */
export interface ConfigInputs {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** `--config F`; when given, the file must exist. */
  readonly configFile?: string;
  /** Values given as command-line flags (`undefined` values are ignored). */
  readonly flags?: Partial<Record<FlagKey, string | number | undefined>>;
}

/** One key of the composition's schema. */
interface CompositionKey<S extends z.ZodType> {
  /** Validates the key's value from any source; a string from the environment or a flag is a number's text. */
  readonly schema: S;
  readonly default: (inputs: ConfigInputs) => z.output<S>;
  /** The `SESSIONCTX_*` variable that sets it, if any. */
  readonly env?: string;
  /** The command-line flag that sets it, if any (named for the user, not after the key). */
  readonly flag?: string;
  /** Whether an error quotes the rejected value (`…, got "9"`). */
  readonly quotesValue: boolean;
}

function compositionKey<S extends z.ZodType>(spec: CompositionKey<S>): CompositionKey<S> {
  return spec;
}

/** A count from a file (a number), the environment or a flag (its text). */
function count<S extends z.ZodType>(rule: S): z.ZodPreprocess<S> {
  return z.preprocess((value: unknown) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value), rule);
}

const NON_EMPTY_PATH = 'must be a non-empty path';
const MCP_NAMESPACE_REASON = 'must be an object whose only key is "tools"';
const MCP_TOOLS_REASON = 'must be an object whose "tools" is a boolean';
const CORPUS_INDEX_NAMESPACE_REASON = 'must be an object';
const SERVE_NAMESPACE_REASON = 'must be an object whose only key is "port"';
const SERVE_PORT_REASON = 'must be an object whose "port" is a whole number from 0 to 65535';

/**
 * The `corpusIndex` namespace as the composition keeps it: the object as given, its `databaseUrl` held as a
 * {@link DatabaseUrl} so that `sessionctx config` (text or `--json`) and every log print it without its password. Its
 * rules are the fleet's own (`fleet/corpus-index-config.ts`), applied once in {@link ResolvedCompositionConfig.corpusIndex}.
 */
const corpusIndexNamespace = z
  .custom<Readonly<Record<string, unknown>>>(isRecord, { error: CORPUS_INDEX_NAMESPACE_REASON })
  .transform(
    (value): Readonly<Record<string, unknown>> =>
      typeof value['databaseUrl'] === 'string' ? { ...value, databaseUrl: new DatabaseUrl(value['databaseUrl']) } : value,
  );

/** The schema of the composition, keys in the order `sessionctx config` prints them. */
const compositionKeys = {
  /** The session root. */
  root: compositionKey({
    schema: z.string({ error: NON_EMPTY_PATH }).min(1, { error: NON_EMPTY_PATH }),
    default: (inputs) => defaultSessionRoot(inputs.env, inputs.cwd),
    env: 'SESSIONCTX_ROOT',
    flag: '--root',
    quotesValue: false,
  }),
  maxReferences: compositionKey({
    schema: count(referenceKeyRules.maxReferences.max(MAX_REFERENCES, { error: MAX_REFERENCES_CEILING_REASON })),
    default: () => MAX_REFERENCES,
    env: 'SESSIONCTX_MAX_REFERENCES',
    flag: '--max-references',
    quotesValue: true,
  }),
  maxReferenceBytes: compositionKey({
    schema: count(referenceKeyRules.maxReferenceBytes),
    default: () => DEFAULT_MAX_REFERENCE_BYTES,
    env: 'SESSIONCTX_MAX_REFERENCE_BYTES',
    flag: '--max-bytes',
    quotesValue: true,
  }),
  candidateLimit: compositionKey({
    schema: count(referenceKeyRules.candidateLimit),
    default: () => DEFAULT_CANDIDATE_LIMIT,
    env: 'SESSIONCTX_CANDIDATE_LIMIT',
    flag: '--limit',
    quotesValue: true,
  }),
  /** Worker threads of the stage pool, bounded by the machine. */
  poolSize: compositionKey({
    schema: count(
      positiveSafeInteger(POSITIVE_SAFE_INTEGER_REASON).refine((size) => size <= maxPoolSize(), {
        error: () => `must not exceed ${maxPoolSize()} (4 per core on this machine)`,
      }),
    ),
    default: () => defaultPoolSize(),
    env: 'SESSIONCTX_POOL_SIZE',
    quotesValue: true,
  }),
  /** DCP settings (namespace `dcp`, DCP.md §16): an object here; its rules are DCP's, applied once in {@link ResolvedCompositionConfig.dcp}. */
  dcp: compositionKey({
    schema: z.custom<Readonly<Record<string, unknown>>>(isRecord, { error: 'must be an object' }),
    default: () => ({}),
    quotesValue: false,
  }),
  /** The MCP server's settings (`sessionctx mcp`); `tools: false` serves resources and prompts only. */
  mcp: compositionKey({
    schema: z.strictObject({ tools: booleanRule(MCP_TOOLS_REASON).default(true) }, { error: MCP_NAMESPACE_REASON }),
    default: () => ({ tools: true }),
    quotesValue: false,
  }),
  /** Full-text search (issue 17, docs/SEARCH.md): the rules of `search/search-config.ts`, with their defaults. */
  search: compositionKey({
    schema: searchConfigSchema,
    default: () => searchConfigSchema.parse({}),
    quotesValue: false,
  }),
  /**
   * The corpus index (issue 29, README "Beyond one machine"): `backend` `sqlite` (default, nothing shared) or
   * `postgres` (this root published into a shared database, discovery over every published corpus), `databaseUrl`
   * (or `SESSIONCTX_DATABASE_URL`, which wins), `host` (the name this machine publishes under).
   */
  corpusIndex: compositionKey({
    schema: corpusIndexNamespace,
    default: () => ({}),
    quotesValue: false,
  }),
  /** The Web server's settings (`sessionctx serve`, docs/WEB.md); `port: 0` binds any free port, `--port` overrides it. */
  serve: compositionKey({
    schema: z.strictObject({ port: safeIntegerBetween(0, 65535, SERVE_PORT_REASON).default(0) }, { error: SERVE_NAMESPACE_REASON }),
    default: () => ({ port: 0 }),
    quotesValue: false,
  }),
} as const;

type CompositionKeys = typeof compositionKeys;
/** A key of the composition's configuration. */
export type CompositionConfigKey = keyof CompositionKeys;
type Key = CompositionConfigKey;
/** The keys a command-line flag (or a caller standing in for one) may set. */
type FlagKey = Exclude<Key, 'dcp' | 'mcp' | 'search' | 'serve' | 'corpusIndex'>;

/** The resolved configuration. */
export type CompositionConfig = { readonly [K in Key]: z.output<CompositionKeys[K]['schema']> };

/** A resolved configuration with the source of each key. */
export interface ResolvedCompositionConfig {
  readonly config: CompositionConfig;
  readonly sources: Readonly<Record<Key, ConfigSource>>;
  /** The file that was read, if any. */
  readonly file?: string;
  /**
   * The `dcp` namespace resolved by DCP's own rules (DCP.md §16), once, with the rest: every DCP use of this process
   * (`dcp` commands, the Web's and MCP's summaries) reads it, and an invalid one fails start-up (`DCP_CONFIG_INVALID`).
   */
  readonly dcp: ResolvedDcpConfig;
  /**
   * The `corpusIndex` namespace resolved by the fleet's rules, once, with the rest (the URL from
   * `SESSIONCTX_DATABASE_URL` or the file, held redacted): an invalid one fails start-up (`FLEET_INVALID_CONFIG`).
   */
  readonly corpusIndex: CorpusIndexConfig;
}

const KEYS = Object.keys(compositionKeys) as Key[];

function isKey(key: string): key is Key {
  return Object.hasOwn(compositionKeys, key);
}

function describeSource(source: ConfigSource, key: Key, file: string | undefined): string {
  const spec: CompositionKey<z.ZodType> = compositionKeys[key];
  switch (source) {
    case 'flag':
      return `flag ${spec.flag ?? key}`;
    case 'env':
      return `environment ${spec.env ?? key}`;
    case 'file':
      return `config file ${JSON.stringify(file)}`;
    case 'default':
      return 'default';
    default:
      return assertNever(source, 'unknown configuration source');
  }
}

/** Validates one value with its key's rule; the error names the key and where the value came from. */
function validated(key: Key, value: unknown, where: string): unknown {
  const spec: CompositionKey<z.ZodType> = compositionKeys[key];
  const parsed = spec.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const { reason } = firstConfigIssue(parsed.error);
  throw new SessionctxConfigError(`${key} from ${where} ${reason}${spec.quotesValue ? `, got ${JSON.stringify(value)}` : ''}`);
}

/**
 * Resolves the configuration once.
 * @param inputs - the working directory, the environment, `--config` and the flags.
 * @returns the frozen configuration and the source of each key.
 * @throws SessionctxConfigError `SESSIONCTX_INVALID_CONFIG` for any bad value, naming its key and source.
 */
export async function resolveCompositionConfig(inputs: ConfigInputs): Promise<ResolvedCompositionConfig> {
  const file = await readConfigFile({ cwd: inputs.cwd, env: inputs.env, configFile: inputs.configFile, knownKeys: KEYS });
  const config: Record<string, unknown> = Object.fromEntries(KEYS.map((key) => [key, compositionKeys[key].default(inputs)]));
  const sources = Object.fromEntries(KEYS.map((key) => [key, 'default'])) as Record<Key, ConfigSource>;
  const environment = KEYS.flatMap((key): Array<[string, unknown]> => {
    const name = (compositionKeys[key] as CompositionKey<z.ZodType>).env;
    const value = name === undefined ? undefined : inputs.env[name];
    return value !== undefined && value !== '' ? [[key, value]] : [];
  });
  const layers: Array<[ConfigSource, Array<[string, unknown]>]> = [
    ...(file !== undefined ? [['file', Object.entries(file.values)] as [ConfigSource, Array<[string, unknown]>]] : []),
    ['env', environment],
    ['flag', Object.entries(inputs.flags ?? {}).filter(([, value]) => value !== undefined)],
  ];
  for (const [source, values] of layers) {
    for (const [key, value] of values) {
      // The file's keys were checked by readConfigFile; the others come from the key table.
      if (!isKey(key)) continue;
      const checked = validated(key, value, describeSource(source, key, file?.path));
      if (key === 'root') {
        // A root in the file is relative to the file; from the environment or a flag, to the working directory.
        const relativeTo = source === 'file' && file !== undefined ? join(file.path, '..') : inputs.cwd;
        const expanded = expandHome(checked as string, inputs.env);
        config.root = isAbsolute(expanded) ? expanded : resolve(relativeTo, expanded);
      } else if (key === 'dcp' || key === 'mcp' || key === 'search' || key === 'serve' || key === 'corpusIndex') {
        config[key] = Object.freeze({ ...(checked as Record<string, unknown>) });
      } else {
        config[key] = checked;
      }
      sources[key] = source;
    }
  }
  const frozen = Object.freeze(config) as CompositionConfig;
  return {
    // Every key was set from its default and replaced only by a value its rule accepted.
    config: frozen,
    sources: Object.freeze(sources),
    dcp: resolveDcpConfig(frozen.dcp),
    corpusIndex: resolveCorpusIndexConfig(revealed(frozen.corpusIndex), inputs.env),
    ...(file !== undefined ? { file: file.path } : {}),
  };
}

/** The namespace as the fleet's rules read it: the URL's text back in place of its redacted holder. */
function revealed(namespace: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const url = namespace['databaseUrl'];
  return url instanceof DatabaseUrl ? { ...namespace, databaseUrl: url.reveal() } : namespace;
}

/**
 * Every key at its default, nothing read (no file, no environment layer): what a help text falls back to when the
 * configuration cannot be resolved.
 * @param inputs - the working directory and the environment the defaults depend on (the root's).
 */
export function defaultCompositionConfig(inputs: Pick<ConfigInputs, 'cwd' | 'env'>): ResolvedCompositionConfig {
  const config = Object.fromEntries(KEYS.map((key) => [key, compositionKeys[key].default(inputs)]));
  const sources = Object.fromEntries(KEYS.map((key) => [key, 'default']));
  return {
    config: Object.freeze(config) as CompositionConfig,
    sources: Object.freeze(sources) as Record<Key, ConfigSource>,
    dcp: resolveDcpConfig(undefined),
    corpusIndex: { backend: 'sqlite' },
  };
}

/**
 * Where one key's resolved value came from, as `sessionctx config` says it: `default`, `config file "…"`,
 * `environment SESSIONCTX_…`, `flag --…`.
 * @param resolved - a resolved configuration.
 * @param key - the key.
 */
export function describeConfigSource(resolved: ResolvedCompositionConfig, key: Key): string {
  return describeSource(resolved.sources[key], key, resolved.file);
}

/**
 * One line per key: `key = value (source)`.
 * @param resolved - a resolved configuration.
 */
export function describeConfig(resolved: ResolvedCompositionConfig): string[] {
  return KEYS.map((key) => {
    const source = describeSource(resolved.sources[key], key, resolved.file);
    // The corpus index as resolved (the backend and URL variables applied, the URL redacted), not only the file's object.
    const value = key === 'corpusIndex' ? resolved.corpusIndex : resolved.config[key];
    return `${key} = ${JSON.stringify(value)}  (${source})`;
  });
}

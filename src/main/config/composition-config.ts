/**
 * The configuration of the `sessionctx` composition (issue 5): one file
 * (`sessionctx.config.json` in the working directory, or `--config F`), `SESSIONCTX_*`
 * environment overrides and command-line flags, resolved once with the source of every value.
 * Precedence: flag > environment > file > default.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES, MAX_REFERENCES } from '../reference/reference-config.js';
import { defaultSessionRoot } from '../store/store-config.js';
import { SessionctxConfigError } from './config-error.js';
import { expandHome } from './home-path.js';
import { defaultPoolSize, maxPoolSize } from '../pool/pool-config.js';

/** The name of the configuration file looked up in the working directory. */
export const CONFIG_FILE_NAME = 'sessionctx.config.json';

/** Where a value came from. */
export type ConfigSource = 'default' | 'file' | 'env' | 'flag';

/** The resolved configuration. */
export interface CompositionConfig {
  /** The session root. */
  readonly root: string;
  readonly maxReferences: number;
  readonly maxReferenceBytes: number;
  readonly candidateLimit: number;
  /** Worker threads of the stage pool. */
  readonly poolSize: number;
  /** DCP settings (namespace `dcp`, DCP.md §16), passed to the DCP service, which validates them. */
  readonly dcp: Readonly<Record<string, unknown>>;
}

/** A resolved configuration with the source of each key. */
export interface ResolvedCompositionConfig {
  readonly config: CompositionConfig;
  readonly sources: Readonly<Record<keyof CompositionConfig, ConfigSource>>;
  /** The file that was read, if any. */
  readonly file?: string;
}

/** What the resolution needs from the process and the command line. */
export interface ConfigInputs {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** `--config F`; when given, the file must exist. */
  readonly configFile?: string;
  /** Values given as command-line flags. */
  readonly flags?: Partial<Record<'root' | 'maxReferences' | 'maxReferenceBytes' | 'candidateLimit' | 'poolSize', string | number>>;
}

type NumericKey = 'maxReferences' | 'maxReferenceBytes' | 'candidateLimit' | 'poolSize';

const ENV_NAMES: Record<'root' | NumericKey, string> = {
  root: 'SESSIONCTX_ROOT',
  maxReferences: 'SESSIONCTX_MAX_REFERENCES',
  maxReferenceBytes: 'SESSIONCTX_MAX_REFERENCE_BYTES',
  candidateLimit: 'SESSIONCTX_CANDIDATE_LIMIT',
  poolSize: 'SESSIONCTX_POOL_SIZE',
};

const FILE_KEYS = new Set(['root', 'maxReferences', 'maxReferenceBytes', 'candidateLimit', 'poolSize', 'dcp']);

function defaults(inputs: ConfigInputs): CompositionConfig {
  return {
    root: defaultSessionRoot(inputs.env, inputs.cwd),
    maxReferences: MAX_REFERENCES,
    maxReferenceBytes: DEFAULT_MAX_REFERENCE_BYTES,
    candidateLimit: DEFAULT_CANDIDATE_LIMIT,
    poolSize: defaultPoolSize(),
    dcp: {},
  };
}

async function readConfigFile(inputs: ConfigInputs): Promise<{ path: string; values: Record<string, unknown> } | undefined> {
  const explicit = inputs.configFile !== undefined;
  const path = explicit ? resolve(inputs.cwd, expandHome(inputs.configFile as string, inputs.env)) : join(inputs.cwd, CONFIG_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (!explicit && (error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw new SessionctxConfigError(`cannot read config file ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    throw new SessionctxConfigError(`config file ${JSON.stringify(path)} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new SessionctxConfigError(`config file ${JSON.stringify(path)} must hold a JSON object`);
  }
  const unknown = Object.keys(values).filter((key) => !FILE_KEYS.has(key));
  if (unknown.length > 0) {
    throw new SessionctxConfigError(`config file ${JSON.stringify(path)} has unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => JSON.stringify(key)).join(', ')}; known: ${[...FILE_KEYS].join(', ')}`);
  }
  return { path, values: values as Record<string, unknown> };
}

/** The command-line flag of each key that has one (the flags are named for the user, not after the keys). */
const FLAG_NAMES: Partial<Record<keyof CompositionConfig, string>> = {
  root: '--root',
  maxReferences: '--max-references',
  maxReferenceBytes: '--max-bytes',
  candidateLimit: '--limit',
};

function describeSource(source: ConfigSource, key: string, file: string | undefined): string {
  switch (source) {
    case 'flag':
      return `flag ${FLAG_NAMES[key as keyof CompositionConfig] ?? key}`;
    case 'env':
      return `environment ${ENV_NAMES[key as 'root' | NumericKey]}`;
    case 'file':
      return `config file ${JSON.stringify(file)}`;
    case 'default':
      return 'default';
    default: {
      const unreachable: never = source;
      return String(unreachable);
    }
  }
}

function positiveInteger(key: NumericKey, value: unknown, where: string): number {
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (!Number.isSafeInteger(parsed) || (parsed as number) <= 0) {
    throw new SessionctxConfigError(`${key} from ${where} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  if (key === 'poolSize' && (parsed as number) > maxPoolSize()) {
    throw new SessionctxConfigError(`poolSize from ${where} must not exceed ${maxPoolSize()} (4 per core on this machine), got ${JSON.stringify(value)}`);
  }
  if (key === 'maxReferences' && (parsed as number) > MAX_REFERENCES) {
    throw new SessionctxConfigError(`maxReferences from ${where} must not exceed ${MAX_REFERENCES}, got ${JSON.stringify(value)}`);
  }
  return parsed as number;
}

/** Resolves the configuration once; any bad value fails loudly, naming its key and source. */
export async function resolveCompositionConfig(inputs: ConfigInputs): Promise<ResolvedCompositionConfig> {
  const base = defaults(inputs);
  const file = await readConfigFile(inputs);
  const config: Record<string, unknown> = { ...base };
  const sources: Record<string, ConfigSource> = Object.fromEntries(Object.keys(base).map((key) => [key, 'default']));
  const layers: Array<[ConfigSource, Record<string, unknown>]> = [];
  if (file !== undefined) layers.push(['file', file.values]);
  layers.push(['env', Object.fromEntries(Object.entries(ENV_NAMES).flatMap(([key, name]) => (inputs.env[name] !== undefined && inputs.env[name] !== '' ? [[key, inputs.env[name]]] : [])))]);
  layers.push(['flag', Object.fromEntries(Object.entries(inputs.flags ?? {}).filter(([, value]) => value !== undefined))]);
  for (const [source, values] of layers) {
    for (const [key, value] of Object.entries(values)) {
      const where = describeSource(source, key, file?.path);
      if (key === 'root') {
        if (typeof value !== 'string' || value === '') throw new SessionctxConfigError(`root from ${where} must be a non-empty path`);
        const relativeTo = source === 'file' && file !== undefined ? join(file.path, '..') : inputs.cwd;
        const expanded = expandHome(value, inputs.env);
        config.root = isAbsolute(expanded) ? expanded : resolve(relativeTo, expanded);
      } else if (key === 'dcp') {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SessionctxConfigError(`dcp from ${where} must be an object`);
        config.dcp = Object.freeze({ ...(value as Record<string, unknown>) });
      } else {
        config[key] = positiveInteger(key as NumericKey, value, where);
      }
      sources[key] = source;
    }
  }
  return {
    config: Object.freeze(config as unknown as CompositionConfig),
    sources: Object.freeze(sources as Record<keyof CompositionConfig, ConfigSource>),
    ...(file !== undefined ? { file: file.path } : {}),
  };
}

/** One line per key: `key = value (source)`. */
export function describeConfig(resolved: ResolvedCompositionConfig): string[] {
  return (Object.keys(resolved.config) as Array<keyof CompositionConfig>).map(
    (key) => `${key} = ${JSON.stringify(resolved.config[key])}  (${describeSource(resolved.sources[key], key, resolved.file)})`,
  );
}

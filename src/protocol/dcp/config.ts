/**
 * The `dcp` configuration namespace (DCP.md §16): its schema with defaults, validation with `dcp config: <key>
 * <reason>` errors, and one warning listing every unknown dotted key. The result is deep-frozen.
 */
import { isRecord } from '../events.js';
import { deepFreeze } from '../deep-freeze.js';
import { DcpConfigError } from './config-error.js';

/** Where the automatic strategies run (§8.1 rule 5). */
export type StrategiesRunAt = 'turn-start' | 'every-step' | 'with-compress';

/** The validated `dcp` configuration. */
export interface DcpConfig {
  readonly enabled: boolean;
  readonly debug: boolean;
  readonly compress: {
    readonly enabled: boolean;
    readonly mode: 'range';
    readonly maxRangesPerCall: number;
    readonly minNetSavingsTokens: number;
    readonly retainRecentTurns: number;
    readonly protectUserMessages: boolean;
    readonly protectTags: boolean;
    readonly protectedTools: readonly string[];
    readonly protectedSources: readonly string[];
  };
  readonly references: {
    readonly transport: 'marker';
    readonly maxAliasEntries: number;
    readonly hintCount: number;
    readonly excerptChars: number;
  };
  readonly nudge: {
    readonly enabled: boolean;
    readonly maxRatio: number;
    readonly minRatio: number;
    readonly frequencySteps: number;
    readonly iterationThreshold: number;
  };
  readonly manualMode: {
    readonly default: boolean;
    readonly automaticStrategies: boolean;
  };
  readonly strategies: {
    readonly runAt: StrategiesRunAt;
    readonly deduplication: { readonly enabled: boolean; readonly protectedTools: readonly string[] };
    readonly purgeErrors: { readonly enabled: boolean; readonly turns: number; readonly protectedTools: readonly string[] };
  };
  readonly protectedFilePatterns: readonly string[];
  readonly expansion: { readonly maxWindowRatio: number; readonly maxTokens: number };
  readonly stats: { readonly invalidationHistory: number };
  readonly subagents: { readonly enableCompressionInChild: false; readonly readChildSession: false };
}

/** A resolved configuration and its warnings (at most one: the unknown-key warning). */
export interface ResolvedDcpConfig {
  readonly config: DcpConfig;
  readonly warnings: readonly string[];
}

/** Maximum entries of every string list. */
const MAX_LIST_ENTRIES = 64;

/** How one leaf key is checked. `check` returns the reason of a bad value, or `undefined`. */
interface LeafSpec {
  readonly path: string;
  readonly defaultValue: () => unknown;
  readonly check: (value: unknown, resolved: ReadonlyMap<string, unknown>) => string | undefined;
}

function booleanCheck(value: unknown): string | undefined {
  return typeof value === 'boolean' ? undefined : 'must be a boolean';
}

function integerCheck(min: number, max?: number): (value: unknown) => string | undefined {
  return (value) => {
    const ok = Number.isSafeInteger(value) && (value as number) >= min && (max === undefined || (value as number) <= max);
    if (ok) return undefined;
    return max === undefined ? `must be an integer >= ${min}` : `must be an integer between ${min} and ${max}`;
  };
}

function unitRatioCheck(value: unknown): string | undefined {
  return typeof value === 'number' && value > 0 && value <= 1 ? undefined : 'must be a number > 0 and <= 1';
}

function minRatioCheck(value: unknown, resolved: ReadonlyMap<string, unknown>): string | undefined {
  const maxRatio = resolved.get('nudge.maxRatio') as number;
  return typeof value === 'number' && value >= 0 && value < maxRatio ? undefined : `must be a number >= 0 and < nudge.maxRatio (${maxRatio})`;
}

function stringListCheck(value: unknown): string | undefined {
  const ok = Array.isArray(value) && value.length <= MAX_LIST_ENTRIES && Array.from(value).every((item) => typeof item === 'string');
  return ok ? undefined : `must be an array of at most ${MAX_LIST_ENTRIES} strings`;
}

/** A value the spec knows but v1 does not support (`'message'`, `'context-tool'`, subagent flags). */
function onlyValueCheck(only: string, deferred: string): (value: unknown) => string | undefined {
  return (value) => (value === only ? undefined : value === deferred ? 'unsupported in v1' : `must be '${only}'`);
}

function mustBeFalseCheck(value: unknown): string | undefined {
  return value === false ? undefined : value === true ? 'unsupported in v1' : 'must be a boolean';
}

function runAtCheck(value: unknown): string | undefined {
  return value === 'turn-start' || value === 'every-step' || value === 'with-compress'
    ? undefined
    : "must be one of 'turn-start', 'every-step', 'with-compress'";
}

function leaf(path: string, defaultValue: unknown, check: LeafSpec['check']): LeafSpec {
  return { path, defaultValue: () => (Array.isArray(defaultValue) ? [...defaultValue] : defaultValue), check };
}

/** The §16 table, in validation order (`nudge.maxRatio` before `nudge.minRatio`, which depends on it). */
const LEAVES: readonly LeafSpec[] = [
  leaf('enabled', true, booleanCheck),
  leaf('debug', false, booleanCheck),
  leaf('compress.enabled', true, booleanCheck),
  leaf('compress.mode', 'range', onlyValueCheck('range', 'message')),
  leaf('compress.maxRangesPerCall', 3, integerCheck(1)),
  leaf('compress.minNetSavingsTokens', 256, integerCheck(1)),
  leaf('compress.retainRecentTurns', 2, integerCheck(1)),
  leaf('compress.protectUserMessages', false, booleanCheck),
  leaf('compress.protectTags', true, booleanCheck),
  leaf('compress.protectedTools', ['subagent', 'skill', 'todo_write'], stringListCheck),
  leaf('compress.protectedSources', ['subagent-report', 'subagent-settled'], stringListCheck),
  leaf('references.transport', 'marker', onlyValueCheck('marker', 'context-tool')),
  leaf('references.maxAliasEntries', 32, integerCheck(0)),
  leaf('references.hintCount', 3, integerCheck(0, 16)),
  leaf('references.excerptChars', 80, integerCheck(1)),
  leaf('nudge.enabled', true, booleanCheck),
  leaf('nudge.maxRatio', 0.8, unitRatioCheck),
  leaf('nudge.minRatio', 0.6, minRatioCheck),
  leaf('nudge.frequencySteps', 8, integerCheck(1)),
  leaf('nudge.iterationThreshold', 12, integerCheck(1)),
  leaf('manualMode.default', false, booleanCheck),
  leaf('manualMode.automaticStrategies', false, booleanCheck),
  leaf('strategies.runAt', 'turn-start', runAtCheck),
  leaf('strategies.deduplication.enabled', true, booleanCheck),
  leaf('strategies.deduplication.protectedTools', [], stringListCheck),
  leaf('strategies.purgeErrors.enabled', false, booleanCheck),
  leaf('strategies.purgeErrors.turns', 4, integerCheck(1)),
  leaf('strategies.purgeErrors.protectedTools', [], stringListCheck),
  leaf('protectedFilePatterns', [], stringListCheck),
  leaf('expansion.maxWindowRatio', 0.25, unitRatioCheck),
  leaf('expansion.maxTokens', 32000, integerCheck(1)),
  leaf('stats.invalidationHistory', 10, integerCheck(0, 100)),
  leaf('subagents.enableCompressionInChild', false, mustBeFalseCheck),
  leaf('subagents.readChildSession', false, mustBeFalseCheck),
];

const LEAF_PATHS: ReadonlySet<string> = new Set(LEAVES.map((spec) => spec.path));

/** Every object-valued key (`compress`, `strategies.deduplication`, …). */
const GROUP_PATHS: ReadonlySet<string> = new Set(
  LEAVES.flatMap((spec) => {
    const parts = spec.path.split('.');
    return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('.'));
  }),
);

/**
 * Walks the raw namespace: collects present leaf values (an `undefined` value counts as absent) and unknown dotted
 * keys in input order; a group that is present but not an object is an error.
 */
function collect(raw: Record<string, unknown>, prefix: string, values: Map<string, unknown>, unknown: string[]): void {
  for (const key of Object.keys(raw)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const value = raw[key];
    if (LEAF_PATHS.has(path)) {
      if (value !== undefined) values.set(path, value);
    } else if (GROUP_PATHS.has(path)) {
      if (value === undefined) continue;
      if (!isRecord(value)) throw new DcpConfigError(path, 'must be an object');
      collect(value, path, values, unknown);
    } else {
      unknown.push(path);
    }
  }
}

/** Places a dotted-path value into a nested object. */
function place(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const child = node[part];
    if (isRecord(child)) {
      node = child;
    } else {
      const created: Record<string, unknown> = {};
      node[part] = created;
      node = created;
    }
  }
  node[parts.at(-1)!] = value;
}

/**
 * Validates the `dcp` namespace. `undefined` means "not configured" (all defaults). Throws {@link DcpConfigError}
 * for the first invalid value in table order; unknown keys give one warning listing all of them. Nothing is
 * logged here: the caller logs the warnings.
 */
export function resolveDcpConfig(raw: unknown): ResolvedDcpConfig {
  if (raw !== undefined && !isRecord(raw)) throw new DcpConfigError('dcp', 'must be an object');
  const values = new Map<string, unknown>();
  const unknownKeys: string[] = [];
  if (raw !== undefined) collect(raw, '', values, unknownKeys);
  const resolved = new Map<string, unknown>();
  const config: Record<string, unknown> = {};
  for (const spec of LEAVES) {
    const value = values.has(spec.path) ? values.get(spec.path) : spec.defaultValue();
    const reason = spec.check(value, resolved);
    if (reason !== undefined) throw new DcpConfigError(spec.path, reason);
    // Lists are copied so that freezing the result never freezes the caller's arrays.
    const stored = Array.isArray(value) ? [...(value as unknown[])] : value;
    resolved.set(spec.path, stored);
    place(config, spec.path, stored);
  }
  const warnings = unknownKeys.length > 0 ? [`dcp config: unknown keys ignored: ${unknownKeys.join(', ')}`] : [];
  return deepFreeze({ config: config as unknown as DcpConfig, warnings });
}

/** The default configuration (deep-frozen). */
export function defaultDcpConfig(): DcpConfig {
  return resolveDcpConfig(undefined).config;
}

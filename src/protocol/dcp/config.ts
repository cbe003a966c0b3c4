/**
 * The `dcp` configuration namespace (DCP.md §16) as one schema: the {@link DcpConfig} type, the defaults and every
 * rule with its `dcp config: <key> <reason>` text come from {@link dcpConfigSchema}; keys the schema does not know
 * give one warning listing every unknown dotted key. The result is deep-frozen.
 */
import { z } from 'zod';
import { booleanRule, safeIntegerAtLeast, safeIntegerBetween } from '../config-schema.js';
import { deepFreeze } from '../deep-freeze.js';
import { isRecord } from '../events.js';
import { DcpConfigError } from './config-error.js';

/** Maximum entries of every string list. */
const MAX_LIST_ENTRIES = 64;

const BOOLEAN = 'must be a boolean';

function flag(defaultValue: boolean) {
  return booleanRule(BOOLEAN).default(defaultValue);
}

function integerAtLeast(min: number, defaultValue: number) {
  return safeIntegerAtLeast(min, `must be an integer >= ${min}`).default(defaultValue);
}

function integerBetween(min: number, max: number, defaultValue: number) {
  return safeIntegerBetween(min, max, `must be an integer between ${min} and ${max}`).default(defaultValue);
}

const UNIT_RATIO_REASON = 'must be a number > 0 and <= 1';
const UNIT_RATIO = z.number({ error: UNIT_RATIO_REASON }).gt(0, { error: UNIT_RATIO_REASON }).lte(1, { error: UNIT_RATIO_REASON });

function unitRatio(defaultValue: number) {
  return UNIT_RATIO.default(defaultValue);
}

function stringList(defaultValue: readonly string[]) {
  const reason = `must be an array of at most ${MAX_LIST_ENTRIES} strings`;
  return z
    .array(z.string({ error: reason }), { error: reason })
    .max(MAX_LIST_ENTRIES, { error: reason })
    .default(() => [...defaultValue]);
}

/** A value the spec knows but v1 does not support (`'message'`, `'context-tool'`): only `only` is accepted. */
function onlyValue<const T extends string>(only: T, deferred: string) {
  return z.literal(only, { error: (issue) => (issue.input === deferred ? 'unsupported in v1' : `must be '${only}'`) }).default(only);
}

/** A subagent flag: only `false` in v1. */
function mustBeFalse() {
  return z.literal(false, { error: (issue) => (issue.input === true ? 'unsupported in v1' : BOOLEAN) }).default(false);
}

/** An object-valued key: absent, it is its keys' defaults. */
function group<T extends z.ZodRawShape>(shape: T) {
  return withDefaults(z.object(shape));
}

function withDefaults<T extends z.ZodRawShape>(object: z.ZodObject<T>) {
  // Every key of a group has a default, so `{}` is a complete input; zod's input type cannot know that for any T.
  return object.prefault({} as z.input<z.ZodObject<T>>);
}

const RUN_AT = ['turn-start', 'every-step', 'with-compress'] as const;

/**
 * The §16 table, in validation order: the first key that fails, in this order, is reported. `nudge.minRatio` depends
 * on `nudge.maxRatio`, so its rule is the `nudge` group's refinement, reported in `minRatio`'s place.
 */
const dcpConfigSchema = z.object({
  enabled: flag(true),
  debug: flag(false),
  compress: group({
    enabled: flag(true),
    mode: onlyValue('range', 'message'),
    maxRangesPerCall: integerAtLeast(1, 3),
    minNetSavingsTokens: integerAtLeast(1, 256),
    retainRecentTurns: integerAtLeast(1, 2),
    protectUserMessages: flag(false),
    protectTags: flag(true),
    protectedTools: stringList(['subagent', 'skill', 'todo_write']),
    protectedSources: stringList(['subagent-report', 'subagent-settled']),
  }),
  references: group({
    transport: onlyValue('marker', 'context-tool'),
    maxAliasEntries: integerAtLeast(0, 32),
    hintCount: integerBetween(0, 16, 3),
    excerptChars: integerAtLeast(1, 80),
  }),
  nudge: withDefaults(
    z
      .object({
        enabled: flag(true),
        maxRatio: unitRatio(0.8),
        // Checked by the group's refinement below, which knows maxRatio.
        minRatio: z.custom<number>(() => true).default(0.6),
        frequencySteps: integerAtLeast(1, 8),
        iterationThreshold: integerAtLeast(1, 12),
      })
      .refine(({ minRatio, maxRatio }) => typeof minRatio === 'number' && minRatio >= 0 && minRatio < maxRatio, {
        path: ['minRatio'],
        error: (issue) => `must be a number >= 0 and < nudge.maxRatio (${String((issue.input as { maxRatio: unknown }).maxRatio)})`,
        // Runs whatever else in the group failed (the report picks the first key in table order), but only over a
        // valid maxRatio: an invalid one is reported first, in its own place.
        when: (payload) => isRecord(payload.value) && UNIT_RATIO.safeParse(payload.value.maxRatio).success,
      }),
  ),
  manualMode: group({
    default: flag(false),
    automaticStrategies: flag(false),
  }),
  strategies: group({
    runAt: z.enum(RUN_AT, { error: `must be one of ${RUN_AT.map((value) => `'${value}'`).join(', ')}` }).default('turn-start'),
    deduplication: group({ enabled: flag(true), protectedTools: stringList([]) }),
    purgeErrors: group({ enabled: flag(false), turns: integerAtLeast(1, 4), protectedTools: stringList([]) }),
  }),
  protectedFilePatterns: stringList([]),
  expansion: group({ maxWindowRatio: unitRatio(0.25), maxTokens: integerAtLeast(1, 32000) }),
  stats: group({ invalidationHistory: integerBetween(0, 100, 10) }),
  subagents: group({ enableCompressionInChild: mustBeFalse(), readChildSession: mustBeFalse() }),
});

/** Deeply readonly, as the resolved configuration is deep-frozen. */
type DeepReadonly<T> = T extends readonly (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The validated `dcp` configuration. */
export type DcpConfig = DeepReadonly<z.output<typeof dcpConfigSchema>>;

/** A resolved configuration and its warnings (at most one: the unknown-key warning). */
export interface ResolvedDcpConfig {
  readonly config: DcpConfig;
  readonly warnings: readonly string[];
}

/** The keys of an object-valued schema (a group, with or without its default), or `undefined` for a leaf. */
function shapeOf(schema: z.ZodType): Readonly<Record<string, z.ZodType>> | undefined {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodPrefault || schema instanceof z.ZodDefault) return shapeOf(schema.def.innerType as z.ZodType);
  return undefined;
}

/** Every leaf's dotted key, in the schema's (validation) order. */
function leafKeys(shape: Readonly<Record<string, z.ZodType>>, prefix = ''): string[] {
  return Object.entries(shape).flatMap(([key, schema]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const inner = shapeOf(schema);
    return inner === undefined ? [path] : leafKeys(inner, path);
  });
}

const LEAF_KEYS: readonly string[] = Object.freeze(leafKeys(dcpConfigSchema.shape));

/** Every dotted key of the §16 table, in validation order (other schemas of the namespace are checked against it). */
export function dcpConfigKeys(): readonly string[] {
  return LEAF_KEYS;
}

/**
 * Walks the raw namespace along the schema, in input order: collects unknown dotted keys; a group that is present
 * but not an object is an error (reported before any leaf, as a malformed namespace). An `undefined` value counts
 * as absent.
 */
function collectUnknownKeys(
  raw: Readonly<Record<string, unknown>>,
  shape: Readonly<Record<string, z.ZodType>>,
  prefix: string,
  unknown: string[],
): void {
  for (const key of Object.keys(raw)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const schema = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (schema === undefined) {
      unknown.push(path);
      continue;
    }
    const inner = shapeOf(schema);
    const value = raw[key];
    if (inner === undefined || value === undefined) continue;
    if (!isRecord(value)) throw new DcpConfigError(path, 'must be an object');
    collectUnknownKeys(value, inner, path, unknown);
  }
}

/** The first failure in table order: the leaf whose key starts the issue's path (a list's item reports its list). */
function firstInTableOrder(error: z.ZodError): DcpConfigError {
  let best: { index: number; key: string; reason: string } | undefined;
  for (const issue of error.issues) {
    const path = issue.path.map(String);
    const index = LEAF_KEYS.findIndex((key) => {
      const parts = key.split('.');
      return parts.every((part, at) => path[at] === part);
    });
    if (index === -1) continue;
    if (best === undefined || index < best.index) best = { index, key: LEAF_KEYS[index]!, reason: issue.message };
  }
  // Groups were checked by the walk, so every issue names a leaf; anything else is reported as the namespace's.
  if (best === undefined) return new DcpConfigError('dcp', error.issues[0]?.message ?? 'is invalid');
  return new DcpConfigError(best.key, best.reason);
}

/**
 * Validates the `dcp` namespace. `undefined` means "not configured" (all defaults). Nothing is logged here: the
 * caller logs the warnings.
 * @param raw - the namespace as configured.
 * @returns the deep-frozen configuration (lists copied, so the caller's arrays stay unfrozen) and its warnings.
 * @throws DcpConfigError `DCP_CONFIG_INVALID` for the first invalid value in table order.
 */
export function resolveDcpConfig(raw: unknown): ResolvedDcpConfig {
  if (raw !== undefined && !isRecord(raw)) throw new DcpConfigError('dcp', 'must be an object');
  const unknownKeys: string[] = [];
  if (raw !== undefined) collectUnknownKeys(raw, dcpConfigSchema.shape, '', unknownKeys);
  const parsed = dcpConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) throw firstInTableOrder(parsed.error);
  const warnings = unknownKeys.length > 0 ? [`dcp config: unknown keys ignored: ${unknownKeys.join(', ')}`] : [];
  return deepFreeze({ config: parsed.data as DcpConfig, warnings });
}

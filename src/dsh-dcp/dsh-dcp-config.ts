/**
 * The `dcp` namespace of `sessionctx/dsh-dcp` (docs/DSH-DCP.md §5, DCP.md §16): the plugin's configuration is the
 * namespace itself, as dsh-dcp's row takes it. The schemastery {@link dshDcpConfigSchema} (cordis applies a plugin's
 * `Config` before the plugin runs) declares every key with its JSON type, its default and a description, for dsh's
 * settings UI; every rule beyond the type — bounds, the values v1 refuses, `minRatio < maxRatio` — is checked by
 * DCP's own resolution when the plugin starts, in DCP's voice (`dcp config: <key> <reason>`), and keys the table does
 * not know give one warning.
 */
import Schema from '@deepseek-ai/schemastery';
import type { DcpConfig } from '../protocol/dcp/config.js';
import { resolveDcpConfig } from '../protocol/dcp/config.js';

/** The configuration a dsh profile writes: any subset of DCP.md §16's keys (nested as in the table). */
export type DshDcpConfig = Readonly<Record<string, unknown>>;

/** The defaults of the §16 table, from DCP's own resolution (one source of truth). */
const DEFAULTS: DcpConfig = resolveDcpConfig(undefined).config;

const flag = (value: boolean, description: string) => Schema.boolean().default(value).description(description);
const count = (value: number, description: string) => Schema.natural().default(value).description(description);
const ratio = (value: number, description: string) => Schema.number().default(value).description(description);
const names = (value: readonly string[], description: string) =>
  Schema.array(Schema.string())
    .default([...value])
    .description(description);
const word = (value: string, description: string) => Schema.string().default(value).description(description);

/**
 * The schemastery `Config` of the plugin: the §16 table, types and defaults only (DCP checks the rules). Its keys are
 * exactly DCP's (`test/dsh-dcp/dsh-dcp-config.test.ts`).
 */
export const dshDcpConfigSchema: Schema<DshDcpConfig> = Schema.object({
  enabled: flag(DEFAULTS.enabled, 'Mount DCP (false: nothing is registered).'),
  debug: flag(DEFAULTS.debug, 'Debug logging.'),
  compress: Schema.object({
    enabled: flag(DEFAULTS.compress.enabled, 'Register the compress tool, boundary markers and nudges.'),
    mode: word(DEFAULTS.compress.mode, "Only 'range' in v1."),
    maxRangesPerCall: count(DEFAULTS.compress.maxRangesPerCall, 'Ranges one compress call may carry (>= 1).'),
    minNetSavingsTokens: count(DEFAULTS.compress.minNetSavingsTokens, 'Smallest saving a range must reach (>= 1).'),
    retainRecentTurns: count(DEFAULTS.compress.retainRecentTurns, 'Recent turns never compressed (>= 1).'),
    protectUserMessages: flag(DEFAULTS.compress.protectUserMessages, 'Copy user messages verbatim after a summary.'),
    protectTags: flag(DEFAULTS.compress.protectTags, 'Copy <protect> bodies verbatim after a summary.'),
    protectedTools: names(DEFAULTS.compress.protectedTools, 'Tools whose outputs are copied verbatim (<= 64).'),
    protectedSources: names(DEFAULTS.compress.protectedSources, 'Message source kinds or forms copied verbatim (<= 64).'),
  }),
  references: Schema.object({
    transport: word(DEFAULTS.references.transport, "Only 'marker' in v1."),
    maxAliasEntries: count(DEFAULTS.references.maxAliasEntries, 'Alias lines per marker.'),
    hintCount: count(DEFAULTS.references.hintCount, 'Nearest valid cuts named per side (0..16).'),
    excerptChars: count(DEFAULTS.references.excerptChars, 'Accepted for compatibility, unused.'),
  }),
  nudge: Schema.object({
    enabled: flag(DEFAULTS.nudge.enabled, 'Compression nudges in boundary markers.'),
    maxRatio: ratio(DEFAULTS.nudge.maxRatio, 'Pressure above which a nudge may appear (0 < x <= 1).'),
    minRatio: ratio(DEFAULTS.nudge.minRatio, 'Pressure at or below which nudges re-arm (0 <= x < maxRatio).'),
    frequencySteps: count(DEFAULTS.nudge.frequencySteps, 'Markers between two pressure nudges (>= 1).'),
    iterationThreshold: count(DEFAULTS.nudge.iterationThreshold, 'Markers before a nudge without pressure data (>= 1).'),
  }),
  manualMode: Schema.object({
    default: flag(DEFAULTS.manualMode.default, 'Start in manual mode.'),
    automaticStrategies: flag(DEFAULTS.manualMode.automaticStrategies, 'Run automatic strategies in manual mode.'),
  }),
  strategies: Schema.object({
    runAt: word(DEFAULTS.strategies.runAt, "'turn-start', 'every-step' or 'with-compress'."),
    deduplication: Schema.object({
      enabled: flag(DEFAULTS.strategies.deduplication.enabled, 'Prune outputs of identical older tool calls.'),
      protectedTools: names(DEFAULTS.strategies.deduplication.protectedTools, 'Tools never deduplicated (<= 64).'),
    }),
    purgeErrors: Schema.object({
      enabled: flag(DEFAULTS.strategies.purgeErrors.enabled, 'Experimental: remove old errored single-call units.'),
      turns: count(DEFAULTS.strategies.purgeErrors.turns, 'Age in turns before an errored unit is purged (>= 1).'),
      protectedTools: names(DEFAULTS.strategies.purgeErrors.protectedTools, 'Tools never purged (<= 64).'),
    }),
  }),
  protectedFilePatterns: names(DEFAULTS.protectedFilePatterns, 'Globs of file paths whose tool outputs are protected (<= 64).'),
  expansion: Schema.object({
    maxWindowRatio: ratio(DEFAULTS.expansion.maxWindowRatio, 'Largest expansion as a share of the context window (0 < x <= 1).'),
    maxTokens: count(DEFAULTS.expansion.maxTokens, 'Largest expansion when the window is unknown (>= 1).'),
  }),
  stats: Schema.object({
    invalidationHistory: count(DEFAULTS.stats.invalidationHistory, 'Prefix invalidations /dcp stats lists (0..100).'),
  }),
  subagents: Schema.object({
    enableCompressionInChild: flag(DEFAULTS.subagents.enableCompressionInChild, 'Must be false in v1.'),
    readChildSession: flag(DEFAULTS.subagents.readChildSession, 'Must be false in v1.'),
  }),
}) as unknown as Schema<DshDcpConfig>;

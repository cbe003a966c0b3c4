/**
 * The repository's compiled modules the DCP real-host tests and the bench use (`dist/`, built before these suites run):
 * the fixture comparison every DCP run is held to (`test/support/dcp-fixture-comparison.ts`), DCP.md §19's corpus
 * generator, the ledger fold and the `compress` descriptor. Loaded by computed specifiers with the few types written
 * here, so the type check of this package (which CI runs before the build) does not need `dist/`.
 */

/** A record as the comparison reads it. */
export interface ComparedEvent {
  readonly type: string;
  readonly seq: number;
  readonly data: Record<string, unknown>;
  readonly surfaceOp?: unknown;
}

/** One side of a comparison. */
export interface ComparedRun {
  readonly events: readonly ComparedEvent[];
  readonly requests: ReadonlyArray<{
    readonly messages: readonly Record<string, unknown>[];
    readonly system: string;
    readonly tools: readonly unknown[];
  }>;
}

/** Both sides normalised (`NormalisedComparison`). */
export interface NormalisedComparison {
  readonly requests: { readonly ours: readonly string[][]; readonly dsh: readonly string[][] };
  readonly records: { readonly ours: readonly string[]; readonly dsh: readonly string[] };
  readonly strategyPrunes: { readonly ours: readonly string[]; readonly dsh: readonly string[] };
}

/** The DCP ledger's figures the tests read. */
export interface Ledger {
  readonly markerTokens: number;
  readonly blockCount: number;
}

const compiled = (path: string): string => new URL(`../../../dist/${path}`, import.meta.url).href;

const comparison = (await import(compiled('test/support/dcp-fixture-comparison.js'))) as {
  readonly DCP_FIXTURE_SCENARIOS: readonly string[];
  normaliseScenarioRuns(ours: ComparedRun, dsh: ComparedRun, refusedCommands: ReadonlySet<number>): NormalisedComparison;
  requestContexts(events: readonly ComparedEvent[]): string[];
};
const corpus = (await import(compiled('bench/support/dcp-corpus.js'))) as { generateDcpCorpus(targetEvents: number): ComparedEvent[] };
const ledgerFold = (await import(compiled('src/protocol/dcp/ledger-fold.js'))) as {
  foldLedger(events: readonly unknown[], windows: readonly unknown[]): { readonly ledger: Ledger };
};
const ledger = (await import(compiled('src/protocol/dcp/ledger.js'))) as { historyReduction(ledger: Ledger): number };
const schema = (await import(compiled('src/protocol/dcp/compress-schema.js'))) as {
  compressToolDescriptor(maxRangesPerCall: number): { name: string; description: string; parameters: Record<string, unknown> };
};

/** The scenarios of `test/fixtures/dcp-dsh/`, in order. */
export const DCP_FIXTURE_SCENARIOS = comparison.DCP_FIXTURE_SCENARIOS;
export const normaliseScenarioRuns = comparison.normaliseScenarioRuns;
export const requestContexts = comparison.requestContexts;
/** DCP.md §19's deterministic corpus of at least `targetEvents` events, ending at a turn boundary. */
export const generateDcpCorpus = corpus.generateDcpCorpus;
export const foldLedger = ledgerFold.foldLedger;
export const historyReduction = ledger.historyReduction;
export const compressToolDescriptor = schema.compressToolDescriptor;

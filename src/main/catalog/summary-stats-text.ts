/**
 * The `/dcp stats` text of a stored session from the Context view's own replay (issue 18): the session block's
 * figures are the ones `sessionctx dcp stats` computes — block and invalidation counts from the DCP index, the surface
 * estimate from the host's meter, the §15.1 ledger from the full-log fold (a `dcpLedger` pool task for a long log,
 * DCP.md §19 D6) — and the domain block is the one a host without plugin storage prints, as the CLI's host has none.
 * So the log is read and replayed once for the chart, the block table and the stats together.
 */
import type { DcpConfig } from '../../protocol/dcp/config.js';
import { historyReduction } from '../../protocol/dcp/ledger.js';
import type { WebDcpStats } from '../../protocol/web/web-api.js';
import { STORAGE_NOT_WIRED_REASON, formatStatsOutput, invalidationLines } from '../../protocol/dcp/stats-block.js';
import type { SessionEvent, SessionHeader } from '../../protocol/events.js';
import { LedgerService, resolveFullLogTasks } from '../engine/dcp/ledger-service.js';
import { silentLogger } from '../host-kit/silent-logger.js';
import type { TaskRunner } from '../engine/pool/task-runner.js';
import type { ContextSummary } from './context-summary.js';

/** The stats text of a session whose configuration disables DCP (`dcp.enabled: false`, docs/WEB.md). */
export const DCP_DISABLED_STATS_TEXT = 'DCP is disabled in this configuration (dcp.enabled: false), so there are no DCP statistics.';

/** What {@link summaryStatsText} reads. */
export interface SummaryStatsInput {
  readonly header: SessionHeader;
  readonly events: readonly SessionEvent[];
  readonly summary: ContextSummary;
  readonly config: DcpConfig;
  /** Where the full-log fold of a long log runs (the engine's pool). */
  readonly runner: TaskRunner;
}

/** The `/dcp stats` of a session: its text and the figures the text shows. */
export interface SummaryStats {
  readonly text: string;
  readonly figures: WebDcpStats;
}

/**
 * The `/dcp stats` text, byte-identical to `sessionctx dcp stats` on the same log, and its figures as numbers (the
 * `stats` of `dcp stats --json`).
 * @param input - the log, its replay, the DCP configuration and the runner of the ledger fold.
 */
export async function summaryStats(input: SummaryStatsInput): Promise<SummaryStats> {
  const { index } = input.summary;
  const all = index.invalidations.list();
  const counts = { dcp: 0, native: 0, mixed: 0 };
  for (const record of all) counts[record.cause] += 1;
  const recent = index.invalidations.recent(input.config.stats.invalidationHistory);
  const activeBlockCount = index.blocks().filter((block) => block.membership === 'active').length;
  const ledgers = new LedgerService(resolveFullLogTasks({ runner: input.runner }), silentLogger);
  const { ledger, reReadTokens } = await ledgers.fold({ header: input.header, events: input.events }, recent);
  const recentInvalidations = invalidationLines(recent, reReadTokens);
  const text = formatStatsOutput(
    { ledger, activeBlockCount, invalidationCounts: counts, recentInvalidations, surfaceTokens: input.summary.surfaceTokens },
    { status: 'unavailable', reason: STORAGE_NOT_WIRED_REASON, invalidRecordsSkipped: 0 },
  );
  const figures: WebDcpStats = {
    blocks: { historical: ledger.blockCount, active: activeBlockCount },
    shadowedTokens: ledger.shadowedTokens,
    checkpointTokens: ledger.checkpointTokens,
    pruneTokens: ledger.pruneTokens,
    cleanupTokens: ledger.cleanupTokens,
    expansionTokens: ledger.expansionTokens,
    markerTokens: ledger.markerTokens,
    historyReduction: historyReduction(ledger),
    pruneReplacements: ledger.pruneReplacements,
    inlineCleanups: ledger.inlineCleanups,
    invalidations: { ...counts },
    recentInvalidations: recentInvalidations.map((line) => ({ ...line })),
    surfaceTokens: input.summary.surfaceTokens,
    domain: { status: 'unavailable', reason: STORAGE_NOT_WIRED_REASON },
  };
  return { text, figures };
}

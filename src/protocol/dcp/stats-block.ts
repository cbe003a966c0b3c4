/**
 * The `/dcp stats` output (DCP.md §15.2, §15.3): the session block with its exact labels, a blank line, then the
 * persistent-domain block.
 */
import type { DcpLedger } from './ledger.js';
import { historyReduction } from './ledger.js';
import { assertNever } from '../assert-never.js';

/** The cause of a prefix invalidation (§14). */
export type InvalidationCause = 'dcp' | 'native' | 'mixed';

/** One rendered invalidation record (§14 rule 1); `reReadTokens` is computed when stats are rendered. */
export interface InvalidationLine {
  readonly firstSeq: number;
  readonly position: number;
  readonly reReadTokens: number;
  readonly cause: InvalidationCause;
}

/**
 * The invalidation lines of `records` (§14 rule 1), each with the re-read tokens the ledger fold computed for it
 * (`reReadTokens[i]` belongs to `records[i]`).
 */
export function invalidationLines(
  records: ReadonlyArray<Omit<InvalidationLine, 'reReadTokens'>>,
  reReadTokens: readonly number[],
): InvalidationLine[] {
  return records.map((record, at) => ({
    firstSeq: record.firstSeq,
    position: record.position,
    reReadTokens: reReadTokens[at] as number,
    cause: record.cause,
  }));
}

/** Everything the session block shows. */
export interface SessionStatsInput {
  readonly ledger: DcpLedger;
  readonly activeBlockCount: number;
  /** Invalidation counts per cause over the whole log. */
  readonly invalidationCounts: { readonly dcp: number; readonly native: number; readonly mixed: number };
  /** The most recent `stats.invalidationHistory` records, in the order to show. */
  readonly recentInvalidations: readonly InvalidationLine[];
  readonly surfaceTokens: number;
}

/** The session block (§15.2). */
export function formatSessionStats(input: SessionStatsInput): string {
  const { ledger, invalidationCounts: counts } = input;
  const reduction = historyReduction(ledger);
  const total = counts.dcp + counts.native + counts.mixed;
  const recent =
    input.recentInvalidations.length === 0
      ? '(none)'
      : input.recentInvalidations
          .map((record) => `s${record.firstSeq}@${record.position} ~${record.reReadTokens} re-read (${record.cause})`)
          .join(', ');
  return [
    'DCP statistics (heuristic token estimates):',
    `blocks (hist/act): ${ledger.blockCount}/${input.activeBlockCount}`,
    `shadowed tokens: ~${ledger.shadowedTokens}`,
    `checkpoint tokens: ~${ledger.checkpointTokens}`,
    `prune tokens: ~${ledger.pruneTokens}`,
    `cleanup savings: ~${ledger.cleanupTokens}`,
    `expansion delta: ~${ledger.expansionTokens}`,
    `marker tokens: ~${ledger.markerTokens}`,
    `history reduction: ~${reduction}${reduction < 0 ? ' (overhead)' : ''}`,
    `prune replacements: ${ledger.pruneReplacements}`,
    `inline cleanups: ${ledger.inlineCleanups}`,
    `prefix invalidations: ${total} (dcp ${counts.dcp}, native ${counts.native}, mixed ${counts.mixed})`,
    `recent invalidations: ${recent}`,
    `current surface: ~${input.surfaceTokens}`,
  ].join('\n');
}

/** The state of the cross-session domain (§15.3). */
export type DomainStatsInput =
  | {
      readonly status: 'current';
      readonly sessions: number;
      readonly blocks: number;
      readonly historyReduction: number;
      /** ISO time of the last sync. */
      readonly lastSync: string;
      readonly invalidRecordsSkipped: number;
      /** Where the records live, shown in the status line; default {@link DEFAULT_DOMAIN_SCOPE}. */
      readonly scope?: string;
    }
  | {
      readonly status: 'stale';
      /** `stored cursor <x> ahead of observed <y>` or the write error's message. */
      readonly reason: string;
      readonly sessions: number;
      readonly blocks: number;
      readonly observedCursor: number;
      readonly invalidRecordsSkipped: number;
    }
  | { readonly status: 'unavailable'; readonly reason: string; readonly invalidRecordsSkipped: number };

/** The scope the status line of a current domain names unless the storage says otherwise (§15.3). */
export const DEFAULT_DOMAIN_SCOPE = 'single-process scope';

/** The reason of an unavailable domain when the host wired no storage. */
export const STORAGE_NOT_WIRED_REASON = 'storage not wired';

/** The reason of a stale domain whose stored cursor is ahead of the log. */
export function cursorAheadReason(stored: number, observed: number): string {
  return `stored cursor ${stored} ahead of observed ${observed}`;
}

/** The domain block (§15.3 output lines). */
export function formatDomainStats(input: DomainStatsInput): string {
  const lines: string[] = [];
  switch (input.status) {
    case 'current':
      lines.push(
        `persistent domain: current (${input.scope ?? DEFAULT_DOMAIN_SCOPE})`,
        `sessions: ${input.sessions}`,
        `blocks: ${input.blocks}`,
        `history reduction: ~${input.historyReduction}`,
        `last sync: ${input.lastSync}`,
      );
      break;
    case 'stale':
      lines.push(
        `persistent domain: stale (${input.reason})`,
        `sessions (old view): ${input.sessions}`,
        `blocks (old view): ${input.blocks}`,
        `observed cursor: ${input.observedCursor}`,
      );
      break;
    case 'unavailable':
      lines.push(`persistent domain: unavailable (${input.reason})`);
      break;
    default:
      return assertNever(input, 'unexpected domain status');
  }
  if (input.invalidRecordsSkipped > 0) lines.push(`invalid records skipped: ${input.invalidRecordsSkipped}`);
  return lines.join('\n');
}

/** The whole `/dcp stats` text: the session block, a blank line, the domain block. */
export function formatStatsOutput(session: SessionStatsInput, domain: DomainStatsInput): string {
  return `${formatSessionStats(session)}\n\n${formatDomainStats(domain)}`;
}

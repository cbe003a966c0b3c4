/**
 * A test oracle for the `/dcp stats` figures (DCP.md §15.1, §14 rule 1), computed differently from production's
 * `foldLedger`: replace classes come from the live DCP index, estimates from the session's meter cache, and each
 * invalidation's surface is refolded from its own log prefix.
 */
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { isRecord } from '../../../../src/protocol/events.js';
import type { DcpLedger } from '../../../../src/protocol/dcp/ledger.js';
import type { InvalidationLine } from '../../../../src/protocol/dcp/stats-block.js';
import { foldSurface } from '../../../../src/protocol/surface-fold.js';
import type { DcpIndex } from '../../../../src/main/engine/dcp/dcp-index.js';
import type { PrefixInvalidation } from '../../../../src/main/engine/dcp/prefix-invalidations.js';

/** What the ledger reads; a `Session` satisfies it. */
export interface LedgerSource {
  readonly events: readonly SessionEvent[];
  readonly meter: { estimateOf(seq: number): number | undefined };
}

function claimOf(event: SessionEvent | undefined): number {
  const count = isRecord(event?.data) ? event.data['shadowedTokenCount'] : undefined;
  return typeof count === 'number' ? count : 0;
}

/** The §15.1 ledger of the whole log, by structure (replace classes from the index). O(log). */
export function computeLedger(index: DcpIndex, source: LedgerSource): DcpLedger {
  const ledger = {
    shadowedTokens: 0,
    checkpointTokens: 0,
    blockCount: 0,
    expansionTokens: 0,
    pruneTokens: 0,
    pruneReplacements: 0,
    cleanupTokens: 0,
    inlineCleanups: 0,
    markerTokens: 0,
  };
  const { events, meter } = source;
  for (const event of events) {
    const estimate = meter.estimateOf(event.seq) ?? 0;
    if (event.surfaceOp === 'append') {
      if (event.type === 'user/message' && index.markerRefAt(event.seq) !== undefined) ledger.markerTokens += estimate;
      continue;
    }
    if (typeof event.surfaceOp !== 'object') continue;
    const previous = events[event.seq - 1];
    const claim = claimOf(previous);
    const kind = index.replaceClass(event.seq);
    if (previous?.type === 'compaction/summary' && kind === 'dcp-summary') {
      ledger.shadowedTokens += claim;
      ledger.checkpointTokens += estimate;
      ledger.blockCount += 1;
    } else if (previous?.type === 'compaction/summary' && kind === 'dcp-expansion') {
      ledger.blockCount += 1;
      ledger.expansionTokens += claim - estimate;
    } else if (previous?.type === 'compaction/prune' && (kind === 'dcp-dedup' || kind === 'dcp-purge')) {
      ledger.pruneTokens += claim;
      ledger.checkpointTokens += estimate;
      ledger.pruneReplacements += 1;
    } else if (previous?.type === 'compaction/prune' && kind === 'dcp-cleanup') {
      ledger.cleanupTokens += claim - estimate;
      ledger.inlineCleanups += 1;
    }
  }
  return ledger;
}

/**
 * The rendered lines of `records` (§14 rule 1): the surface as it stood just before each window is refolded from
 * the log prefix; `reReadTokens` is its total minus the tokens before `position`. O(log) per record.
 */
export function invalidationLines(records: readonly PrefixInvalidation[], source: LedgerSource): InvalidationLine[] {
  return records.map((record) => {
    const surface = foldSurface(source.events.slice(0, record.firstSeq)).surfaceSeqs();
    let reReadTokens = 0;
    surface.forEach((seq, position) => {
      if (position >= record.position) reReadTokens += source.meter.estimateOf(seq) ?? 0;
    });
    return { firstSeq: record.firstSeq, position: record.position, reReadTokens, cause: record.cause };
  });
}

/**
 * The session ledger figures (DCP.md §15.1). The ledger is maintained by the index; this module holds its shape
 * and the signed `historyReduction` equation (the seed's "net saved").
 */

/** The accumulated ledger of one session (heuristic token estimates). */
export interface DcpLedger {
  readonly shadowedTokens: number;
  readonly checkpointTokens: number;
  readonly blockCount: number;
  readonly expansionTokens: number;
  readonly pruneTokens: number;
  readonly pruneReplacements: number;
  readonly cleanupTokens: number;
  readonly inlineCleanups: number;
  readonly markerTokens: number;
}

/** The ledger of a log with no DCP events. */
export const EMPTY_LEDGER: DcpLedger = Object.freeze({
  shadowedTokens: 0,
  checkpointTokens: 0,
  blockCount: 0,
  expansionTokens: 0,
  pruneTokens: 0,
  pruneReplacements: 0,
  cleanupTokens: 0,
  inlineCleanups: 0,
  markerTokens: 0,
});

/**
 * `historyReduction = shadowedTokens + pruneTokens − checkpointTokens + cleanupTokens + expansionTokens −
 * markerTokens`. Signed: a negative value is overhead.
 */
export function historyReduction(ledger: DcpLedger): number {
  return (
    ledger.shadowedTokens +
    ledger.pruneTokens -
    ledger.checkpointTokens +
    ledger.cleanupTokens +
    ledger.expansionTokens -
    ledger.markerTokens
  );
}

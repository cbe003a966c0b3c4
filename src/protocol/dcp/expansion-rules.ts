/**
 * The pure parts of semantic expansion and recompression (DCP.md §12.2, §12.3): the pre-check reasons, in check
 * order, and the expansion cap.
 */
import { BUSY_TEXT } from './constants.js';

/** §12.2 rule 1. */
export function notActiveSummaryReason(blockRef: string): string {
  return `${blockRef} is not an active summary block`;
}

/** §12.2 rule 2 and §12.3 rule 1 (busy). */
export const EXPANSION_BUSY_REASON = BUSY_TEXT;

/** §12.2 rule 3: at control time a turn must be open. */
export const OPEN_TURN_REQUIRED_REASON = 'recovery mutation requires an open turn (control turn)';

/** §12.2 rule 4. */
export function expansionTooLargeReason(blockRef: string, neededTokens: number, capTokens: number): string {
  return `${blockRef} expansion needs ~${neededTokens} tokens, above the expansion cap of ~${capTokens} tokens`;
}

/** §12.3 rule 1. */
export function noActiveExpansionReason(blockRef: string): string {
  return `${blockRef} has no active semantic expansion to recompress`;
}

/** The expansion cap: `floor(contextWindow × maxWindowRatio)`, or `maxTokens` when no window is known. */
export function expansionCapTokens(contextWindow: number | undefined, maxWindowRatio: number, maxTokens: number): number {
  return contextWindow === undefined ? maxTokens : Math.floor(contextWindow * maxWindowRatio);
}

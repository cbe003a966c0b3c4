/** A corpus change applied to the rows a view holds (pure, so the Sessions view and a test can share it). */
import type { WebCorpusChange, WebSessionRow } from '../../../src/protocol/web/web-api.js';

/**
 * Listing order (docs/WEB.md `sessions/list`): newest first, then by id.
 *
 * @param a one row
 * @param b another row
 */
function listingOrder(a: WebSessionRow, b: WebSessionRow): number {
  return b.createdAt - a.createdAt || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0);
}

/**
 * The rows after `change`: removed ones left out, changed ones replaced where they stand, added ones (and any
 * changed row that was not there) placed in listing order.
 *
 * @param rows the rows shown now, in listing order
 * @param change the change the stream sent
 * @returns a new array (the input is not changed)
 */
export function applyCorpusChange(rows: readonly WebSessionRow[], change: WebCorpusChange): WebSessionRow[] {
  const removed = new Set(change.removed);
  // An added row that is already shown (a change that crossed a reset's listing) replaces it as a changed one does.
  const replaced = new Map([...change.added, ...change.changed].map((row) => [row.sessionId, row]));
  const kept = rows.filter((row) => !removed.has(row.sessionId)).map((row) => replaced.get(row.sessionId) ?? row);
  const present = new Set(kept.map((row) => row.sessionId));
  const arriving = [...replaced.values()].filter((row) => !present.has(row.sessionId));
  if (arriving.length === 0) return kept;
  return [...kept, ...arriving].sort(listingOrder);
}

/**
 * The rows of a listing brought up to date with the changes the stream delivered while it was under way: those with a
 * revision after the listing's (a listing without one is taken as it is). A first listing answered from the headers
 * alone (issue 28: titles still being read on a large cold root) is at revision 0, and its titles arrive as revision 1,
 * possibly before the listing's own answer.
 *
 * @param rows the listing's rows, in listing order
 * @param revision the listing's revision, if the server gave one
 * @param recent the changes received since the last reset, oldest first
 * @returns the rows with every later change applied
 */
export function catchUpListing(
  rows: readonly WebSessionRow[],
  revision: number | undefined,
  recent: readonly WebCorpusChange[],
): readonly WebSessionRow[] {
  if (revision === undefined) return rows;
  return recent
    .filter((change) => change.revision > revision)
    .reduce<readonly WebSessionRow[]>((shown, change) => applyCorpusChange(shown, change), rows);
}

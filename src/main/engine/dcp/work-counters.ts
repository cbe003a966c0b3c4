/**
 * Deterministic work counters (DCP.md §19 D2): tests assert on them instead of timing. Every DCP routine that
 * touches index or surface nodes adds what it visited, so "O(new events + candidates + aliases)" is checkable.
 */

/** The counters of one DCP runtime. */
export class DcpWorkCounters {
  /** Index nodes visited: events folded, shadowed nodes, alias chains, range nodes, hint positions. */
  nodesVisited = 0;
  /** Cold replays of a whole log (index builds). */
  folds = 0;
  /** Walks over the whole current surface. */
  surfaceScans = 0;
  /** Walks over the whole log outside a cold replay. */
  logScans = 0;

  /** Sets every counter back to 0. */
  reset(): void {
    this.nodesVisited = 0;
    this.folds = 0;
    this.surfaceScans = 0;
    this.logScans = 0;
  }

  /** A copy of the current figures. */
  read(): { nodesVisited: number; folds: number; surfaceScans: number; logScans: number } {
    return { nodesVisited: this.nodesVisited, folds: this.folds, surfaceScans: this.surfaceScans, logScans: this.logScans };
  }
}

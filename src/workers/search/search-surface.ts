/**
 * How one session's indexed documents follow its surface (issue 17 item 2): the seqs of the surface the index holds
 * are continued with the projection fold (`ProjectionFold`) over a scan's steps, so a compaction that lands removes
 * the documents it shadows — exactly what the seed's projection would show. The same rule serves a persisted log
 * (continued from its title-scan checkpoint) and a live one (continued from its byte-log position).
 */
import { ProjectionFold, type ProjectionNode } from '../reference/projection-fold.js';
import type { SearchStep } from './search-documents.js';

/** The surface an index entry holds. */
export interface IndexedSurface {
  /** The committed surface nodes' seqs, in surface order (what the next scan continues). */
  readonly committed: readonly number[];
  /** The seqs of the current answer (committed fold plus provisional steps): what the documents are of. */
  readonly answer: readonly number[];
}

/** What to change in an entry's documents. */
export interface SurfaceUpdate extends IndexedSurface {
  /** Every document of the entry is replaced (a scan from the start). */
  readonly reset: boolean;
  /** Seqs whose documents leave the index (shadowed by a compaction, or provisional ones no longer current). */
  readonly removed: readonly number[];
  /** The steps whose documents are added. */
  readonly steps: readonly SearchStep[];
}

/** The surface seqs of a fold. */
function seqsOf(nodes: readonly ProjectionNode[]): number[] {
  return nodes.map((node) => node.seq);
}

/**
 * Continues `previous` (or an empty surface) over `steps`.
 *
 * @param previous - the stored surface the steps follow, `undefined` for a scan from the start.
 * @param steps - the scan's steps in log order.
 * @param committedEvents - steps from this seq on are provisional (an unfinished turn): they are in the answer but
 *   not in the committed fold the next scan continues.
 * @returns the update, or `undefined` when the steps do not fit the stored surface (a damaged state, or a log
 *   that is not the one indexed): the caller scans the session whole.
 */
export function continueSurface(
  previous: IndexedSurface | undefined,
  steps: readonly SearchStep[],
  committedEvents: number,
): SurfaceUpdate | undefined {
  const fold = previous === undefined ? ProjectionFold.empty() : ProjectionFold.of(previous.committed.map((seq) => ({ seq, item: null })));
  let answerFold: ProjectionFold | undefined;
  try {
    for (const step of steps) {
      if (step.seq >= committedEvents && answerFold === undefined) answerFold = ProjectionFold.of(fold.nodes());
      (answerFold ?? fold).apply({ seq: step.seq, replace: step.replace, item: null });
    }
  } catch {
    // ProjectionFoldError: a replace range that names no current nodes.
    return undefined;
  }
  const committed = seqsOf(fold.nodes());
  const answer = seqsOf((answerFold ?? fold).nodes());
  const keep = new Set(answer);
  if (previous === undefined) {
    return { committed, answer, reset: true, removed: [], steps: steps.filter((step) => keep.has(step.seq)) };
  }
  const indexed = new Set(previous.answer);
  const stepSeqs = new Set(steps.map((step) => step.seq));
  // Every current node is either indexed already or a step of this scan; anything else means the stored state and
  // the log disagree.
  for (const seq of answer) if (!indexed.has(seq) && !stepSeqs.has(seq)) return undefined;
  return {
    committed,
    answer,
    reset: false,
    removed: previous.answer.filter((seq) => !keep.has(seq)),
    steps: steps.filter((step) => keep.has(step.seq) && !indexed.has(step.seq)),
  };
}

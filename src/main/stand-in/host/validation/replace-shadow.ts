/**
 * The nodes a validated replace candidate would shadow, read from the indexed surface view.
 */
import { isRecord } from '../../../../protocol/events.js';
import type { SurfaceReader } from '../../../../protocol/surface-view.js';
import type { AppendCandidate } from './validation-layer.js';

/**
 * The seqs a replace candidate removes, in surface order, or `undefined` when the candidate is not a replace.
 * Call only after the envelope layer accepted the candidate, which guarantees that both ends are current and in
 * order (SESSION-LOG.md §5.2 rule 4). O(k) for k shadowed nodes.
 */
export function shadowedByCandidate(candidate: AppendCandidate, surface: SurfaceReader): readonly number[] | undefined {
  const op = candidate.surfaceOp;
  if (!isRecord(op)) return undefined;
  const start = surface.positionOf(op['start'] as number);
  const end = surface.positionOf(op['end'] as number);
  return surface.slice(start, end + 1);
}

/**
 * HOST.md §3.6: the shadow-price claim rule. A metering event (`compaction/summary`, `compaction/prune`) arms a
 * claim for the very next event; a replace consuming it must cover exactly the announced range, so the meter's
 * projection is priced by the writer's own count. Any other next event simply drops the claim.
 */
import { isRecord } from '../../../../protocol/events.js';
import { SessionAppendError } from '../session-append-error.js';
import type { AppendCandidate, ValidationLayer, ValidationState } from './validation-layer.js';

/**
 * A surface replace right after a metering event must have the claim's `{start, end}`, else
 * `HOST_SHADOW_PRICE: shadow price claim <a>..<b> does not match replace <c>..<d>`. A replace with no armed
 * claim and every other event are legal here.
 */
export const claimLayer: ValidationLayer = {
  name: 'HOST §3.6 shadow-price claim rule',
  check(candidate: AppendCandidate, state: ValidationState): void {
    const claim = state.claim.armed;
    const op = candidate.surfaceOp;
    if (claim === undefined || !isRecord(op)) return;
    if (op['start'] === claim.start && op['end'] === claim.end) return;
    throw new SessionAppendError(
      'HOST_SHADOW_PRICE',
      `shadow price claim ${String(claim.start)}..${String(claim.end)} does not match replace ${String(op['start'])}..${String(op['end'])}`,
      { seq: candidate.seq },
    );
  },
};

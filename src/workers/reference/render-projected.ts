/**
 * The last reference stages for one projected source (SESSION-REFERENCE.md §10): retention within the budget and
 * serialisation, or the least budget that would fit. Shared by the worker's rendering and the source cache, which
 * keeps the projected items and so renders a warm source without reading it.
 */
import type { SourceRender } from '../../protocol/wire/task-shapes.js';
import { minimumFittingBudget } from './minimum-budget.js';
import { retainSource } from './retain-source.js';
import type { RetentionInput } from './retain-source.js';

/**
 * Retains `input` within `maxBytes`: the rendering, or `{fits:false}` with the least fitting budget.
 *
 * @param poll - called before the budget search of a source that does not fit (a worker's abort poll).
 */
export function renderProjected(input: RetentionInput, maxBytes: number, poll: () => void = () => {}): SourceRender {
  const retained = retainSource(input, maxBytes);
  if (!retained.fits) {
    poll();
    return { fits: false, minimumBudgetBytes: minimumFittingBudget(input, maxBytes) };
  }
  return {
    fits: true,
    sessionId: input.sessionId,
    capturedThroughSeq: input.capturedThroughSeq,
    json: retained.json,
    stats: retained.stats,
  };
}

/**
 * The smallest byte budget a source fits (the `minimumBudgetBytes` of `SESSION_REFERENCE_BUDGET_EXCEEDED`), found
 * where the source is: on the same projected items the failed retention ran on, so the answer is about that read
 * and costs no second one.
 *
 * The search assumes that fitting is monotone in the budget (SESSION-REFERENCE.md §10.3): with a larger budget
 * Phase A drops a prefix of the same items, and in Phase B a round's two failure conditions (nothing left to shorten,
 * a notice-only text no shorter than the current one) do not depend on the budget while the conditions that end the
 * loop only get easier. It binary-searches between a budget that failed and the unretained size (which always fits:
 * neither phase runs), so the answer fits and one byte less does not; a property test checks it against a scan of
 * every budget on small inputs, which is what makes it the least.
 */
import { measureText } from '../../protocol/tag-safe-json.js';
import type { ProjectedItem } from './project-surface.js';
import type { RetentionInput } from './retain-source.js';
import { conversationItemBytes, fixedDataBytes, retainSource } from './retain-source.js';

/** `size` of §10.1 with every item retained in full: the budget at which retention changes nothing. */
export function unretainedSize(input: RetentionInput): number {
  const measures = { raw: 0, json: 0 };
  let size = fixedDataBytes(input) + Math.max(0, input.items.length - 1);
  for (const item of input.items as readonly ProjectedItem[])
    size += conversationItemBytes(item.role, measureText(item.originalText, measures).json);
  return size;
}

/**
 * The least `maxBytes` with which `retainSource(input, maxBytes)` fits, given a budget `failedBudget` with which it
 * does not. O(log(size − failedBudget)) retentions of `input`, each O(S + n log n + R log max) (§10.6).
 *
 * @throws RangeError when `input` fits `failedBudget` (the search needs a failing lower end).
 */
export function minimumFittingBudget(input: RetentionInput, failedBudget: number): number {
  if (retainSource(input, failedBudget).fits)
    throw new RangeError(`the source fits ${failedBudget} bytes; there is no smaller budget to find above it`);
  // Invariant: `low` does not fit, `high` fits. The unretained size fits by definition and exceeds any failing budget.
  let low = failedBudget;
  let high = unretainedSize(input);
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    if (retainSource(input, middle).fits) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * Runs an async step over many items with bounded concurrency and hands back the outcomes in item order, so a
 * caller that then walks them in order observes what a one-after-another loop would: the first failure in item
 * order wins, and later items' results are never looked at.
 */

/**
 * The outcome of `step` for each item, in item order. At most `limit` steps run at once; once a step fails no
 * new step starts, so the outcomes after the first failure may be missing (`undefined`), never the ones before
 * it.
 */
export async function settleInOrder<T, R>(
  items: readonly T[],
  limit: number,
  step: (item: T) => Promise<R>,
): Promise<(PromiseSettledResult<R> | undefined)[]> {
  const outcomes: (PromiseSettledResult<R> | undefined)[] = new Array<PromiseSettledResult<R> | undefined>(items.length);
  let cursor = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && cursor < items.length) {
      const index = cursor;
      cursor += 1;
      try {
        outcomes[index] = { status: 'fulfilled', value: await step(items[index] as T) };
      } catch (reason) {
        // Recorded, not swallowed: the caller rethrows the first failure in item order.
        outcomes[index] = { status: 'rejected', reason };
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, () => worker()));
  return outcomes;
}

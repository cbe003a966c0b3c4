/**
 * A waterfall of async listeners (HOST.md §6.3, §7.2): each listener gets the payload and `next()`, which runs
 * the rest of the chain and resolves to the downstream decision; what the listener returns is its own decision.
 */
import type { WaterfallListener } from '../../host-api/host-api.js';

/**
 * Runs `listeners` in list order around `innermost` (the default decision) and resolves to the outermost
 * listener's decision. A second `next()` call from one listener rejects with
 * `<name> listener called next() more than once`. Any listener error rejects the whole run.
 */
export function runWaterfall<P, D>(
  name: string,
  listeners: readonly WaterfallListener<P, D>[],
  payload: P,
  innermost: () => D | Promise<D>,
): Promise<D> {
  const chain = [...listeners];
  const run = async (index: number): Promise<D> => {
    const listener = chain[index];
    if (listener === undefined) return innermost();
    let called = false;
    const next = (): Promise<D> => {
      if (called) return Promise.reject(new Error(`${name} listener called next() more than once`));
      called = true;
      return run(index + 1);
    };
    return listener(payload, next);
  };
  return run(0);
}

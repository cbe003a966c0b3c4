/**
 * The race rule of SESSION-REFERENCE.md §7.2: a cancelled turn or keystroke settles at once, even
 * when the work it waits for never settles.
 */
import { abortable } from 'abort-controller-x';
import { cancelledError } from '../../protocol/reference-errors.js';

/**
 * Without a signal, `work` itself. With one: rejects immediately with `SESSION_REFERENCE_CANCELLED`
 * (cause `signal.reason`) if the signal is or becomes aborted; otherwise settles like `work`, a
 * non-`Error` rejection `x` becoming `new Error(String(x))`. An abandoned `work` keeps running and
 * its later settlement is absorbed.
 */
export async function raceSignal<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  try {
    return await abortable(signal, work);
  } catch (error) {
    if (signal.aborted) throw cancelledError(signal.reason);
    throw error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * An internal controller that aborts when `parent` aborts (SESSION-REFERENCE.md §8 step 5), so
 * sibling reads can be stopped without aborting the caller's signal. `dispose()` removes the link.
 */
export function linkedController(parent: AbortSignal | undefined): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  if (parent === undefined) return { controller, dispose: () => undefined };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, dispose: () => undefined };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => parent.removeEventListener('abort', onAbort) };
}

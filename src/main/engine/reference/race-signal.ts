/**
 * The race rule of SESSION-REFERENCE.md §7.2: a cancelled turn or keystroke settles at once, even
 * when the work it waits for never settles.
 */
import { cancelledError } from '../../../protocol/reference-errors.js';
import { raceWithSignal } from '../signal/abort.js';

/**
 * Without a signal, `work` itself. With one: rejects immediately with `SESSION_REFERENCE_CANCELLED`
 * (cause `signal.reason`) if the signal is or becomes aborted; otherwise settles like `work`, a
 * non-`Error` rejection `x` becoming `new Error(String(x))`. An abandoned `work` keeps running and
 * its later settlement is absorbed.
 */
export async function raceSignal<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  try {
    return await raceWithSignal(work, signal);
  } catch (error) {
    if (signal.aborted) throw cancelledError(signal.reason);
    throw error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * Shares one asynchronous operation among the callers that ask for it within the same job. The
 * operation starts in a microtask after the first request, so every caller that joins it asked before
 * it started: the observation it makes is never older than any caller's call (SESSION-LOG.md §10.4,
 * capture at call start). Under a burst — hundreds of `prepare()` calls issued together — the main
 * thread then lists the store once instead of once per call.
 *
 * The operation gets its own signal, which aborts once every caller that joined it has aborted (a caller
 * without a signal keeps it running), so an abort still reaches storage (SESSION-REFERENCE.md D4).
 */

/** One shared operation and the callers that joined it. */
interface Batch<V> {
  readonly controller: AbortController;
  promise: Promise<V>;
  joined: number;
  aborted: number;
  keepsRunning: boolean;
  readonly detach: Array<() => void>;
}

/** Coalesces operations by key; see the module comment. */
export class TickCoalescer<V> {
  readonly #pending = new Map<string, Batch<V>>();

  /**
   * The result of the not-yet-started operation for `key`, or of a new one that `start` begins in a
   * microtask with the batch's signal. Once an operation has started, later requests get a fresh one.
   */
  run(key: string, start: (signal: AbortSignal) => Promise<V>, signal?: AbortSignal): Promise<V> {
    const batch = this.#pending.get(key) ?? this.#open(key, start);
    batch.joined += 1;
    if (signal === undefined) {
      batch.keepsRunning = true;
    } else if (signal.aborted) {
      this.#onAbort(batch, signal);
    } else {
      const onAbort = (): void => this.#onAbort(batch, signal);
      signal.addEventListener('abort', onAbort, { once: true });
      batch.detach.push(() => signal.removeEventListener('abort', onAbort));
    }
    return batch.promise;
  }

  #open(key: string, start: (signal: AbortSignal) => Promise<V>): Batch<V> {
    const batch: Batch<V> = {
      controller: new AbortController(),
      promise: Promise.resolve() as Promise<never>,
      joined: 0,
      aborted: 0,
      keepsRunning: false,
      detach: [],
    };
    batch.promise = new Promise<void>((resolve) => queueMicrotask(resolve))
      .then(() => {
        this.#pending.delete(key);
        return start(batch.controller.signal);
      })
      .finally(() => {
        for (const detach of batch.detach) detach();
      });
    // Every joined caller handles the outcome; this keeps a caller-less rejection from being unhandled.
    batch.promise.catch(() => undefined);
    this.#pending.set(key, batch);
    return batch;
  }

  #onAbort(batch: Batch<V>, signal: AbortSignal): void {
    batch.aborted += 1;
    if (!batch.keepsRunning && batch.aborted === batch.joined) batch.controller.abort(signal.reason);
  }
}

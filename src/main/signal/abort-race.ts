/**
 * Settling at once when a turn is aborted, whatever a plugin or tool is still doing (HOST.md §6.2 abort path).
 */

/**
 * Resolves or rejects like `work`, unless `signal` aborts first: then it rejects at once with `signal.reason`.
 * A late settlement of `work` is observed and dropped (no unhandled rejection).
 */
export function raceWithSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {
      // The run was abandoned before it settled; its failure has no one left to report to.
    });
    return Promise.reject(signal.reason as unknown);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as unknown);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

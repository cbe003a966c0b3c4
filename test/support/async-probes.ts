/**
 * Small async probes for tests of signal and settlement semantics.
 */

/** A promise with its settle functions exposed. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (reason: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Tracks whether a promise has settled (fulfilled or rejected). */
export function track(promise: Promise<unknown>): { settled: boolean } {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

/** Lets every pending microtask and I/O callback run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The calls a host is waiting for on this thread (issue 27: the first query after changes). Background work nobody
 * waits for (the title index file's deferred write) does not start while a call is in progress, so a call right after
 * changes does not share the thread with it. Work a call waits for keeps its time slices (`time-slice.ts`: letting it
 * run through made a call that builds a large listing hold the thread far past the main-thread budget). Thread-wide
 * on purpose: the event loop is the thread's, whichever engine the call belongs to.
 */

/** How many calls are in progress on this thread. */
let inProgress = 0;

/** True while some call a host is waiting for is in progress on this thread. */
export function foregroundCallActive(): boolean {
  return inProgress > 0;
}

/** Runs `call` as a call a host is waiting for: {@link foregroundCallActive} holds until it settles. */
export async function asForegroundCall<T>(call: () => Promise<T>): Promise<T> {
  inProgress += 1;
  try {
    return await call();
  } finally {
    inProgress -= 1;
  }
}

/**
 * The calls a host is waiting for on this thread (issue 27: the first query after changes, item 6's budget). Work on
 * the host's thread runs in time slices so that background jobs never hold it long ({@link TimeSlice}); but work a
 * call is waiting for should not hop (each hop lets other background work run first), and background work nobody
 * waits for (the title index file's write) should not start while a call is in progress. Thread-wide on purpose: the
 * event loop is the thread's, whichever engine the call belongs to.
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

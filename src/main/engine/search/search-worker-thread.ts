/**
 * The search worker thread's module, and its prestart (issue 27: `sessionctx search` one-shot within 300 ms). A
 * one-shot search spent about a third of its time waiting for the search thread to boot, which began only once the
 * command had loaded its modules and built its engine. The executable starts the thread as its first step instead;
 * the thread loads its modules meanwhile and waits for its configuration as its first message, and the first search
 * index built afterwards adopts it instead of starting another.
 */
import { Worker } from 'node:worker_threads';

/** The search worker's module. */
export const SEARCH_WORKER_URL = new URL('../../../workers/search/search-worker.js', import.meta.url);

/** `workerData` of a prestarted thread: its configuration arrives as its first message ({@link SearchWorkerInit}). */
export const PRESTARTED_WORKER_DATA = { prestarted: true } as const;

let prestarted: Worker | undefined;

/**
 * Starts a search thread that waits for its configuration; it keeps the process alive only once adopted. Does
 * nothing when one is already waiting.
 */
export function prestartSearchWorker(): void {
  if (prestarted !== undefined) return;
  const worker = new Worker(SEARCH_WORKER_URL, { workerData: PRESTARTED_WORKER_DATA });
  worker.unref();
  // A thread that fails or ends before it is adopted is only dropped: the first search starts its own.
  const drop = (): void => {
    if (prestarted === worker) prestarted = undefined;
  };
  worker.once('error', drop);
  worker.once('exit', drop);
  prestarted = worker;
}

/** The prestarted search thread, handed over once (`undefined`: none waiting); the caller sends its configuration. */
export function takePrestartedSearchWorker(): Worker | undefined {
  const worker = prestarted;
  prestarted = undefined;
  worker?.ref();
  return worker;
}

/**
 * The library's one abort toolkit (the design card's `abort-controller-x`, plus `AbortSignal.any`): every wait that
 * must settle at once when its caller gives up (a turn aborted mid-tool, a keystroke superseded, a search cancelled)
 * races through {@link raceWithSignal}, and every group of sibling reads that one failure must stop shares a
 * {@link linkedAbort}. The typed errors a room reports for an abort (`SESSION_REFERENCE_CANCELLED`, the pool's
 * `SESSION_POOL_ABORTED`) are mapped by that room from `signal.reason`.
 */
import { createRequire } from 'node:module';

/**
 * `abort-controller-x` is CommonJS: loaded through `require` it costs a few milliseconds, through an ES `import`
 * (Node's CommonJS export detection over each of its re-exporting modules) about 30 ms of every process's start-up.
 */
const abortControllerX = createRequire(import.meta.url)('abort-controller-x') as typeof import('abort-controller-x');
const { abortable } = abortControllerX;

/** abort-controller-x's `execute` (a promise whose executor gets the signal and returns its own abort callback). */
export const { execute } = abortControllerX;

/**
 * Resolves or rejects like `work`, unless `signal` is or becomes aborted first: then it rejects at once with
 * `signal.reason`. `work` keeps running; its late settlement is observed and dropped (no unhandled rejection).
 */
export function raceWithSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return abortable(signal, work);
}

/** A signal of its own for a group of sibling operations: aborted by {@link LinkedAbort.abort} or by the parent. */
export interface LinkedAbort {
  /** Aborted when the parent aborts (with its reason) or when `abort` is called. */
  readonly signal: AbortSignal;
  /** Stops the group without aborting the parent (SESSION-REFERENCE.md §8 step 5: one failed read stops its siblings). */
  abort(reason?: unknown): void;
}

/** A {@link LinkedAbort} under `parent` (none: the group's own signal only). Nothing to remove afterwards. */
export function linkedAbort(parent: AbortSignal | undefined): LinkedAbort {
  const controller = new AbortController();
  return {
    signal: parent === undefined ? controller.signal : AbortSignal.any([parent, controller.signal]),
    abort: (reason) => controller.abort(reason),
  };
}

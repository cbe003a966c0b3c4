/**
 * Configuration of the worker pool (ARCHITECTURE.md §2: "default `min(3, cores)` threads, so three
 * source reads run in parallel where cores allow"; an aborted task that does not settle within
 * `abortGraceMs` has its thread terminated and replaced), validated once.
 */
import { availableParallelism } from 'node:os';
import { SessionPoolError } from '../../protocol/wire/pool-errors.js';

/** What a caller may pass. */
export interface PoolConfigInput {
  /** Worker threads; default `min(3, os.availableParallelism())`. */
  readonly size?: number | null;
  /**
   * How long an aborted task may take to acknowledge the abort (settle) before its worker thread is
   * terminated and replaced; default {@link DEFAULT_ABORT_GRACE_MS}. Ignored by the in-thread runner.
   */
  readonly abortGraceMs?: number | null;
}

/** The resolved configuration. */
export interface PoolConfig {
  readonly size: number;
  readonly abortGraceMs: number;
}

/**
 * The default abort grace period. A stage that polls its control port answers an abort within
 * milliseconds (its chunks are small), so one second only runs out for a thread that is stuck: a
 * system call that never returns or a loop that never polls.
 */
export const DEFAULT_ABORT_GRACE_MS = 1000;

/** The largest grace period accepted: Node's timer limit (a longer delay would fire at once, with a warning). */
export const MAX_ABORT_GRACE_MS = 2_147_483_647;

/**
 * The largest pool accepted: four threads per core the process may use. The stages are CPU-bound, so more
 * threads than cores only overlap I/O waits; beyond four per core they cost memory and contention, and a
 * mistyped size (1000) would start a thousand V8 isolates.
 */
export function maxPoolSize(): number {
  return 4 * Math.max(1, availableParallelism());
}

/** The default thread count: three parallel source reads where the machine has the cores. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(3, availableParallelism()));
}

/**
 * Fills in defaults and validates (`SESSION_POOL_INVALID_CONFIG`): `size` must be a positive safe
 * integer ≤ {@link maxPoolSize} (bounded by the machine), `abortGraceMs` a positive safe integer ≤ {@link MAX_ABORT_GRACE_MS}.
 */
export function resolvePoolConfig(input: PoolConfigInput = {}): PoolConfig {
  const size = input.size ?? defaultPoolSize();
  const bound = maxPoolSize();
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size <= 0 || size > bound) {
    throw new SessionPoolError(
      'SESSION_POOL_INVALID_CONFIG',
      `session-pool: size must be a positive safe integer no greater than ${bound} (4 per core; this machine has ${bound / 4})`,
    );
  }
  const abortGraceMs = input.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;
  // Zero is refused too: the abort message needs a round trip, so a zero grace would terminate every aborted thread.
  if (typeof abortGraceMs !== 'number' || !Number.isSafeInteger(abortGraceMs) || abortGraceMs <= 0 || abortGraceMs > MAX_ABORT_GRACE_MS) {
    throw new SessionPoolError(
      'SESSION_POOL_INVALID_CONFIG',
      `session-pool: abortGraceMs must be a positive safe integer of milliseconds no greater than ${MAX_ABORT_GRACE_MS}`,
    );
  }
  return { size, abortGraceMs };
}

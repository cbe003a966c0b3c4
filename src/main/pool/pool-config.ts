/**
 * Configuration of the worker pool (ARCHITECTURE.md §2: "default `min(3, cores)` threads, so three
 * source reads run in parallel where cores allow"), validated once.
 */
import { availableParallelism } from 'node:os';
import { SessionPoolError } from '../../protocol/wire/pool-errors.js';

/** What a caller may pass. */
export interface PoolConfigInput {
  /** Worker threads; default `min(3, os.availableParallelism())`. */
  readonly size?: number | null;
  /** Lets the test-only `testFault` task run (fault tests only). Default false. */
  readonly allowTestTasks?: boolean | null;
}

/** The resolved configuration. */
export interface PoolConfig {
  readonly size: number;
  readonly allowTestTasks: boolean;
}

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
 * integer ≤ {@link maxPoolSize} (bounded by the machine), `allowTestTasks` a boolean.
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
  const allowTestTasks = input.allowTestTasks ?? false;
  if (typeof allowTestTasks !== 'boolean') {
    throw new SessionPoolError('SESSION_POOL_INVALID_CONFIG', 'session-pool: allowTestTasks must be a boolean');
  }
  return { size, allowTestTasks };
}

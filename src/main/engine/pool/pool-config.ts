/**
 * Configuration of the worker pool (ARCHITECTURE.md §2: "default `min(3, cores)` threads, so three
 * source reads run in parallel where cores allow"; an aborted task that does not settle within
 * `abortGraceMs` has its thread terminated and replaced), validated once.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { firstConfigIssue, nullAsAbsent, safeIntegerBetween } from '../../../protocol/config-schema.js';
import { SessionPoolError } from '../../../protocol/wire/pool-errors.js';

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

/** The reason of a bad `abortGraceMs`. Zero is refused too: the abort message needs a round trip, so a zero grace would terminate every aborted thread. */
const ABORT_GRACE_REASON = `must be a positive safe integer of milliseconds no greater than ${MAX_ABORT_GRACE_MS}`;

/** The reason of a bad `size`, naming this machine's bound. */
function sizeReason(bound: number): string {
  return `must be a positive safe integer no greater than ${bound} (4 per core; this machine has ${bound / 4})`;
}

/**
 * The pool namespace's schema: type, defaults and rules in one place (the bound of `size` depends on the machine,
 * so the schema is built per resolution).
 */
function poolConfigSchema(bound: number) {
  return z.object({
    size: nullAsAbsent(safeIntegerBetween(1, bound, sizeReason(bound)).default(defaultPoolSize)),
    abortGraceMs: nullAsAbsent(safeIntegerBetween(1, MAX_ABORT_GRACE_MS, ABORT_GRACE_REASON).default(DEFAULT_ABORT_GRACE_MS)),
  });
}

/**
 * Fills in defaults and validates (`SESSION_POOL_INVALID_CONFIG`): `size` must be a positive safe
 * integer ≤ {@link maxPoolSize} (bounded by the machine), `abortGraceMs` a positive safe integer ≤ {@link MAX_ABORT_GRACE_MS}.
 * @param input - what the caller passed; absent and `null` keys take their defaults
 * @returns the resolved configuration
 */
export function resolvePoolConfig(input: PoolConfigInput = {}): PoolConfig {
  const parsed = poolConfigSchema(maxPoolSize()).safeParse({ size: input.size, abortGraceMs: input.abortGraceMs });
  if (parsed.success) return parsed.data;
  const issue = firstConfigIssue(parsed.error);
  throw new SessionPoolError('SESSION_POOL_INVALID_CONFIG', `session-pool: ${issue.key} ${issue.reason}`);
}

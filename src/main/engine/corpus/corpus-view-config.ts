/**
 * Configuration of the engine's warm corpus view (`corpus-view.ts`): whether a long-lived engine keeps its
 * discovery listing in memory, and how stale that listing may be when a file-system event is missed. Validated
 * once, here (code `SESSION_QUERY_INVALID_CONFIG`, the query layer's configuration code).
 */
import { SessionQueryError } from '../../../protocol/errors.js';

/** Default bound on staleness after a missed change notification (milliseconds). */
export const DEFAULT_CORPUS_REVALIDATE_MS = 30_000;

/** The largest accepted bound: one day (a larger value is almost certainly a unit mistake). */
export const MAX_CORPUS_REVALIDATE_MS = 86_400_000;

/** Caller-supplied configuration (loosely typed: it may come from a config file); absent or `null` takes the default. */
export interface CorpusViewConfigInput {
  /**
   * Keep the listing, headers and title observations of discovery in memory and keep them current from
   * file-system notifications (default `true` for `createEngine`; the one-shot CLI commands pass `false`).
   */
  readonly watch?: unknown;
  /**
   * The staleness bound: a discovery call that starts more than this many milliseconds after a change reflects
   * it even when its notification was lost (a background `stat` sweep runs every `revalidateMs / 2`; a call
   * finding the last completed sweep older than the bound re-validates before answering). `0`: every call
   * re-validates by `stat`. Default 30,000: a sweep of 10,000 sessions stats about 20,000 paths, which must fit well within half the bound on a loaded machine.
   */
  readonly revalidateMs?: unknown;
}

/** Validated configuration. */
export interface CorpusViewConfig {
  readonly watch: boolean;
  readonly revalidateMs: number;
}

/**
 * Applies defaults and validates; throws `SessionQueryError` `SESSION_QUERY_INVALID_CONFIG` naming the key. The
 * result is frozen.
 */
export function resolveCorpusViewConfig(input: CorpusViewConfigInput = {}): CorpusViewConfig {
  if (typeof input !== 'object' || input === null) throw invalidConfig('corpus: the corpus options must be an object');
  const watch = input.watch ?? true;
  const revalidateMs = input.revalidateMs ?? DEFAULT_CORPUS_REVALIDATE_MS;
  if (typeof watch !== 'boolean') throw invalidConfig('corpus: watch must be a boolean');
  if (!Number.isSafeInteger(revalidateMs) || (revalidateMs as number) < 0 || (revalidateMs as number) > MAX_CORPUS_REVALIDATE_MS) {
    throw invalidConfig(`corpus: revalidateMs must be an integer from 0 to ${MAX_CORPUS_REVALIDATE_MS}`);
  }
  return Object.freeze({ watch, revalidateMs: revalidateMs as number });
}

function invalidConfig(message: string): SessionQueryError {
  return new SessionQueryError('SESSION_QUERY_INVALID_CONFIG', message);
}

/**
 * The storage backend the session query layer reads persisted sessions from (SESSION-LOG.md §10.1).
 * The JSONL directory store implements it; tests use stubs.
 */
import type { SessionEvent, SessionHeader, SessionId } from '../../../protocol/events.js';
import type { ListingReport } from '../../../protocol/listing-problem.js';

/**
 * The result of one full inspection of a persisted session (SESSION-LOG.md §9.15): the validated
 * header and the frozen balanced events (stored events, then synthetic closers).
 */
export interface SessionInspection {
  readonly meta: SessionHeader;
  readonly events: readonly SessionEvent[];
}

/**
 * A backend that lists and inspects persisted sessions.
 *
 * Both operations take the caller's signal and are expected to settle promptly after it aborts
 * (SESSION-LOG.md §10.6); the query layer waits for them to settle before rejecting with the
 * signal's reason, so a backend that ignores the signal only costs time, never a wrong answer.
 */
export interface SessionStorage {
  /** The headers of every listed session (header reads only, §9.13). */
  list(signal?: AbortSignal): Promise<readonly SessionHeader[]>;
  /**
   * Optional: the listing with the entries it skipped (the JSONL store's tolerant listing). `headers` must be what
   * `list` returns. When absent, the query layer's `listSessionsReport` uses `list` and reports no problems.
   */
  listReport?(signal?: AbortSignal): Promise<ListingReport>;
  /** A full inspection of one session (§9.15); rejects with the backend's own error classes. */
  inspect(id: SessionId, signal?: AbortSignal): Promise<SessionInspection>;
  /**
   * Optional: a title observation of one persisted session (§10.5 step 5), for backends that can answer it
   * more cheaply than {@link inspect} (the JSONL store's title index, §10.7). It must settle exactly as
   * `inspect` would — same rejections (name, code, message), same `meta` — and its `events` must contain
   * the last `session/title` event of the inspected events, if any, as their last title event (the title
   * fold reads nothing else). When absent, the query layer calls `inspect`. `listing` is the array this storage's
   * `list` returned to the same query call (§10.5 step 4); the backend may answer from what that listing observed
   * (the JSONL store reuses its file revisions instead of a second `stat`), as if the observation were taken then.
   */
  inspectTitle?(id: SessionId, signal?: AbortSignal, listing?: readonly SessionHeader[]): Promise<SessionInspection>;
}

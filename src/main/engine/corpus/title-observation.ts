/**
 * Title observations (SESSION-LOG.md §6.2, §10.5) shared by the in-thread query layer and the pool's batched
 * title reads: the fold of one log into an observation, and the live-first split of a request's ids.
 */
import type { SessionEvent, SessionHeader, SessionId, SessionTitleSnapshot } from '../../../protocol/events.js';
import { foldTitle } from '../../../protocol/title-fold.js';
import type { LiveRegistry } from './live-registry.js';
import type { RejectedTitleObservation, SessionTitleObservation } from './session-query.js';

/** The observation of an id that failed with `reason`. */
export function rejectedTitle(sessionId: SessionId, reason: unknown): RejectedTitleObservation {
  return { sessionId, status: 'rejected', reason };
}

/**
 * §6.2 over one log: the header (cloned) and its current title, or the fold's error as a rejection of this id.
 *
 * @param signal - checked before and after the fold (an abort rejects the whole call, not the id).
 */
export function observeTitle(
  sessionId: SessionId,
  header: SessionHeader,
  events: readonly SessionEvent[],
  signal: AbortSignal | undefined,
): SessionTitleObservation {
  signal?.throwIfAborted();
  let title: SessionTitleSnapshot | undefined;
  try {
    title = foldTitle(events);
  } catch (error: unknown) {
    signal?.throwIfAborted();
    return rejectedTitle(sessionId, error);
  }
  signal?.throwIfAborted();
  const session = structuredClone(header);
  return { sessionId, status: 'fulfilled', value: title === undefined ? { session } : { session, title } };
}

/** A title request after its live ids are observed: the ids in first-occurrence order, results so far, and the rest. */
export interface LiveFirstSplit {
  readonly uniqueIds: readonly SessionId[];
  readonly results: Map<SessionId, SessionTitleObservation>;
  /** The ids no live session answered, for the store. */
  readonly unresolved: readonly SessionId[];
}

/**
 * The first step of §10.5: unique ids in first-occurrence order, every live one observed at once (live wins).
 *
 * @param signal - passed to each live observation.
 */
export function observeLiveFirst(ids: Iterable<SessionId>, registry: LiveRegistry, signal: AbortSignal | undefined): LiveFirstSplit {
  const uniqueIds = [...new Set(ids)];
  signal?.throwIfAborted();
  const results = new Map<SessionId, SessionTitleObservation>();
  const unresolved: SessionId[] = [];
  for (const id of uniqueIds) {
    const live = registry.get(id);
    if (live === undefined) unresolved.push(id);
    else results.set(id, observeTitle(id, live.header, live.events, signal));
  }
  return { uniqueIds, results, unresolved };
}

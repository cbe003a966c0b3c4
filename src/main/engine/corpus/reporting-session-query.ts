/**
 * A query layer that tells its owner, once per session, when a title could not be read. Discovery
 * still succeeds (the label falls back to the id, as the definition says); the CLI makes the
 * fallback visible on stderr instead of silent.
 */
import type { SessionId, SessionSurfaceSnapshot } from '../../../protocol/events.js';
import type { SessionRecord, SessionTitleObservation } from './session-query.js';
import type { ReferenceSessionQuery } from '../reference/reference-types.js';

/** Wraps `inner`, calling `report` once per session whose title observation was rejected. */
export class ReportingSessionQuery implements ReferenceSessionQuery {
  private readonly reported = new Set<string>();

  constructor(
    private readonly inner: ReferenceSessionQuery,
    private readonly report: (sessionId: SessionId, reason: unknown) => void,
  ) {}

  /** Delegates unchanged. */
  listSessions(signal?: AbortSignal): Promise<readonly SessionRecord[]> {
    return this.inner.listSessions(signal);
  }

  /** Delegates unchanged. */
  readSurface(sessionId: SessionId, signal?: AbortSignal): Promise<SessionSurfaceSnapshot> {
    return this.inner.readSurface(sessionId, signal);
  }

  /** Delegates, then reports each newly seen rejection. */
  async readTitleSnapshots(ids: Iterable<SessionId>, signal?: AbortSignal): Promise<readonly SessionTitleObservation[]> {
    const observations = await this.inner.readTitleSnapshots(ids, signal);
    for (const observation of observations) {
      if (observation.status !== 'rejected' || this.reported.has(observation.sessionId)) continue;
      this.reported.add(observation.sessionId);
      this.report(observation.sessionId, observation.reason);
    }
    return observations;
  }
}

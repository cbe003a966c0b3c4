/**
 * A dsh live session as the engine's live registry takes it (docs/DSH.md §2): the session's header and log, and an
 * `on('event')` fed from the host's `session/event` notifications, so the engine encodes each event into the session's
 * byte log as it is appended and a capture at preparation time costs O(1) instead of encoding what accumulated since
 * the last one on the host's thread.
 */
import type { SessionEvent, SessionHeader } from '../protocol/events.js';
import type { LiveSession } from '../main/engine/corpus/live-registry.js';
import type { DshSession } from './dsh-host-shapes.js';

/** One live dsh session, seen by the engine; {@link LiveSessionFeed.appended} is called from `session/event`. */
export class LiveSessionFeed implements LiveSession {
  readonly #session: DshSession;
  readonly #listeners = new Set<(event: SessionEvent) => void>();

  /** @param session - the host's live session; its `events` are read, never written. */
  constructor(session: DshSession) {
    this.#session = session;
  }

  /** The session's immutable header. */
  get header(): SessionHeader {
    return this.#session.header;
  }

  /** The session's whole log so far (dsh's own snapshot: the same event objects from call to call). */
  get events(): readonly SessionEvent[] {
    return this.#session.events;
  }

  /** Follows appends, as a host `Session` announces them (HOST.md §2.3). */
  on(_name: 'event', listener: (event: SessionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Announces one event the host appended to the session (already in its log). */
  appended(event: SessionEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

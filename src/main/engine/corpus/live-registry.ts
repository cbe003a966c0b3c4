/**
 * The host's registry of live sessions as the query layer sees it (SESSION-LOG.md §1, §10.1):
 * sessions held in memory, whose logs win over any persisted copy.
 */
import type { SessionEvent, SessionHeader, SessionId } from '../../../protocol/events.js';

/**
 * A session held in memory by the host. `events` is the whole log so far (seq `i` at index `i`);
 * the query layer reads it synchronously and never mutates it.
 */
export interface LiveSession {
  readonly header: SessionHeader;
  readonly events: readonly SessionEvent[];
}

/** Lookup of live sessions by id, and enumeration of all of them. */
export interface LiveRegistry {
  /** The live session with this id, or `undefined` when none is attached. */
  get(id: SessionId): LiveSession | undefined;
  /** Every attached live session (each id at most once). */
  list(): Iterable<LiveSession>;
}

/** A `LiveRegistry` backed by a map, for hosts and tests that attach and detach sessions explicitly. */
export class InMemoryLiveRegistry implements LiveRegistry {
  readonly #sessions = new Map<string, LiveSession>();

  /** Attaches `session` under `session.header.id`, replacing a session attached under the same id. */
  attach(session: LiveSession): void {
    this.#sessions.set(session.header.id, session);
  }

  /** Detaches the session with this id; returns whether one was attached. */
  detach(id: SessionId): boolean {
    return this.#sessions.delete(id);
  }

  /** The live session with this id, or `undefined`. */
  get(id: SessionId): LiveSession | undefined {
    return this.#sessions.get(id);
  }

  /** Every attached session, in attach order. */
  list(): Iterable<LiveSession> {
    return this.#sessions.values();
  }
}

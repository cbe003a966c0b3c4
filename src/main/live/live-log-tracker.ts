/**
 * Keeps a {@link LiveByteLog} beside each live session the reference pipeline reads. A host `Session`
 * announces appends (`on('event')`), so its log is encoded as it grows and a capture costs O(1); a
 * plain `LiveSession` (an object with `header` and `events`) is caught up at capture time, which costs
 * only the events appended since the previous capture. Either way each event is encoded once.
 */
import type { SessionEvent } from '../../protocol/events.js';
import type { LiveLogCapture } from '../../protocol/wire/live-log-codec.js';
import type { LiveSession } from '../corpus/live-registry.js';
import { LiveByteLog } from './live-byte-log.js';

/** A live session that notifies appends, as the host `Session` does (HOST.md §2.3). */
interface AppendNotifier {
  on(name: 'event', listener: (event: SessionEvent) => void): () => void;
}

function notifiesAppends(session: LiveSession): session is LiveSession & AppendNotifier {
  return typeof (session as Partial<AppendNotifier>).on === 'function';
}

/** The byte log of one session and what is needed to keep it in step with `session.events`. */
interface TrackedLog {
  log: LiveByteLog;
  /** The last event object encoded, to notice a log that was rewritten instead of appended to. */
  last: SessionEvent | undefined;
  /** Set when encoding inside an append notification failed; the next capture rebuilds and reports. */
  stale: boolean;
  unsubscribe: (() => void) | undefined;
}

/** The byte logs of live sessions, keyed by the session object. */
export class LiveLogTracker {
  readonly #logs = new WeakMap<LiveSession, TrackedLog>();

  /**
   * Starts keeping `session`'s byte log: encodes the events it already has (once) and, for a session
   * that notifies appends, every later event as it is appended. Idempotent.
   */
  track(session: LiveSession): void {
    if (this.#logs.has(session)) return;
    const tracked: TrackedLog = { log: new LiveByteLog(), last: undefined, stale: false, unsubscribe: undefined };
    this.#logs.set(session, tracked);
    this.#catchUp(session, tracked);
    if (notifiesAppends(session)) {
      tracked.unsubscribe = session.on('event', () => {
        try {
          this.#catchUp(session, tracked);
        } catch {
          // An append listener must not fail the host's append; the next capture rebuilds and throws there.
          tracked.stale = true;
        }
      });
    }
  }

  /** How many events of `session` are encoded so far (`undefined` when untracked); for diagnostics and tests. */
  encodedEvents(session: LiveSession): number | undefined {
    return this.#logs.get(session)?.log.events;
  }

  /** Stops keeping `session`'s byte log. */
  untrack(session: LiveSession): void {
    const tracked = this.#logs.get(session);
    tracked?.unsubscribe?.();
    this.#logs.delete(session);
  }

  /**
   * The session's log as of now (SESSION-LOG.md §10.4: a live log's current length). Tracks the session
   * on first use; afterwards O(1) plus the events appended since the last capture, if any.
   */
  capture(session: LiveSession): LiveLogCapture {
    this.track(session);
    const tracked = this.#logs.get(session) as TrackedLog;
    this.#catchUp(session, tracked);
    return tracked.log.capture();
  }

  /** Encodes the events `session.events` gained since the log last caught up (rebuilding after a rewrite). */
  #catchUp(session: LiveSession, tracked: TrackedLog): void {
    const events = session.events;
    const encoded = tracked.log.events;
    if (tracked.stale || events.length < encoded || (encoded > 0 && events[encoded - 1] !== tracked.last)) {
      tracked.log = new LiveByteLog();
      tracked.last = undefined;
      tracked.stale = false;
    }
    for (let index = tracked.log.events; index < events.length; index++) {
      const event = events[index] as SessionEvent;
      tracked.log.append(event);
      tracked.last = event;
    }
  }
}

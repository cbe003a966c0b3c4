/**
 * Keeps a {@link LiveByteLog} beside each live session the reference pipeline reads. A host `Session`
 * announces appends (`on('event')`), so its log is encoded as it grows and a capture costs O(1); a
 * plain `LiveSession` (an object with `header` and `events`) is caught up at capture time, which costs
 * only the events appended since the previous capture. Either way each event is encoded once.
 */
import type { SessionEvent } from '../../../protocol/events.js';
import type { LiveLogCapture } from '../../../protocol/wire/live-log-codec.js';
import type { LiveSession } from '../corpus/live-registry.js';
import { LiveByteLog } from './live-byte-log.js';
import { yieldToEventLoop } from '../../../io/yield-to-event-loop.js';

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
  /** Set while {@link LiveLogTracker.trackGradually} is still encoding the events the session had; appends wait for it. */
  gradual: Promise<void> | undefined;
}

/** A capture and the id of the log it is of. */
export interface LiveLogSnapshot {
  readonly logId: string;
  readonly capture: LiveLogCapture;
}

/** Events encoded between two looks at the clock during a gradual catch-up. */
const GRADUAL_BATCH_EVENTS = 64;

/** The byte logs of live sessions, keyed by the session object. */
export class LiveLogTracker {
  readonly #logs = new WeakMap<LiveSession, TrackedLog>();

  /**
   * Starts keeping `session`'s byte log: encodes the events it already has (once) and, for a session
   * that notifies appends, every later event as it is appended. Idempotent.
   *
   * @throws SessionLogError `SESSION_LOG_TOO_DEEP` when an event nests deeper than SESSION-LOG.md §9.15a allows; the
   *   session is then not tracked (a later call checks it again).
   */
  track(session: LiveSession): void {
    if (this.#logs.has(session)) return;
    const tracked = this.#start(session);
    try {
      this.#catchUp(session, tracked);
    } catch (error) {
      // A log that cannot be encoded (an event beyond the nesting limit) is not kept half-tracked.
      this.untrack(session);
      throw error;
    }
  }

  /**
   * Like {@link track}, but encodes the events the session already has in slices of about `sliceMs` milliseconds,
   * yielding to the event loop between slices, so that starting to track a long session does not stall the thread.
   * Returns `undefined` when the log is already current (a capture now is O(1)), else a promise that resolves once
   * it is. A {@link capture} taken meanwhile finishes the catch-up synchronously.
   */
  trackGradually(session: LiveSession, sliceMs: number): Promise<void> | undefined {
    const known = this.#logs.get(session);
    if (known !== undefined) return known.gradual;
    const tracked = this.#start(session);
    if (tracked.log.events === session.events.length) return undefined;
    tracked.gradual = this.#catchUpInSlices(session, tracked, sliceMs).finally(() => {
      tracked.gradual = undefined;
    });
    return tracked.gradual;
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
   *
   * @throws SessionLogError `SESSION_LOG_TOO_DEEP` when an event nests deeper than SESSION-LOG.md §9.15a allows.
   */
  capture(session: LiveSession): LiveLogCapture {
    this.track(session);
    const tracked = this.#logs.get(session) as TrackedLog;
    this.#catchUp(session, tracked);
    return tracked.log.capture();
  }

  /**
   * Like {@link capture}, with the id of the byte log the capture is of ({@link LiveByteLog.id}): the two are taken
   * together, because a capture can rebuild a log that no longer matches its session.
   */
  snapshot(session: LiveSession): LiveLogSnapshot {
    const capture = this.capture(session);
    return { logId: (this.#logs.get(session) as TrackedLog).log.id, capture };
  }

  /** Registers `session` with an empty log and, for a session that notifies appends, follows its appends. */
  #start(session: LiveSession): TrackedLog {
    const tracked: TrackedLog = { log: new LiveByteLog(), last: undefined, stale: false, unsubscribe: undefined, gradual: undefined };
    this.#logs.set(session, tracked);
    if (notifiesAppends(session)) {
      tracked.unsubscribe = session.on('event', () => {
        // During a gradual catch-up the slices reach new events too; encoding here would undo the slicing.
        if (tracked.gradual !== undefined) return;
        try {
          this.#catchUp(session, tracked);
        } catch {
          // An append listener must not fail the host's append; the next capture rebuilds and throws there.
          tracked.stale = true;
        }
      });
    }
    return tracked;
  }

  /** Encodes the events `session.events` gained since the log last caught up (rebuilding after a rewrite). */
  #catchUp(session: LiveSession, tracked: TrackedLog): void {
    this.#encodeUpTo(session, tracked, session.events.length);
  }

  /** Encodes events up to index `limit` (exclusive), first rebuilding a log that no longer matches the session. */
  #encodeUpTo(session: LiveSession, tracked: TrackedLog, limit: number): void {
    const events = session.events;
    const encoded = tracked.log.events;
    if (tracked.stale || events.length < encoded || (encoded > 0 && events[encoded - 1] !== tracked.last)) {
      tracked.log = new LiveByteLog();
      tracked.last = undefined;
      tracked.stale = false;
    }
    for (let index = tracked.log.events; index < Math.min(limit, events.length); index++) {
      const event = events[index] as SessionEvent;
      tracked.log.append(event);
      tracked.last = event;
    }
  }

  /** The gradual catch-up: slices of about `sliceMs`, a macrotask hop between them, until the log is current. */
  async #catchUpInSlices(session: LiveSession, tracked: TrackedLog, sliceMs: number): Promise<void> {
    while (this.#logs.get(session) === tracked && tracked.log.events < session.events.length) {
      const deadline = performance.now() + sliceMs;
      do this.#encodeUpTo(session, tracked, tracked.log.events + GRADUAL_BATCH_EVENTS);
      while (tracked.log.events < session.events.length && performance.now() < deadline);
      await yieldToEventLoop();
    }
  }
}

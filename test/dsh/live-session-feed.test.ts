/**
 * A dsh live session as the engine sees it (docs/DSH.md §2): the engine's live-log tracker follows the feed's
 * announcements, so each appended event is encoded when the host announces it (`session/event`), not at the next
 * capture; a capture after the appends returns the whole log.
 */
import { describe, expect, it } from 'vitest';
import { LiveSessionFeed } from '../../src/dsh/live-session-feed.js';
import { LiveLogTracker } from '../../src/main/engine/live/live-log-tracker.js';
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.js';
import { userMessage } from '../protocol/event-builders.js';

/** A dsh-like session: a header, and an `events` snapshot of the log so far. */
function dshSession(): { id: string; header: SessionHeader; log: SessionEvent[]; readonly events: readonly SessionEvent[] } {
  const log: SessionEvent[] = [];
  return {
    id: 'live',
    header: { version: 0, id: asSessionId('live'), createdAt: 1 },
    log,
    get events() {
      return [...log];
    },
  };
}

describe('LiveSessionFeed', () => {
  it('hands the engine the session header and log, and announces appends to the tracker as they happen', () => {
    const session = dshSession();
    const feed = new LiveSessionFeed(session);
    expect(feed.header).toBe(session.header);
    const tracker = new LiveLogTracker();
    tracker.track(feed);
    expect(tracker.encodedEvents(feed)).toBe(0);
    for (let seq = 0; seq < 3; seq++) {
      const event = userMessage(seq, `text ${seq}`);
      session.log.push(event);
      feed.appended(event);
      // Encoded on the announcement: no capture has happened.
      expect(tracker.encodedEvents(feed)).toBe(seq + 1);
    }
    expect(tracker.capture(feed).events).toBe(3);
    expect(feed.events).toEqual(session.log);
  });

  it('stops announcing to a listener that unsubscribed (a detached session)', () => {
    const session = dshSession();
    const feed = new LiveSessionFeed(session);
    const tracker = new LiveLogTracker();
    tracker.track(feed);
    tracker.untrack(feed);
    const event = userMessage(0, 'after detach');
    session.log.push(event);
    expect(() => feed.appended(event)).not.toThrow();
    expect(tracker.encodedEvents(feed)).toBeUndefined();
  });
});

// Live byte logs (ARCHITECTURE.md §3 "Live sources"): encoded once per append, O(1) capture, a capture
// names exactly the prefix that existed when it was taken, and a worker decodes it to the events.
import { describe, expect, it } from 'vitest';
import { FIRST_CHUNK_BYTES, LiveByteLog, MAX_CHUNK_BYTES } from '../../../../src/main/engine/live/live-byte-log.js';
import { LiveLogTracker } from '../../../../src/main/engine/live/live-log-tracker.js';
import {
  decodeLiveLogCapture,
  forEachLiveLogEventFrom,
  isLiveLogCapture,
  LIVE_LOG_START,
} from '../../../../src/protocol/wire/live-log-codec.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { newSession, userData } from '../../stand-in/host/host-builders.js';

function event(seq: number, text = `message ${seq}`): SessionEvent {
  return {
    type: 'user/message',
    seq,
    time: 1000 + seq,
    data: { id: `u${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } },
    surfaceOp: 'append',
  };
}

describe('LiveByteLog', () => {
  it('a capture decodes to the events appended before it, and later appends do not change it', () => {
    const log = new LiveByteLog();
    const events = Array.from({ length: 50 }, (_, seq) => event(seq));
    for (const item of events.slice(0, 30)) log.append(item);
    const early = log.capture();
    for (const item of events.slice(30)) log.append(item);
    expect(decodeLiveLogCapture(early)).toEqual(events.slice(0, 30));
    expect(decodeLiveLogCapture(log.capture())).toEqual(events);
    expect(early.events).toBe(30);
    expect(isLiveLogCapture(early)).toBe(true);
  });

  it('seals chunks as it grows, never splits an entry, and keeps earlier captures valid', () => {
    const log = new LiveByteLog();
    const big = 'x'.repeat(40 * 1024);
    const events = Array.from({ length: 12 }, (_, seq) => event(seq, `${seq}:${big}`));
    const captures = events.map((item) => {
      log.append(item);
      return log.capture();
    });
    const last = captures.at(-1)!;
    expect(last.sealed.buffers.length).toBeGreaterThan(2);
    expect(last.sealed.buffers[0]?.byteLength).toBe(FIRST_CHUNK_BYTES);
    expect(last.sealed.buffers[1]?.byteLength).toBe(2 * FIRST_CHUNK_BYTES);
    captures.forEach((capture, index) => expect(decodeLiveLogCapture(capture)).toEqual(events.slice(0, index + 1)));
  });

  it('decoding from the position an earlier capture ended at yields exactly the later events, across sealed chunks', () => {
    const log = new LiveByteLog();
    const big = 'y'.repeat(30 * 1024);
    const events = Array.from({ length: 20 }, (_, seq) => event(seq, `${seq}:${big}`));
    let position = LIVE_LOG_START;
    const seen: unknown[] = [];
    for (const [from, to] of [
      [0, 3],
      [3, 4],
      [4, 11],
      [11, 11],
      [11, 20],
    ] as const) {
      for (const item of events.slice(from, to)) log.append(item);
      const decoded: unknown[] = [];
      position = forEachLiveLogEventFrom(log.capture(), position, (item) => decoded.push(item));
      expect(decoded).toEqual(events.slice(from, to));
      expect(position.events).toBe(to);
      seen.push(...decoded);
    }
    expect(log.capture().sealed.buffers.length).toBeGreaterThan(2);
    expect(seen).toEqual(events);
    // A position past the capture (of a longer log) is refused, not misread.
    const short = new LiveByteLog();
    short.append(event(0));
    expect(() => forEachLiveLogEventFrom(short.capture(), position, () => undefined)).toThrow(RangeError);
  });

  it('an entry larger than the chunk cap gets a chunk of its own size', () => {
    const log = new LiveByteLog();
    log.append(event(0));
    const huge = event(1, 'h'.repeat(MAX_CHUNK_BYTES + 10));
    log.append(huge);
    log.append(event(2));
    const capture = log.capture();
    expect(capture.sealed.buffers.some((buffer) => buffer.byteLength > MAX_CHUNK_BYTES)).toBe(true);
    expect(decodeLiveLogCapture(capture)).toEqual([event(0), huge, event(2)]);
  });

  it('a capture whose event count disagrees with its bytes is rejected', () => {
    const log = new LiveByteLog();
    log.append(event(0));
    expect(() => decodeLiveLogCapture({ ...log.capture(), events: 2 })).toThrow(
      new RangeError('live log capture holds 1 events, expected 2'),
    );
  });

  it('isLiveLogCapture rejects malformed captures', () => {
    const capture = new LiveByteLog().capture();
    expect(isLiveLogCapture({ ...capture, tailLength: capture.tail.byteLength + 1 })).toBe(false);
    expect(isLiveLogCapture({ ...capture, tail: new ArrayBuffer(8) })).toBe(false);
    expect(isLiveLogCapture({ ...capture, sealed: { buffers: [], lengths: [1] } })).toBe(false);
    expect(isLiveLogCapture(null)).toBe(false);
  });
});

describe('LiveLogTracker', () => {
  it('a host Session is encoded at append time (on("event")), so a capture encodes nothing', () => {
    const session = newSession('live');
    session.append('user/message', userData('before tracking'), { surfaceOp: 'append' });
    const tracker = new LiveLogTracker();
    tracker.track(session);
    expect(tracker.encodedEvents(session)).toBe(session.events.length);
    session.append('user/message', userData('after tracking'), { surfaceOp: 'append' });
    // Encoded by the append notification, before any capture.
    expect(tracker.encodedEvents(session)).toBe(session.events.length);
    expect(decodeLiveLogCapture(tracker.capture(session))).toEqual(structuredClone(session.events));
  });

  it('a plain live session is caught up at capture time, only by the events added since', () => {
    const session = { header: { version: 0, id: 'plain', createdAt: 1 } as never, events: [event(0), event(1)] };
    const tracker = new LiveLogTracker();
    const first = tracker.capture(session);
    session.events.push(event(2));
    expect(tracker.encodedEvents(session)).toBe(2);
    const second = tracker.capture(session);
    expect(decodeLiveLogCapture(first)).toEqual([event(0), event(1)]);
    expect(decodeLiveLogCapture(second)).toEqual([event(0), event(1), event(2)]);
  });

  it('a log that was rewritten instead of appended to is re-encoded from scratch', () => {
    const session = { header: { version: 0, id: 'rewritten', createdAt: 1 } as never, events: [event(0), event(1)] };
    const tracker = new LiveLogTracker();
    tracker.capture(session);
    session.events[1] = event(1, 'replaced');
    expect(decodeLiveLogCapture(tracker.capture(session))).toEqual([event(0), event(1, 'replaced')]);
    session.events.length = 1;
    expect(decodeLiveLogCapture(tracker.capture(session))).toEqual([event(0)]);
  });

  it('untrack unsubscribes from the session', () => {
    const session = newSession('gone');
    const tracker = new LiveLogTracker();
    tracker.track(session);
    tracker.untrack(session);
    session.append('user/message', userData('unseen'), { surfaceOp: 'append' });
    expect(tracker.encodedEvents(session)).toBeUndefined();
  });

  it('trackGradually encodes in slices between macrotasks, picks up appends made meanwhile, and ends current', async () => {
    const session = newSession('gradual');
    for (let index = 0; index < 400; index += 1) session.append('user/message', userData(`early ${index}`), { surfaceOp: 'append' });
    const tracker = new LiveLogTracker();
    const pending = tracker.trackGradually(session, 0.001);
    expect(pending).toBeInstanceOf(Promise);
    const atOnce = tracker.encodedEvents(session)!;
    expect(atOnce).toBeLessThan(session.events.length);
    // An append during the catch-up is not encoded by the append notification (that would undo the slicing)...
    session.append('user/message', userData('during'), { surfaceOp: 'append' });
    expect(tracker.encodedEvents(session)).toBe(atOnce);
    await pending;
    // ...but the slices reach it, and afterwards appends are encoded as they land.
    expect(tracker.encodedEvents(session)).toBe(session.events.length);
    expect(tracker.trackGradually(session, 0.001)).toBeUndefined();
    session.append('user/message', userData('after'), { surfaceOp: 'append' });
    expect(tracker.encodedEvents(session)).toBe(session.events.length);
    expect(decodeLiveLogCapture(tracker.capture(session))).toEqual(structuredClone(session.events));
  });

  it('a capture during a gradual catch-up finishes it synchronously', async () => {
    const session = newSession('hurried');
    for (let index = 0; index < 400; index += 1) session.append('user/message', userData(`early ${index}`), { surfaceOp: 'append' });
    const tracker = new LiveLogTracker();
    const pending = tracker.trackGradually(session, 0.001);
    expect(decodeLiveLogCapture(tracker.capture(session))).toEqual(structuredClone(session.events));
    await pending;
    expect(tracker.encodedEvents(session)).toBe(session.events.length);
  });
});

// HOST.md §2.3 append notifications and the re-entrancy rule of SESSION-LOG.md §2.4 rule 5.
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import type { SurfaceDelta } from '../../../../src/protocol/surface-view.js';
import { appendRaw, expectThrow, newSession, userData } from './host-builders.js';

const REENTRY = 'session append cannot reenter while another append is being published';

describe('delta shapes', () => {
  it('undefined for log-only events, append with position, replace with position and shadowed in former order', () => {
    const session = newSession();
    const seen: Array<[number, SurfaceDelta | undefined]> = [];
    session.on('event', (event, delta) => seen.push([event.seq, delta]));
    session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } });
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    session.append('user/message', userData('b'), { surfaceOp: 'append' });
    session.append('user/message', userData('c'), { surfaceOp: 'append' });
    session.append('user/message', userData('bc'), { surfaceOp: { op: 'replace', start: 2, end: 3 }, sourceEventSeqs: [3, 2] });
    expect(seen).toEqual([
      [0, undefined],
      [1, { kind: 'append', position: 0 }],
      [2, { kind: 'append', position: 1 }],
      [3, { kind: 'append', position: 2 }],
      [4, { kind: 'replace', position: 1, shadowed: [2, 3] }],
    ]);
  });

  it('runs synchronously after the event is stored, with the surface already updated', () => {
    const session = newSession();
    let observed: { length: number; position: number } | undefined;
    session.on('event', (event) => {
      observed = { length: session.events.length, position: session.surface.positionOf(event.seq) };
    });
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    expect(observed).toEqual({ length: 1, position: 0 });
  });

  it('stops after unsubscribe', () => {
    const session = newSession();
    const seen: number[] = [];
    const off = session.on('event', (event) => seen.push(event.seq));
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    off();
    session.append('user/message', userData('b'), { surfaceOp: 'append' });
    expect(seen).toEqual([0]);
  });
});

describe('re-entrancy', () => {
  it('an append from inside a listener throws the SESSION-LOG text and changes nothing', () => {
    const session = newSession();
    let inner: unknown;
    session.on('event', () => {
      try {
        session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } });
      } catch (error) {
        inner = error;
      }
    });
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    expect((inner as Error).message).toBe(REENTRY);
    expect((inner as { code?: unknown }).code).toBe('HOST_REENTRANT_APPEND');
    expect(session.events).toHaveLength(1);
    // Publishing is over: appending works again.
    session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } });
    expect(session.events).toHaveLength(2);
  });

  it('keeps SESSION-LOG rule order: rules 2–4 win over rule 5, rule 5 wins over the fold rules', () => {
    const session = newSession();
    const messages: string[] = [];
    const attempt = (run: () => unknown): void => {
      try {
        run();
      } catch (error) {
        messages.push((error as Error).message);
      }
    };
    const off = session.on('event', () => {
      attempt(() => appendRaw(session, 'session/title', { title: undefined }));
      attempt(() =>
        session.append('user/message', userData('x'), { surfaceOp: { op: 'replace', start: 99, end: 99 }, sourceEventSeqs: [0] }),
      );
    });
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    off();
    expect(messages).toEqual(['session event "session/title" carries non-JSON-serializable data', REENTRY]);
  });
});

describe('listener failures', () => {
  it('without a handler the first listener error is rethrown after every listener ran; the event stays', () => {
    const session = newSession();
    const seen: string[] = [];
    session.on('event', () => {
      seen.push('first');
      throw new Error('listener broke');
    });
    session.on('event', () => {
      seen.push('second');
    });
    expectThrow(() => session.append('user/message', userData('a'), { surfaceOp: 'append' }), { message: 'listener broke' });
    expect(seen).toEqual(['first', 'second']);
    expect(session.events).toHaveLength(1);
    expectThrow(() => session.append('user/message', userData('b'), { surfaceOp: 'append' }), { message: 'listener broke' });
    expect(session.events).toHaveLength(2);
  });

  it('with onListenerError the append returns normally and the handler gets the error and event', () => {
    const reports: Array<[unknown, SessionEvent]> = [];
    const session = newSession('s', { onListenerError: (error, event) => reports.push([error, event]) });
    session.on('event', () => {
      throw new Error('x');
    });
    const event = session.append('user/message', userData('a'), { surfaceOp: 'append' });
    expect(reports).toHaveLength(1);
    expect(reports[0]![1]).toBe(event);
  });
});

// readSurface: SESSION-LOG.md §10.1, §10.4, §5.2; SESSION-REFERENCE.md §15 items 73–81 (81 without the worker part).
import { describe, expect, it } from 'vitest';
import {
  SessionFormatUnsupportedError,
  SessionLogError,
  SessionPersistenceCorruptionError,
  SessionQueryError,
} from '../../../../src/protocol/errors.js';
import { asSessionId, type SessionEvent, type SessionHeader, type SessionId } from '../../../../src/protocol/events.js';
import { classifyEvents } from '../../../../src/protocol/surface-fold.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery, isSessionQueryError } from '../../../../src/main/engine/corpus/session-query.js';
import type { SessionInspection, SessionStorage } from '../../../../src/main/engine/corpus/session-storage.js';
import { deferred, flush, track } from '../../../support/async-probes.js';

const id = asSessionId;

function header(sessionId: string, createdAt: number, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { version: 0, id: id(sessionId), createdAt, ...extra };
}

function userMessage(messageId: string, text: string, source: Record<string, unknown> = { kind: 'user' }) {
  return { id: messageId, role: 'user', content: [{ type: 'text', text }], source };
}

function user(seq: number, text: string): SessionEvent {
  return { type: 'user/message', seq, time: 1000 + seq, data: userMessage(`u${seq}`, text), surfaceOp: 'append' };
}

function checkpoint(seq: number, text: string, start: number, end: number, cites: number[]): SessionEvent {
  return {
    type: 'user/message',
    seq,
    time: 1000 + seq,
    data: userMessage(`c${seq}`, `<compacted-summary>${text}</compacted-summary>`, {
      kind: 'plugin',
      plugin: 'compact',
      compactionId: `k${seq}`,
    }),
    sourceEventSeqs: cites,
    surfaceOp: { op: 'replace', start, end },
  };
}

function assistantData(seq: number, content: unknown[]) {
  return {
    turn: 1,
    step: 1,
    message: { id: `a${seq}`, role: 'assistant', content, source: { kind: 'model', provider: 'scripted', model: 'scripted-1' } },
  };
}

function assistant(seq: number, text: string): SessionEvent {
  return { type: 'assistant/message', seq, time: 1000 + seq, data: assistantData(seq, [{ type: 'text', text }]), surfaceOp: 'append' };
}

function chunk(seq: number): SessionEvent {
  return { type: 'assistant/chunk', seq, time: 1000 + seq, data: { turn: 1, step: 1, chunk: { type: 'text-delta', text: 'partial' } } };
}

function toolResult(seq: number, callId: string, text: string): SessionEvent {
  return {
    type: 'tool/result',
    seq,
    time: 1000 + seq,
    data: {
      turn: 1,
      step: 1,
      message: {
        id: `t${seq}`,
        role: 'user',
        content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: false }],
        source: { kind: 'tool', callId },
      },
    },
    surfaceOp: 'append',
  };
}

/** The item 73 log. */
function compactedLog(): SessionEvent[] {
  return [
    user(0, 'old'),
    chunk(1),
    checkpoint(2, 'first', 0, 0, [0]),
    user(3, 'retained tail'),
    checkpoint(4, 'second', 2, 3, [2, 3]),
    assistant(5, 'latest answer'),
  ];
}

type ListFn = (signal: AbortSignal | undefined) => Promise<readonly SessionHeader[]>;
type InspectFn = (sessionId: SessionId, signal: AbortSignal | undefined) => Promise<SessionInspection>;

/** A storage stub with scripted operations that records every call and the signal it got. */
class StubStorage implements SessionStorage {
  readonly listSignals: (AbortSignal | undefined)[] = [];
  readonly inspections: { id: SessionId; signal: AbortSignal | undefined }[] = [];

  constructor(
    private readonly onList: ListFn,
    private readonly onInspect: InspectFn,
  ) {}

  list(signal?: AbortSignal): Promise<readonly SessionHeader[]> {
    this.listSignals.push(signal);
    return this.onList(signal);
  }

  inspect(sessionId: SessionId, signal?: AbortSignal): Promise<SessionInspection> {
    this.inspections.push({ id: sessionId, signal });
    return this.onInspect(sessionId, signal);
  }
}

/** A storage holding fixed sessions: lists their headers, inspects them by id. */
function storageOf(sessions: readonly SessionInspection[]): StubStorage {
  return new StubStorage(
    () => Promise.resolve(sessions.map((session) => session.meta)),
    (sessionId) => {
      const found = sessions.find((session) => session.meta.id === sessionId);
      return found === undefined ? Promise.reject(new Error(`session "${sessionId}" not found`)) : Promise.resolve(found);
    },
  );
}

function failingStorage(): StubStorage {
  return new StubStorage(
    () => Promise.reject(new Error('storage offline')),
    () => Promise.reject(new Error('storage offline')),
  );
}

async function failure(promise: Promise<unknown>): Promise<SessionQueryError> {
  const reason = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(reason).toBeInstanceOf(SessionQueryError);
  return reason as SessionQueryError;
}

function seqTypes(events: readonly SessionEvent[]): [number, string][] {
  return events.map((event) => [event.seq, event.type]);
}

function firstText(message: unknown): unknown {
  return (message as { content: { text: unknown }[] }).content[0]?.text;
}

describe('readSurface on live sessions', () => {
  it('item 73: folds the live log; capturedThroughSeq 5; current nodes 4 and 5; frozen messages; detached header', async () => {
    const registry = new InMemoryLiveRegistry();
    const liveHeader = header('source', 1, { cwd: '/source' });
    const events = compactedLog();
    registry.attach({ header: liveHeader, events });
    const snapshot = await new SessionQuery({ registry }).readSurface(id('source'));

    expect(Object.keys(snapshot)).toEqual(['session', 'capturedThroughSeq', 'events']);
    expect(snapshot.capturedThroughSeq).toBe(5);
    expect(seqTypes(snapshot.events)).toEqual([
      [4, 'user/message'],
      [5, 'assistant/message'],
    ]);
    const [summaryEvent, answerEvent] = snapshot.events;
    expect(summaryEvent).toEqual(events[4]);
    expect(answerEvent).toEqual(events[5]);
    expect(summaryEvent).not.toBe(events[4]);

    const userMessageData = summaryEvent!.data as { content: unknown };
    expect(() => {
      userMessageData.content = [];
    }).toThrow(TypeError);
    const assistantMessage = (answerEvent!.data as { message: { content: { text: string }[] } }).message;
    expect(() => {
      assistantMessage.content = [];
    }).toThrow(TypeError);
    expect(() => {
      assistantMessage.content[0]!.text = 'rewritten';
    }).toThrow(TypeError);
    // Only the message is frozen; the source log is untouched.
    expect(Object.isFrozen(answerEvent)).toBe(false);
    expect(Object.isFrozen(events[5]!.data)).toBe(false);

    expect(snapshot.session).toEqual(liveHeader);
    expect(snapshot.session).not.toBe(liveHeader);
    expect(Object.isFrozen(snapshot.session)).toBe(false);
    (snapshot.session as { cwd?: string }).cwd = '/elsewhere';
    expect(liveHeader.cwd).toBe('/source');
  });

  it('freezes a tool/result message and keeps the tool-result block intact', async () => {
    const registry = new InMemoryLiveRegistry();
    const call = { type: 'tool-call', id: 'call-1', name: 'read', arguments: '{}' };
    const events: SessionEvent[] = [
      user(0, 'please read'),
      { type: 'assistant/message', seq: 1, time: 1001, data: assistantData(1, [call]), surfaceOp: 'append' },
      toolResult(2, 'call-1', 'file body'),
    ];
    registry.attach({ header: header('tools', 1), events });
    const snapshot = await new SessionQuery({ registry }).readSurface(id('tools'));
    expect(seqTypes(snapshot.events)).toEqual([
      [0, 'user/message'],
      [1, 'assistant/message'],
      [2, 'tool/result'],
    ]);
    const message = (snapshot.events[2]!.data as { message: { content: { content: unknown[] }[] } }).message;
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(message.content[0]!.content)).toBe(true);
    expect(snapshot.events[2]).toEqual(events[2]);
  });

  it('item 74: an empty log gives capturedThroughSeq null and no events', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('empty', 1), events: [] });
    const snapshot = await new SessionQuery({ registry }).readSurface(id('empty'));
    expect(snapshot).toEqual({ session: header('empty', 1), capturedThroughSeq: null, events: [] });
  });

  it('capturedThroughSeq counts trailing log-only events', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({
      header: header('chunks', 1),
      events: [
        user(0, 'hi'),
        chunk(1),
        { type: 'session/title', seq: 2, time: 5, data: { title: 't', messageSeqs: [0], source: { kind: 'fallback' } } },
      ],
    });
    const snapshot = await new SessionQuery({ registry }).readSurface(id('chunks'));
    expect(snapshot.capturedThroughSeq).toBe(2);
    expect(seqTypes(snapshot.events)).toEqual([[0, 'user/message']]);
  });

  it('item 79: an assistant message replacing a user message leaves only the assistant current', async () => {
    const registry = new InMemoryLiveRegistry();
    const replacing: SessionEvent = {
      ...assistant(2, 'rewritten answer'),
      sourceEventSeqs: [0],
      surfaceOp: { op: 'replace', start: 0, end: 0 },
    };
    const events = [user(0, 'question'), chunk(1), replacing];
    expect(classifyEvents(events)).toEqual(['shadowed', 'log-only', 'current']);
    registry.attach({ header: header('replace', 1), events });
    const snapshot = await new SessionQuery({ registry }).readSurface(id('replace'));
    expect(snapshot.capturedThroughSeq).toBe(2);
    expect(seqTypes(snapshot.events)).toEqual([[2, 'assistant/message']]);
  });

  it('item 76: live reads never call storage, even failing storage', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live', 1), events: [user(0, 'hello')] });
    const storage = failingStorage();
    const snapshot = await new SessionQuery({ registry, storage }).readSurface(id('live'));
    expect(seqTypes(snapshot.events)).toEqual([[0, 'user/message']]);
    expect(storage.listSignals).toHaveLength(0);
    expect(storage.inspections).toHaveLength(0);
  });
});

describe('readSurface on persisted sessions', () => {
  it('folds an inspected log exactly like a live one', async () => {
    const meta = header('stored', 3, { cwd: '/stored' });
    const events = compactedLog();
    const storage = storageOf([{ meta, events }]);
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const snapshot = await query.readSurface(id('stored'), controller.signal);
    expect(snapshot.capturedThroughSeq).toBe(5);
    expect(seqTypes(snapshot.events)).toEqual([
      [4, 'user/message'],
      [5, 'assistant/message'],
    ]);
    expect(snapshot.session).toEqual(meta);
    expect(snapshot.session).not.toBe(meta);
    expect(snapshot.events[1]).not.toBe(events[5]);
    expect(Object.isFrozen((snapshot.events[1]!.data as { message: unknown }).message)).toBe(true);
    expect(storage.listSignals).toEqual([controller.signal]);
    expect(storage.inspections).toEqual([{ id: 'stored', signal: controller.signal }]);
  });

  it('item 74: an empty persisted log gives capturedThroughSeq null', async () => {
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: storageOf([{ meta: header('e', 1), events: [] }]) });
    const snapshot = await query.readSurface(id('e'));
    expect(snapshot.capturedThroughSeq).toBeNull();
    expect(snapshot.events).toEqual([]);
  });

  it('item 75: the live copy wins over the persisted one; a persisted-only id reads storage', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('shared', 20), events: [user(0, 'live content')] });
    const storage = storageOf([
      { meta: header('shared', 20), events: [user(0, 'persisted content')] },
      { meta: header('durable', 10), events: [user(0, 'durable content')] },
    ]);
    const query = new SessionQuery({ registry, storage });
    const shared = await query.readSurface(id('shared'));
    expect(firstText(shared.events[0]!.data)).toBe('live content');
    expect(storage.inspections).toHaveLength(0);
    const durable = await query.readSurface(id('durable'));
    expect(firstText(durable.events[0]!.data)).toBe('durable content');
  });

  it('a live session attached while storage was inspected wins', async () => {
    const registry = new InMemoryLiveRegistry();
    const storage = new StubStorage(
      () => Promise.resolve([header('late', 4)]),
      () => {
        registry.attach({ header: header('late', 4), events: [user(0, 'attached live content')] });
        return Promise.resolve({ meta: header('late', 4), events: [user(0, 'stale persisted content')] });
      },
    );
    const snapshot = await new SessionQuery({ registry, storage }).readSurface(id('late'));
    expect(firstText(snapshot.events[0]!.data)).toBe('attached live content');
  });

  it('item 76: a persisted-only read with a failing listing rejects with PERSISTENCE_FAILED', async () => {
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: failingStorage() }).readSurface(id('x')));
    expect(error.code).toBe('SESSION_QUERY_PERSISTENCE_FAILED');
    expect(error.message).toBe('session persistence listing failed: storage offline');
  });

  it('item 77: no storage → SESSION_NOT_FOUND', async () => {
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry() }).readSurface(id('nowhere')));
    expect(error.code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    expect(error.message).toBe('session "nowhere" not found');
  });

  it('item 77: an id absent from the listing → SESSION_NOT_FOUND without an inspection', async () => {
    const storage = storageOf([{ meta: header('other', 1), events: [] }]);
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readSurface(id('absent')));
    expect(error.code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    expect(error.message).toBe('session "absent" not found');
    expect(storage.inspections).toHaveLength(0);
  });

  it('item 77: an inspection rejecting with a string → PERSISTENCE_FAILED "unknown error"', async () => {
    const storage = new StubStorage(
      () => Promise.resolve([header('s', 1)]),
      () => Promise.reject('not an error'),
    );
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readSurface(id('s')));
    expect(error.code).toBe('SESSION_QUERY_PERSISTENCE_FAILED');
    expect(error.message).toBe('failed to inspect session "s": unknown error');
    expect(error.cause).toBe('not an error');
  });

  it('item 77: a header that changed between list and inspect → SOURCE_CONFLICT', async () => {
    const storage = new StubStorage(
      () => Promise.resolve([header('moved', 1, { cwd: '/before' })]),
      () => Promise.resolve({ meta: header('moved', 1, { cwd: '/after' }), events: [] }),
    );
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readSurface(id('moved')));
    expect(error.code).toBe('SESSION_QUERY_SOURCE_CONFLICT');
    expect(error.message).toBe('session source headers conflict for session "moved"');
  });

  it('item 78: a user/message without surfaceOp from a non-validating storage → INVALID_SURFACE', async () => {
    const { surfaceOp: _dropped, ...bare } = user(0, 'no marker');
    const storage = storageOf([{ meta: header('bad', 1), events: [bare] }]);
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readSurface(id('bad')));
    expect(error.code).toBe('SESSION_QUERY_INVALID_SURFACE');
    expect(error.message).toBe('invalid session surface: session event "user/message" is surface-eligible and requires a surfaceOp marker');
    expect(error.cause).toBeInstanceOf(SessionLogError);
    expect((error.cause as Error).message).toBe('session event "user/message" is surface-eligible and requires a surfaceOp marker');
  });

  it('item 78: a non-contiguous live log → INVALID_SURFACE with the fold text', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('gap', 1), events: [user(0, 'a'), user(2, 'b')] });
    const error = await failure(new SessionQuery({ registry }).readSurface(id('gap')));
    expect(error.code).toBe('SESSION_QUERY_INVALID_SURFACE');
    expect(error.message).toBe('invalid session surface: session event seq 2 is not contiguous; expected 1');
  });

  it('item 78: an extra envelope key with a valid surface is returned (fold only, no replay validation)', async () => {
    const odd = { ...user(0, 'kept'), extra: 'envelope key' } as SessionEvent;
    const storage = storageOf([{ meta: header('odd', 1), events: [odd] }]);
    const snapshot = await new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readSurface(id('odd'));
    expect(snapshot.events).toEqual([odd]);
    expect((snapshot.events[0] as unknown as { extra: string }).extra).toBe('envelope key');
  });

  it('item 80: SessionPersistenceCorruptionError → CORRUPT_SESSION with the wrapped text, cause kept', async () => {
    const corruption = new SessionPersistenceCorruptionError('broken', new Error('bad event'));
    const storage = new StubStorage(
      () => Promise.resolve([header('broken', 1)]),
      () => Promise.reject(corruption),
    );
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readSurface(id('broken')));
    expect(error.code).toBe('SESSION_QUERY_CORRUPT_SESSION');
    expect(error.message).toBe('stored session "broken" is corrupt: stored session "broken" failed validation: Error: bad event');
    expect(error.cause).toBe(corruption);
    expect(isSessionQueryError(error, 'SESSION_QUERY_CORRUPT_SESSION')).toBe(true);
  });

  it('item 80: corruption is recognised by error name (errors rebuilt across a thread boundary)', async () => {
    const rebuilt = new Error('stored session "w" failed validation: Error: x');
    rebuilt.name = 'SessionPersistenceCorruptionError';
    const storage = new StubStorage(
      () => Promise.resolve([header('w', 1)]),
      () => Promise.reject(rebuilt),
    );
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readSurface(id('w')));
    expect(error.code).toBe('SESSION_QUERY_CORRUPT_SESSION');
    expect(error.message).toBe('stored session "w" is corrupt: stored session "w" failed validation: Error: x');
  });

  it('SessionFormatUnsupportedError and plain errors map to PERSISTENCE_FAILED', async () => {
    const unsupported = new SessionFormatUnsupportedError(
      'session "v1" uses log format v1, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it',
    );
    const storage = new StubStorage(
      () => Promise.resolve([header('v1', 1)]),
      () => Promise.reject(unsupported),
    );
    const error = await failure(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readSurface(id('v1')));
    expect(error.code).toBe('SESSION_QUERY_PERSISTENCE_FAILED');
    expect(error.message).toBe(`failed to inspect session "v1": ${unsupported.message}`);
    expect(error.cause).toBe(unsupported);
  });
});

describe('readSurface signal semantics', () => {
  it('item 81: a pre-aborted signal rejects with the reason and calls nothing', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live', 1), events: [user(0, 'x')] });
    const storage = storageOf([{ meta: header('stored', 1), events: [] }]);
    const query = new SessionQuery({ registry, storage });
    const controller = new AbortController();
    const reason = new Error('pre-aborted');
    controller.abort(reason);
    await expect(query.readSurface(id('stored'), controller.signal)).rejects.toBe(reason);
    await expect(query.readSurface(id('live'), controller.signal)).rejects.toBe(reason);
    expect(storage.listSignals).toHaveLength(0);
    expect(storage.inspections).toHaveLength(0);
  });

  it('an abort during the inspection waits for it to settle, then rejects with the reason', async () => {
    const release = deferred<SessionInspection>();
    let inspectionSawAbort = false;
    const storage = new StubStorage(
      () => Promise.resolve([header('slow', 1)]),
      (_sessionId, signal) => {
        signal?.addEventListener('abort', () => (inspectionSawAbort = true));
        return release.promise;
      },
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const reason = { reason: 'object reasons pass through unchanged' };
    const call = query.readSurface(id('slow'), controller.signal);
    const state = track(call);
    await flush();
    expect(storage.inspections).toHaveLength(1);
    controller.abort(reason);
    await flush();
    expect(inspectionSawAbort).toBe(true);
    expect(state.settled).toBe(false);
    release.reject(new SessionPersistenceCorruptionError('slow', new Error('not reported under abort')));
    await expect(call).rejects.toBe(reason);
  });

  it('an inspection that ignores the abort and succeeds still yields the reason', async () => {
    const release = deferred<SessionInspection>();
    const storage = new StubStorage(
      () => Promise.resolve([header('s', 1)]),
      () => release.promise,
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const reason = new Error('stop');
    const call = query.readSurface(id('s'), controller.signal);
    await flush();
    controller.abort(reason);
    release.resolve({ meta: header('s', 1), events: [user(0, 'x')] });
    await expect(call).rejects.toBe(reason);
  });

  it('an abort during the listing rejects with the reason and starts no inspection', async () => {
    const release = deferred<readonly SessionHeader[]>();
    const storage = new StubStorage(
      () => release.promise,
      () => Promise.resolve({ meta: header('s', 1), events: [] }),
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const reason = new Error('stop listing');
    const call = query.readSurface(id('s'), controller.signal);
    const state = track(call);
    controller.abort(reason);
    await flush();
    expect(state.settled).toBe(false);
    release.resolve([header('s', 1)]);
    await expect(call).rejects.toBe(reason);
    expect(storage.inspections).toHaveLength(0);
  });
});

// readTitleSnapshots / readTitleSnapshot / readTitle: SESSION-LOG.md §10.1, §10.5, §6.2;
// SESSION-REFERENCE.md §15 items 63–71.
import { describe, expect, it } from 'vitest';
import { SessionPersistenceCorruptionError, SessionQueryError } from '../../../../src/protocol/errors.js';
import { asSessionId, type SessionEvent, type SessionHeader, type SessionId } from '../../../../src/protocol/events.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery, type SessionTitleObservation } from '../../../../src/main/engine/corpus/session-query.js';
import type { SessionInspection, SessionStorage } from '../../../../src/main/engine/corpus/session-storage.js';
import { deferred, flush, track } from '../../../support/async-probes.js';

const id = asSessionId;

function header(sessionId: string, createdAt: number, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { version: 0, id: id(sessionId), createdAt, ...extra };
}

function user(seq: number, text: string): SessionEvent {
  return {
    type: 'user/message',
    seq,
    time: 100 + seq,
    data: { id: `u${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } },
    surfaceOp: 'append',
  };
}

function title(seq: number, text: string, time: number): SessionEvent {
  return { type: 'session/title', seq, time, data: { title: text, messageSeqs: [], source: { kind: 'fallback' } } };
}

function titledLog(text: string): SessionEvent[] {
  return [user(0, 'hello'), title(1, text, 500)];
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

  get inspectedIds(): SessionId[] {
    return this.inspections.map((call) => call.id);
  }
}

function storageOf(sessions: readonly SessionInspection[]): StubStorage {
  return new StubStorage(
    () => Promise.resolve(sessions.map((session) => session.meta)),
    (sessionId) => {
      const found = sessions.find((session) => session.meta.id === sessionId);
      return found === undefined ? Promise.reject(new Error('unexpected inspection')) : Promise.resolve(found);
    },
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Settles (rejects) as soon as `signal` aborts, like a storage call that honours its signal. */
function untilAborted<T>(signal: AbortSignal | undefined, onAbort?: () => void): Promise<T> {
  return new Promise<T>((_resolve, reject) => {
    signal?.addEventListener('abort', () => {
      onAbort?.();
      reject(new Error('storage call aborted'));
    });
  });
}

function statusOf(results: readonly SessionTitleObservation[]): [string, string][] {
  return results.map((result) => [result.sessionId, result.status]);
}

function fulfilledTitle(result: SessionTitleObservation | undefined): unknown {
  if (result?.status !== 'fulfilled') throw new Error(`expected a fulfilled observation, got ${JSON.stringify(result)}`);
  return result.value.title?.title;
}

function rejectionOf(result: SessionTitleObservation | undefined): unknown {
  if (result?.status !== 'rejected') throw new Error(`expected a rejected observation, got ${JSON.stringify(result)}`);
  return result.reason;
}

describe('title reads', () => {
  it('item 63: a persisted title folds to its snapshot; a live title wins over a stale persisted one', async () => {
    const registry = new InMemoryLiveRegistry();
    const storage = storageOf([
      { meta: header('stored', 1), events: [title(0, 'Persisted title', 20)] },
      { meta: header('both', 2), events: [title(0, 'Stale title', 10)] },
    ]);
    registry.attach({ header: header('both', 2), events: [user(0, 'hi'), title(1, 'Live title', 30)] });
    const query = new SessionQuery({ registry, storage });
    const snapshot = await query.readTitle(id('stored'));
    expect(snapshot).toMatchObject({ title: 'Persisted title', eventSeq: 0, updatedAt: 20 });
    expect(snapshot).toEqual({ title: 'Persisted title', messageSeqs: [], source: { kind: 'fallback' }, eventSeq: 0, updatedAt: 20 });
    expect((await query.readTitle(id('both')))?.title).toBe('Live title');
    expect(storage.inspectedIds).toEqual([id('stored')]);
  });

  it('item 64: dedupes ids, keeps first-occurrence order, lists once, passes the signal to every inspection', async () => {
    const storage = storageOf([
      { meta: header('first', 1), events: titledLog('First') },
      { meta: header('second', 2), events: titledLog('Second') },
    ]);
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const results = await query.readTitleSnapshots([id('second'), id('first'), id('second'), id('missing')], controller.signal);
    expect(statusOf(results)).toEqual([
      ['second', 'fulfilled'],
      ['first', 'fulfilled'],
      ['missing', 'rejected'],
    ]);
    expect(fulfilledTitle(results[0])).toBe('Second');
    expect(fulfilledTitle(results[1])).toBe('First');
    const missing = rejectionOf(results[2]) as SessionQueryError;
    expect(missing.code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    expect(missing.message).toBe('session "missing" not found');
    expect(storage.listSignals).toEqual([controller.signal]);
    expect(storage.inspections).toEqual([
      { id: 'second', signal: controller.signal },
      { id: 'first', signal: controller.signal },
    ]);
  });

  it('result and value keys are in the §10.5 order; headers are detached and unfrozen', async () => {
    const meta = header('s', 1, { cwd: '/s' });
    const storage = storageOf([{ meta, events: titledLog('T') }]);
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const [ok, missing] = await query.readTitleSnapshots([id('s'), id('nope')]);
    expect(Object.keys(ok!)).toEqual(['sessionId', 'status', 'value']);
    expect(Object.keys(missing!)).toEqual(['sessionId', 'status', 'reason']);
    if (ok?.status !== 'fulfilled') throw new Error('expected fulfilled');
    expect(Object.keys(ok.value)).toEqual(['session', 'title']);
    expect(ok.value.session).toEqual(meta);
    expect(ok.value.session).not.toBe(meta);
    expect(Object.isFrozen(ok.value.session)).toBe(false);
    expect(Object.isFrozen(ok.value.title)).toBe(true);
  });

  it('item 65: 12 persisted ids with concurrency 4 run at most 4 inspections at once; results in input order', async () => {
    const ids = Array.from({ length: 12 }, (_, index) => id(`s${index}`));
    let active = 0;
    let maxActive = 0;
    const storage = new StubStorage(
      () => Promise.resolve(ids.map((sessionId, index) => header(sessionId, index))),
      async (sessionId) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        const index = Number(sessionId.slice(1));
        // Later ids finish sooner, so completion order differs from input order.
        await sleep((12 - index) % 5);
        active -= 1;
        return { meta: header(sessionId, index), events: titledLog(`title ${sessionId}`) };
      },
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage, config: { persistedInspectConcurrency: 4 } });
    const results = await query.readTitleSnapshots(ids);
    expect(maxActive).toBe(4);
    expect(results.map((result) => result.sessionId)).toEqual(ids);
    expect(results.map(fulfilledTitle)).toEqual(ids.map((sessionId) => `title ${sessionId}`));
    expect(storage.inspectedIds).toEqual(ids);
  });

  it('item 66: each log is folded before its worker starts another inspection; results hold no log content', async () => {
    const ids = Array.from({ length: 8 }, (_, index) => id(`g${index}`));
    const trace: string[] = [];
    const storage = new StubStorage(
      () => Promise.resolve(ids.map((sessionId) => header(sessionId, 1))),
      async (sessionId) => {
        trace.push(`inspect ${sessionId}`);
        await sleep(Number(sessionId.slice(1)) % 3);
        const data = {
          get title(): string {
            trace.push(`fold ${sessionId}`);
            return `title ${sessionId}`;
          },
          messageSeqs: [0],
          source: { kind: 'fallback' },
        };
        const events: SessionEvent[] = [user(0, 'secret log body'), { type: 'session/title', seq: 1, time: 9, data }];
        return { meta: header(sessionId, 1), events };
      },
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage, config: { persistedInspectConcurrency: 4 } });
    const results = await query.readTitleSnapshots(ids);
    const fifthInspection = trace.indexOf(`inspect ${ids[4]}`);
    expect(trace.slice(0, fifthInspection).some((entry) => entry.startsWith('fold '))).toBe(true);
    // Generally: the (k+1)-th inspection starts only after at least k-3 folds.
    ids.forEach((sessionId, index) => {
      const start = trace.indexOf(`inspect ${sessionId}`);
      const foldsBefore = trace.slice(0, start).filter((entry) => entry.startsWith('fold ')).length;
      expect(foldsBefore).toBeGreaterThanOrEqual(index - 3);
    });
    for (const result of results) {
      if (result.status !== 'fulfilled') throw new Error('expected fulfilled');
      expect(Object.keys(result.value)).toEqual(['session', 'title']);
    }
    expect(JSON.stringify(results)).not.toContain('secret log body');
  });

  it('item 67: a stalled inspection sees the abort; the batch rejects with the same reason', async () => {
    let inspectionSawAbort = false;
    const storage = new StubStorage(
      () => Promise.resolve([header('stalled', 1)]),
      (_sessionId, signal) => untilAborted(signal, () => (inspectionSawAbort = true)),
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const call = query.readTitleSnapshots([id('stalled')], controller.signal);
    await flush();
    expect(storage.inspections).toHaveLength(1);
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(inspectionSawAbort).toBe(true);
  });

  it('item 68: concurrency 2, 8 ids, abort after two start: started inspections are awaited, none further start', async () => {
    const ids = Array.from({ length: 8 }, (_, index) => id(`c${index}`));
    const releases = new Map<string, ReturnType<typeof deferred<SessionInspection>>>();
    const sawAbort = new Set<string>();
    const storage = new StubStorage(
      () => Promise.resolve(ids.map((sessionId) => header(sessionId, 1))),
      (sessionId, signal) => {
        signal?.addEventListener('abort', () => sawAbort.add(sessionId));
        const release = deferred<SessionInspection>();
        releases.set(sessionId, release);
        return release.promise;
      },
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage, config: { persistedInspectConcurrency: 2 } });
    const controller = new AbortController();
    const reason = new Error('abort the batch');
    const call = query.readTitleSnapshots(ids, controller.signal);
    const state = track(call);
    await flush();
    expect(storage.inspectedIds).toEqual([id('c0'), id('c1')]);
    controller.abort(reason);
    await flush();
    expect([...sawAbort].sort()).toEqual(['c0', 'c1']);
    expect(state.settled).toBe(false);
    // One inspection ignores the abort and succeeds, the other fails: neither changes the outcome.
    releases.get('c0')!.resolve({ meta: header('c0', 1), events: titledLog('late') });
    await flush();
    expect(state.settled).toBe(false);
    releases.get('c1')!.reject(new Error('interrupted'));
    await expect(call).rejects.toBe(reason);
    expect(storage.inspections).toHaveLength(2);
  });

  it('item 69: a stalled listing + abort rejects with the reason and inspects nothing', async () => {
    const storage = new StubStorage(
      (signal) => untilAborted(signal),
      () => Promise.resolve({ meta: header('x', 1), events: [] }),
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const reason = new Error('listing cancelled');
    const call = query.readTitleSnapshots([id('x'), id('y')], controller.signal);
    await flush();
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(storage.inspections).toHaveLength(0);
  });

  it('a listing that ignores the abort and succeeds still rejects the batch with the reason', async () => {
    const release = deferred<readonly SessionHeader[]>();
    const storage = new StubStorage(
      () => release.promise,
      () => Promise.resolve({ meta: header('x', 1), events: [] }),
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const reason = new Error('stop');
    const call = query.readTitleSnapshots([id('x')], controller.signal);
    controller.abort(reason);
    release.resolve([header('x', 1)]);
    await expect(call).rejects.toBe(reason);
    expect(storage.inspections).toHaveLength(0);
  });

  it('a pre-aborted signal rejects with the reason before touching storage or folding', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live', 1), events: titledLog('L') });
    const storage = storageOf([{ meta: header('stored', 1), events: [] }]);
    const controller = new AbortController();
    const reason = 'pre-aborted string reason';
    controller.abort(reason);
    const query = new SessionQuery({ registry, storage });
    await expect(query.readTitleSnapshots([id('live'), id('stored')], controller.signal)).rejects.toBe(reason);
    await expect(query.readTitle(id('live'), controller.signal)).rejects.toBe(reason);
    expect(storage.listSignals).toHaveLength(0);
  });

  it('item 70: isolation — attached-live wins, inspection failure and fold TypeError reject only their ids', async () => {
    const registry = new InMemoryLiveRegistry();
    const ioFailure = new Error('io failure');
    const noSeqs: SessionEvent = { type: 'session/title', seq: 0, time: 1, data: { title: 'x', source: { kind: 'fallback' } } };
    const storage = new StubStorage(
      () => Promise.resolve(['attached', 'failing', 'noseqs', 'fine'].map((sessionId) => header(sessionId, 1))),
      (sessionId) => {
        switch (sessionId) {
          case 'attached':
            registry.attach({ header: header('attached', 1), events: [title(0, 'Attached live title', 7)] });
            return Promise.resolve({ meta: header('attached', 1), events: [title(0, 'Persisted title', 3)] });
          case 'failing':
            return Promise.reject(ioFailure);
          case 'noseqs':
            return Promise.resolve({ meta: header('noseqs', 1), events: [noSeqs] });
          default:
            return Promise.resolve({ meta: header(sessionId, 1), events: titledLog('Fine title') });
        }
      },
    );
    const query = new SessionQuery({ registry, storage });
    const results = await query.readTitleSnapshots([id('attached'), id('failing'), id('noseqs'), id('fine')]);
    expect(statusOf(results)).toEqual([
      ['attached', 'fulfilled'],
      ['failing', 'rejected'],
      ['noseqs', 'rejected'],
      ['fine', 'fulfilled'],
    ]);
    expect(fulfilledTitle(results[0])).toBe('Attached live title');
    const failed = rejectionOf(results[1]) as SessionQueryError;
    expect(failed).toBeInstanceOf(SessionQueryError);
    expect(failed.code).toBe('SESSION_QUERY_PERSISTENCE_FAILED');
    expect(failed.message).toBe('failed to inspect session "failing": io failure');
    expect(failed.cause).toBe(ioFailure);
    expect(rejectionOf(results[2])).toBeInstanceOf(TypeError);
    expect(fulfilledTitle(results[3])).toBe('Fine title');
  });

  it('a corrupt persisted log rejects its id with CORRUPT_SESSION', async () => {
    const corruption = new SessionPersistenceCorruptionError('bad', new Error('broken event'));
    const storage = new StubStorage(
      () => Promise.resolve([header('bad', 1)]),
      () => Promise.reject(corruption),
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const reason = (await query.readTitleSnapshot(id('bad')).catch((error: unknown) => error)) as SessionQueryError;
    expect(reason.code).toBe('SESSION_QUERY_CORRUPT_SESSION');
    expect(reason.message).toBe('stored session "bad" is corrupt: stored session "bad" failed validation: Error: broken event');
    expect(reason.cause).toBe(corruption);
  });

  it('a header that changed between list and inspect rejects only that id with SOURCE_CONFLICT', async () => {
    const storage = new StubStorage(
      () => Promise.resolve([header('moved', 1, { cwd: '/a' }), header('steady', 2)]),
      (sessionId) =>
        Promise.resolve(
          sessionId === 'moved' ? { meta: header('moved', 1, { cwd: '/b' }), events: [] } : { meta: header('steady', 2), events: [] },
        ),
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const [moved, steady] = await query.readTitleSnapshots([id('moved'), id('steady')]);
    const conflict = rejectionOf(moved) as SessionQueryError;
    expect(conflict.code).toBe('SESSION_QUERY_SOURCE_CONFLICT');
    expect(conflict.message).toBe('session source headers conflict for session "moved"');
    expect(steady?.status).toBe('fulfilled');
  });

  it('a live log whose title fold fails rejects only that id', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('broken', 1), events: [{ type: 'session/title', seq: 0, time: 1, data: null }] });
    registry.attach({ header: header('ok', 1), events: titledLog('Ok') });
    const results = await new SessionQuery({ registry }).readTitleSnapshots([id('broken'), id('ok')]);
    expect(rejectionOf(results[0])).toBeInstanceOf(TypeError);
    expect(fulfilledTitle(results[1])).toBe('Ok');
  });

  it('item 71: without storage, duplicate live ids give one result without a title key; missing ids are not found', async () => {
    const registry = new InMemoryLiveRegistry();
    const liveHeader = header('live', 1);
    registry.attach({ header: liveHeader, events: [user(0, 'no title yet')] });
    const query = new SessionQuery({ registry });
    const results = await query.readTitleSnapshots([id('live'), id('live')]);
    expect(results).toEqual([{ sessionId: 'live', status: 'fulfilled', value: { session: liveHeader } }]);
    if (results[0]?.status !== 'fulfilled') throw new Error('expected fulfilled');
    expect('title' in results[0].value).toBe(false);
    expect(await query.readTitle(id('live'))).toBeUndefined();

    const [, missing] = await query.readTitleSnapshots([id('live'), id('missing')]);
    expect((rejectionOf(missing) as SessionQueryError).code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    const thrown = (await query.readTitleSnapshot(id('missing')).catch((error: unknown) => error)) as SessionQueryError;
    expect(thrown).toBeInstanceOf(SessionQueryError);
    expect(thrown.code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    expect(thrown.message).toBe('session "missing" not found');
  });

  it('item 71: an id attached after the listing (and absent from it) resolves from the live registry', async () => {
    const registry = new InMemoryLiveRegistry();
    const storage = new StubStorage(
      () => {
        registry.attach({ header: header('newcomer', 5), events: [title(0, 'Newcomer title', 11)] });
        return Promise.resolve([]);
      },
      () => Promise.reject(new Error('must not inspect')),
    );
    const results = await new SessionQuery({ registry, storage }).readTitleSnapshots([id('newcomer'), id('ghost')]);
    expect(fulfilledTitle(results[0])).toBe('Newcomer title');
    expect((rejectionOf(results[1]) as SessionQueryError).code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    expect(storage.inspections).toHaveLength(0);
  });

  it('item 71: a failing listing keeps live results fulfilled and rejects the rest with PERSISTENCE_FAILED', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live', 1), events: titledLog('Live') });
    const listingFailure = new Error('root unreadable');
    const storage = new StubStorage(
      () => Promise.reject(listingFailure),
      () => Promise.reject(new Error('must not inspect')),
    );
    const results = await new SessionQuery({ registry, storage }).readTitleSnapshots([id('missing'), id('live')]);
    expect(statusOf(results)).toEqual([
      ['missing', 'rejected'],
      ['live', 'fulfilled'],
    ]);
    const reason = rejectionOf(results[0]) as SessionQueryError;
    expect(reason.code).toBe('SESSION_QUERY_PERSISTENCE_FAILED');
    expect(reason.message).toBe('session persistence listing failed: root unreadable');
    expect(reason.cause).toBe(listingFailure);
    expect(fulfilledTitle(results[1])).toBe('Live');
  });

  it('a listing that fails while aborted rejects the whole batch with the reason', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live', 1), events: titledLog('Live') });
    const controller = new AbortController();
    const reason = new Error('aborted during listing');
    const storage = new StubStorage(
      () => {
        controller.abort(reason);
        return Promise.reject(new Error('listing interrupted'));
      },
      () => Promise.reject(new Error('must not inspect')),
    );
    await expect(new SessionQuery({ registry, storage }).readTitleSnapshots([id('live'), id('x')], controller.signal)).rejects.toBe(reason);
  });

  it('item 76: live title reads never call storage', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('a', 1), events: titledLog('A') });
    registry.attach({ header: header('b', 2), events: [] });
    const storage = new StubStorage(
      () => Promise.reject(new Error('offline')),
      () => Promise.reject(new Error('offline')),
    );
    const results = await new SessionQuery({ registry, storage }).readTitleSnapshots([id('a'), id('b')]);
    expect(statusOf(results)).toEqual([
      ['a', 'fulfilled'],
      ['b', 'fulfilled'],
    ]);
    expect(storage.listSignals).toHaveLength(0);
  });

  it('an empty id list resolves to no results without touching storage', async () => {
    const storage = storageOf([]);
    expect(await new SessionQuery({ registry: new InMemoryLiveRegistry(), storage }).readTitleSnapshots([])).toEqual([]);
    expect(storage.listSignals).toHaveLength(0);
  });
});

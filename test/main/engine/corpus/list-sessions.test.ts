// listSessions: SESSION-LOG.md §10.1, §10.3, §7.3; SESSION-REFERENCE.md §15 items 60–63, 72, 75, 76.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionQueryError } from '../../../../src/protocol/errors.js';
import { asSessionId, type SessionHeader, type SessionId } from '../../../../src/protocol/events.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery, type SessionRecord } from '../../../../src/main/engine/corpus/session-query.js';
import type { SessionInspection, SessionStorage } from '../../../../src/main/engine/corpus/session-storage.js';
import { readExpected } from '../../../support/fixtures.js';
import { deferred, flush, track } from '../../../support/async-probes.js';

function header(id: string, createdAt: number, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { version: 0, id: asSessionId(id), createdAt, ...extra };
}

/** A storage stub whose `list` is scripted per test and whose calls are recorded. */
class StubStorage implements SessionStorage {
  readonly listSignals: (AbortSignal | undefined)[] = [];
  readonly inspected: SessionId[] = [];

  constructor(private readonly onList: (signal: AbortSignal | undefined) => Promise<readonly SessionHeader[]>) {}

  list(signal?: AbortSignal): Promise<readonly SessionHeader[]> {
    this.listSignals.push(signal);
    return this.onList(signal);
  }

  inspect(id: SessionId): Promise<SessionInspection> {
    this.inspected.push(id);
    return Promise.reject(new Error('listSessions must not inspect'));
  }
}

function listing(headers: readonly SessionHeader[]): StubStorage {
  return new StubStorage(() => Promise.resolve(headers));
}

function summary(records: readonly SessionRecord[]): [string, boolean, boolean][] {
  return records.map((record) => [record.header.id, record.live, record.persisted]);
}

describe('listSessions signal semantics', () => {
  it('item 60: a pre-aborted signal rejects with the exact reason and never calls storage', async () => {
    const storage = listing([header('a', 1)]);
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    for (const reason of [new Error('stop'), 'plain string reason', { custom: true }]) {
      const controller = new AbortController();
      controller.abort(reason);
      await expect(query.listSessions(controller.signal)).rejects.toBe(reason);
    }
    expect(storage.listSignals).toHaveLength(0);
  });

  it('item 61: an abort during list waits for storage to settle, then rejects with the reason', async () => {
    const release = deferred<readonly SessionHeader[]>();
    let storageSawAbort = false;
    const storage = new StubStorage((signal) => {
      signal?.addEventListener('abort', () => (storageSawAbort = true));
      return release.promise;
    });
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const controller = new AbortController();
    const reason = new Error('cancelled by caller');
    const call = query.listSessions(controller.signal);
    const state = track(call);
    await flush();
    expect(storage.listSignals).toEqual([controller.signal]);
    controller.abort(reason);
    await flush();
    expect(storageSawAbort).toBe(true);
    expect(state.settled).toBe(false);
    release.reject(new Error('storage interrupted'));
    await expect(call).rejects.toBe(reason);
  });

  it('item 62: storage that ignores the abort and resolves [] still yields the reason', async () => {
    const release = deferred<readonly SessionHeader[]>();
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: new StubStorage(() => release.promise) });
    const controller = new AbortController();
    const reason = new Error('late abort');
    const call = query.listSessions(controller.signal);
    controller.abort(reason);
    release.resolve([]);
    await expect(call).rejects.toBe(reason);
  });

  it('a listing that fails while the signal is aborted rejects with the reason, not a query error', async () => {
    const controller = new AbortController();
    const reason = new Error('abort wins');
    const storage = new StubStorage(() => {
      controller.abort(reason);
      return Promise.reject(new Error('disk gone'));
    });
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    await expect(query.listSessions(controller.signal)).rejects.toBe(reason);
  });
});

describe('listSessions records', () => {
  it('item 63: record keys are exactly header, live, persisted', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live', 2), events: [] });
    const query = new SessionQuery({ registry, storage: listing([header('stored', 1)]) });
    const records = await query.listSessions();
    expect(records.map((record) => Object.keys(record))).toEqual([
      ['header', 'live', 'persisted'],
      ['header', 'live', 'persisted'],
    ]);
  });

  it('item 72: live sessions sort by createdAt descending then id; headers are detached and unfrozen', async () => {
    const registry = new InMemoryLiveRegistry();
    const older = header('older', 1);
    const z = header('z', 2, { cwd: '/z' });
    const a = header('a', 2);
    registry.attach({ header: older, events: [] });
    registry.attach({ header: z, events: [] });
    registry.attach({ header: a, events: [] });
    const query = new SessionQuery({ registry });
    const records = await query.listSessions();
    expect(summary(records)).toEqual([
      ['a', true, false],
      ['z', true, false],
      ['older', true, false],
    ]);
    const returned = records[1]!.header;
    expect(returned).toEqual(z);
    expect(returned).not.toBe(z);
    expect(Object.isFrozen(returned)).toBe(false);
    (returned as { cwd?: string }).cwd = '/mutated';
    expect(z.cwd).toBe('/z');
    expect((await query.listSessions())[1]!.header.cwd).toBe('/z');
  });

  it('item 75: a live session overlays its persisted record; removing storage leaves the live record only', async () => {
    const registry = new InMemoryLiveRegistry();
    const sharedLive = header('shared', 20, { cwd: '/work' });
    registry.attach({ header: sharedLive, events: [] });
    const storage = listing([header('shared', 20, { cwd: '/work', delegationDepth: 0 }), header('durable', 10)]);
    const query = new SessionQuery({ registry, storage });
    const records = await query.listSessions();
    expect(summary(records)).toEqual([
      ['shared', true, true],
      ['durable', false, true],
    ]);
    // The live header wins (here: without the persisted delegationDepth key).
    expect(records[0]!.header).toEqual(sharedLive);

    query.setStorage(undefined);
    expect(await query.listSessions()).toEqual([{ header: sharedLive, live: true, persisted: false }]);
  });

  it.each([
    ['cwd changed', header('shared', 20, { cwd: '/elsewhere' })],
    ['delegationDepth 1 against an absent live value', header('shared', 20, { cwd: '/work', delegationDepth: 1 })],
    ['createdAt changed', header('shared', 21, { cwd: '/work' })],
    ['parentSession present only in storage', header('shared', 20, { cwd: '/work', parentSession: 'p' })],
  ])('item 75: %s fails the whole listing with SESSION_QUERY_SOURCE_CONFLICT', async (_name, persisted) => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('shared', 20, { cwd: '/work' }), events: [] });
    const query = new SessionQuery({ registry, storage: listing([persisted, header('durable', 10)]) });
    const error = await query.listSessions().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(SessionQueryError);
    expect((error as SessionQueryError).code).toBe('SESSION_QUERY_SOURCE_CONFLICT');
    expect((error as SessionQueryError).message).toBe('session source headers conflict for session "shared"');
  });

  it('origin and agentPreset differences are not conflicts (§7.3)', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('s', 5, { origin: 'subagent', agentPreset: 'x' }), events: [] });
    const query = new SessionQuery({ registry, storage: listing([header('s', 5, { delegationDepth: 0 })]) });
    expect(summary(await query.listSessions())).toEqual([['s', true, true]]);
  });

  it('item 76: a failing listing rejects with SESSION_QUERY_PERSISTENCE_FAILED, cause kept', async () => {
    const failure = new Error('disk gone');
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: new StubStorage(() => Promise.reject(failure)) });
    const error = (await query.listSessions().catch((reason: unknown) => reason)) as SessionQueryError;
    expect(error).toBeInstanceOf(SessionQueryError);
    expect(error.code).toBe('SESSION_QUERY_PERSISTENCE_FAILED');
    expect(error.message).toBe('session persistence listing failed: disk gone');
    expect(error.cause).toBe(failure);
  });

  it('a non-Error listing failure is reported as unknown error', async () => {
    const query = new SessionQuery({
      registry: new InMemoryLiveRegistry(),
      storage: new StubStorage(() => Promise.reject('string failure')),
    });
    const error = (await query.listSessions().catch((reason: unknown) => reason)) as SessionQueryError;
    expect(error.message).toBe('session persistence listing failed: unknown error');
    expect(error.cause).toBe('string failure');
  });

  it('persisted headers are cloned, not frozen, and never inspected', async () => {
    const stored = header('stored', 1, { cwd: '/s' });
    const storage = listing([stored]);
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const [record] = await query.listSessions();
    expect(record).toEqual({ header: stored, live: false, persisted: true });
    expect(record!.header).not.toBe(stored);
    expect(Object.isFrozen(record!.header)).toBe(false);
    expect(storage.inspected).toEqual([]);
  });
});

describe('listSessions ordering against the dsh fixture listing', () => {
  interface ExpectedRecord {
    header: SessionHeader;
    live: boolean;
    persisted: boolean;
  }
  const expected = readExpected<ExpectedRecord[]>('listing.json');

  it('reproduces expected/listing.json exactly from shuffled persisted headers', async () => {
    const headers = expected.map((record) => record.header);
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(headers, { minLength: headers.length, maxLength: headers.length }), async (shuffled) => {
        const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: listing(shuffled) });
        const records = await query.listSessions();
        expect(records).toEqual(expected);
        expect(JSON.stringify(records)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 50 },
    );
  });
});

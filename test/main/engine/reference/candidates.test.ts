// Candidate discovery: SESSION-REFERENCE.md §7 (rank, race rule, listCandidates, host face); §15 items 13–22.
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionQuery, SessionRecord, SessionTitleObservation } from '../../../../src/main/engine/corpus/session-query.js';
import type { ReferenceSessionQuery } from '../../../../src/main/engine/reference/reference-types.js';
import { SessionQueryError } from '../../../../src/protocol/errors.js';
import type { SessionId } from '../../../../src/protocol/events.js';
import {
  StubQuery,
  deferred,
  expectReferenceError,
  liveCorpus,
  record,
  rejectionOf,
  service,
  settle,
  target,
  titleEvent,
  trackUnhandledRejections,
  untitled,
  within,
} from './reference-builders.js';

const CANCELLED = 'SESSION_REFERENCE_CANCELLED';
const CANCELLED_TEXT = 'session reference preparation was cancelled';

let tracker: ReturnType<typeof trackUnhandledRejections> | undefined;
afterEach(() => {
  tracker?.stop();
  tracker = undefined;
});

/** The item 13 corpus: target(/same,10), other(/else,40), none(no cwd,30), same(/same,20), same-later(/same,25,'Latest title'). */
function item13Corpus(): SessionQuery {
  return liveCorpus([
    { id: 'target', cwd: '/same', createdAt: 10 },
    { id: 'other', cwd: '/else', createdAt: 40 },
    { id: 'none', createdAt: 30 },
    { id: 'same', cwd: '/same', createdAt: 20 },
    { id: 'same-later', cwd: '/same', createdAt: 25, events: [titleEvent(0, 'Latest title')] },
  ]).query;
}

/** Forwards to a real query layer and records the ids of every `readTitleSnapshots` call. */
function recordingTitles(query: SessionQuery): { calls: SessionId[][]; query: ReferenceSessionQuery } {
  const calls: SessionId[][] = [];
  return {
    calls,
    query: {
      listSessions: (signal) => query.listSessions(signal),
      readSurface: (sessionId, signal) => query.readSurface(sessionId, signal),
      readTitleSnapshots: (ids, signal) => {
        const list = [...ids];
        calls.push(list);
        return query.readTitleSnapshots(list, signal);
      },
    },
  };
}

describe('listCandidates ordering and labels (items 13, 14)', () => {
  it('ranks same cwd, then cwd-less, then the rest, each newest first, with titles as labels', async () => {
    const found = await service(item13Corpus()).listCandidates(target('target', '/same'));
    // JSON text pins the key order and the absent cwd key of `none`.
    expect(JSON.stringify(found)).toBe(
      JSON.stringify([
        { sessionId: 'same-later', label: 'Latest title', cwd: '/same', createdAt: 25 },
        { sessionId: 'same', label: 'same', cwd: '/same', createdAt: 20 },
        { sessionId: 'none', label: 'none', createdAt: 30 },
        { sessionId: 'other', label: 'other', cwd: '/else', createdAt: 40 },
      ]),
    );
    expect(Object.keys(found[2] as object)).toEqual(['sessionId', 'label', 'createdAt']);
  });

  it('filters by cwd and by title case-insensitively, then applies the limit', async () => {
    const resolver = service(item13Corpus());
    const byCwd = await resolver.listCandidates(target('target', '/same'), 'els', 1);
    expect(byCwd.map((candidate) => candidate.sessionId)).toEqual(['other']);
    const byTitle = await resolver.listCandidates(target('target', '/same'), 'LATEST', 1);
    expect(JSON.stringify(byTitle)).toBe(JSON.stringify([{ sessionId: 'same-later', label: 'Latest title', cwd: '/same', createdAt: 25 }]));
  });

  it('uses the configured candidateLimit as the default limit', async () => {
    const found = await service(item13Corpus(), { candidateLimit: 2 }).listCandidates(target('target', '/same'));
    expect(found.map((candidate) => candidate.sessionId)).toEqual(['same-later', 'same']);
  });
});

describe('candidate limit (item 15)', () => {
  it.each([0, -1, 1.5, Number.NaN])('limit %s → INVALID_REFERENCE, checked before the signal and before any listing', async (limit) => {
    const stub = new StubQuery({});
    const resolver = service(stub);
    await expectReferenceError(
      resolver.listCandidates(target(), '', limit),
      'SESSION_REFERENCE_INVALID_REFERENCE',
      'candidate limit must be a positive safe integer',
    );
    const aborted = new AbortController();
    aborted.abort(new Error('already cancelled'));
    await expectReferenceError(
      resolver.listCandidates(target(), 'query', limit, aborted.signal),
      'SESSION_REFERENCE_INVALID_REFERENCE',
      'candidate limit must be a positive safe integer',
    );
    expect(stub.listCalls).toHaveLength(0);
  });

  it('a pre-aborted signal with a valid limit → CANCELLED with the reason as cause, no listing', async () => {
    const stub = new StubQuery({});
    const aborted = new AbortController();
    const reason = new Error('superseded keystroke');
    aborted.abort(reason);
    const error = await expectReferenceError(service(stub).listCandidates(target(), '', 5, aborted.signal), CANCELLED, CANCELLED_TEXT);
    expect(error.cause).toBe(reason);
    expect(stub.listCalls).toHaveLength(0);
  });
});

describe('race rule in discovery (items 16, 19)', () => {
  it('a hanging listSessions + abort → CANCELLED before the stub is released; the late rejection is absorbed', async () => {
    tracker = trackUnhandledRejections();
    const listing = deferred<readonly SessionRecord[]>();
    const stub = new StubQuery({ listSessions: () => listing.promise });
    const controller = new AbortController();
    const call = service(stub).listCandidates(target('target', '/same'), '', undefined, controller.signal);
    await settle();
    expect(stub.listCalls).toHaveLength(1);
    expect(stub.listCalls[0]).toBe(controller.signal);
    const reason = new Error('user typed again');
    controller.abort(reason);
    const error = await expectReferenceError(within(call), CANCELLED, CANCELLED_TEXT);
    expect(error.cause).toBe(reason);
    listing.reject(new Error('late storage failure'));
    await settle();
    expect(tracker.reasons).toEqual([]);
  });

  it('a hanging listSessions resolved after the abort changes nothing', async () => {
    tracker = trackUnhandledRejections();
    const listing = deferred<readonly SessionRecord[]>();
    const stub = new StubQuery({
      listSessions: () => listing.promise,
      readTitleSnapshots: async (ids) => ids.map((id) => untitled(record(id, 1))),
    });
    const controller = new AbortController();
    const call = service(stub).listCandidates(target(), 'x', 3, controller.signal);
    await settle();
    controller.abort('cancelled by host');
    const error = await expectReferenceError(within(call), CANCELLED, CANCELLED_TEXT);
    expect(error.cause).toBe('cancelled by host');
    listing.resolve([record('x', 1)]);
    await settle();
    expect(tracker.reasons).toEqual([]);
  });

  it('readTitleSnapshots gets the very signal object; hanging + abort → CANCELLED promptly, late rejection absorbed', async () => {
    tracker = trackUnhandledRejections();
    const titles = deferred<readonly SessionTitleObservation[]>();
    const stub = new StubQuery({
      listSessions: async () => [record('source', 20, '/same'), record('target', 10, '/same')],
      readTitleSnapshots: () => titles.promise,
    });
    const controller = new AbortController();
    const call = service(stub).listCandidates(target('target', '/same'), '', 10, controller.signal);
    await settle();
    expect(stub.listCalls[0]).toBe(controller.signal);
    expect(stub.titleCalls).toHaveLength(1);
    expect(stub.titleCalls[0]?.signal).toBe(controller.signal);
    expect(stub.titleCalls[0]?.ids).toEqual(['source']);
    const reason = new Error('closed the picker');
    controller.abort(reason);
    const error = await expectReferenceError(within(call), CANCELLED, CANCELLED_TEXT);
    expect(error.cause).toBe(reason);
    titles.reject('late non-error title failure');
    await settle();
    expect(tracker.reasons).toEqual([]);
  });

  it('query failures other than cancellation propagate unchanged, with and without a signal', async () => {
    const failure = new SessionQueryError('SESSION_QUERY_PERSISTENCE_FAILED', 'session persistence listing failed: disk gone');
    const failingList = new StubQuery({ listSessions: async () => Promise.reject(failure) });
    expect(await rejectionOf(service(failingList).listCandidates(target()))).toBe(failure);
    expect(await rejectionOf(service(failingList).listCandidates(target(), '', 5, new AbortController().signal))).toBe(failure);

    const failingTitles = new StubQuery({
      listSessions: async () => [record('a', 1)],
      readTitleSnapshots: async () => Promise.reject(failure),
    });
    expect(await rejectionOf(service(failingTitles).listCandidates(target(), 'a'))).toBe(failure);
    expect(await rejectionOf(service(failingTitles).listCandidates(target(), 'a', 5, new AbortController().signal))).toBe(failure);
  });

  it('§7.2: with a signal, a non-Error rejection becomes new Error(String(x)); without one it propagates as is', async () => {
    const stub = new StubQuery({ listSessions: async () => Promise.reject('listing exploded') });
    expect(await rejectionOf(service(stub).listCandidates(target()))).toBe('listing exploded');
    const wrapped = await rejectionOf(service(stub).listCandidates(target(), '', 5, new AbortController().signal));
    expect(wrapped).toBeInstanceOf(Error);
    expect(wrapped.message).toBe('listing exploded');
  });
});

describe('host face (item 17)', () => {
  it('adds the canonical mention as the last key', async () => {
    const { query } = liveCorpus([
      { id: 'target', cwd: '/same', createdAt: 10 },
      { id: 'source]', cwd: '/same', createdAt: 20 },
    ]);
    const found = await service(query).candidates(target('target', '/same'), '', undefined);
    expect(JSON.stringify(found)).toBe(
      JSON.stringify([
        { sessionId: 'source]', label: 'source]', cwd: '/same', createdAt: 20, mention: '@[source\\]](dsh-session:InNvdXJjZV0i)' },
      ]),
    );
  });
});

describe('title observations (items 18, 20, 21)', () => {
  it('a rejected observation only falls back to the id for that record', async () => {
    const stub = new StubQuery({
      listSessions: async () => [record('source', 20), record('titled', 15), record('target', 10)],
      readTitleSnapshots: async () => [
        { sessionId: 'source' as SessionId, status: 'rejected', reason: new Error('title read failed') },
        {
          sessionId: 'titled' as SessionId,
          status: 'fulfilled',
          value: {
            session: record('titled', 15).header,
            title: { title: 'A source of truth', messageSeqs: [], source: { kind: 'user' }, eventSeq: 0, updatedAt: 1 },
          },
        },
      ],
    });
    const found = await service(stub).listCandidates(target(), 'source');
    expect(JSON.stringify(found)).toBe(
      JSON.stringify([
        { sessionId: 'source', label: 'source', createdAt: 20 },
        { sessionId: 'titled', label: 'A source of truth', createdAt: 15 },
      ]),
    );
  });

  it('target without cwd: cwd-less first, then the rest, each newest first; empty query observes only the first limit ids', async () => {
    const { query } = liveCorpus([
      { id: 'target', createdAt: 5 },
      { id: 'sess-a', cwd: '/x', createdAt: 50 },
      { id: 'sess-b', createdAt: 40 },
      { id: 'sess-c', cwd: '/y', createdAt: 30 },
      { id: 'sess-d', createdAt: 20 },
      { id: 'sess-e', cwd: '/x', createdAt: 10 },
    ]);
    const recording = recordingTitles(query);
    const resolver = service(recording.query);

    const all = await resolver.listCandidates(target('target'), '', 10);
    expect(all.map((candidate) => candidate.sessionId)).toEqual(['sess-b', 'sess-d', 'sess-a', 'sess-c', 'sess-e']);

    recording.calls.length = 0;
    const firstThree = await resolver.listCandidates(target('target'), '', 3);
    expect(firstThree.map((candidate) => candidate.sessionId)).toEqual(['sess-b', 'sess-d', 'sess-a']);
    expect(recording.calls).toEqual([['sess-b', 'sess-d', 'sess-a']]);

    recording.calls.length = 0;
    const filtered = await resolver.listCandidates(target('target'), 'sess', 3);
    expect(filtered.map((candidate) => candidate.sessionId)).toEqual(['sess-b', 'sess-d', 'sess-a']);
    expect(recording.calls).toHaveLength(1);
    expect([...(recording.calls[0] ?? [])].sort()).toEqual(['sess-a', 'sess-b', 'sess-c', 'sess-d', 'sess-e']);
  });

  it('calls readTitleSnapshots once even with no ids', async () => {
    const { query } = liveCorpus([{ id: 'target', createdAt: 5 }]);
    const recording = recordingTitles(query);
    expect(await service(recording.query).listCandidates(target('target'))).toEqual([]);
    expect(recording.calls).toEqual([[]]);
    expect(await service(recording.query).listCandidates(target('target'), 'anything')).toEqual([]);
    expect(recording.calls).toEqual([[], []]);
  });

  it("title '' → label ''; a hand-written numeric title → the id (empty and non-empty query)", async () => {
    const { query } = liveCorpus([
      { id: 'target', createdAt: 1 },
      { id: 'empty-title', createdAt: 20, events: [titleEvent(0, '')] },
      { id: 'numeric-title', createdAt: 10, events: [titleEvent(0, 5)] },
    ]);
    const resolver = service(query);
    const expected = JSON.stringify([
      { sessionId: 'empty-title', label: '', createdAt: 20 },
      { sessionId: 'numeric-title', label: 'numeric-title', createdAt: 10 },
    ]);
    expect(JSON.stringify(await resolver.listCandidates(target('target')))).toBe(expected);
    expect(JSON.stringify(await resolver.listCandidates(target('target'), 'TITLE'))).toBe(expected);
  });
});

describe("query ' ' (item 22)", () => {
  it('matches only candidates whose id, cwd or label contains a space (no trimming)', async () => {
    const { query } = liveCorpus([
      { id: 'target', cwd: '/t', createdAt: 1 },
      { id: 'plain', cwd: '/plain', createdAt: 40, events: [titleEvent(0, 'nospace')] },
      { id: 'with space', createdAt: 30 },
      { id: 'cwd-space', cwd: '/a b', createdAt: 20 },
      { id: 'label-space', createdAt: 10, events: [titleEvent(0, 'has space')] },
    ]);
    const found = await service(query).listCandidates(target('target', '/t'), ' ');
    expect(JSON.stringify(found)).toBe(
      JSON.stringify([
        { sessionId: 'with space', label: 'with space', createdAt: 30 },
        { sessionId: 'label-space', label: 'has space', createdAt: 10 },
        { sessionId: 'cwd-space', label: 'cwd-space', cwd: '/a b', createdAt: 20 },
      ]),
    );
  });
});

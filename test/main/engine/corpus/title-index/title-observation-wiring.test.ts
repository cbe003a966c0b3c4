/**
 * How title observations reach the index (SESSION-LOG.md §10.5 step 5, §10.7): the query layer uses a
 * backend's `inspectTitle` when it has one, maps its failures like an inspection's (§10.1), keeps the
 * signal semantics, and never uses it for live sessions; the JSONL store's `inspectTitle` fails exactly like
 * `inspect` in stages R1 and R4, which it applies itself, and is a full inspection when the index is disabled.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionPersistenceCorruptionError, type SessionQueryError } from '../../../../../src/protocol/errors.js';
import { asSessionId, type SessionEvent, type SessionHeader, type SessionId } from '../../../../../src/protocol/events.js';
import { InMemoryLiveRegistry } from '../../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../../src/main/engine/corpus/session-query.js';
import type { SessionInspection, SessionStorage } from '../../../../../src/main/engine/corpus/session-storage.js';
import { JsonlSessionStore } from '../../../../../src/main/engine/store/jsonl-store.js';
import { artifactPathFor } from '../../../../../src/io/artifact-path.js';
import { appendLines, expectSameTitles, openPair, removeTempDirs, tempDir } from './title-index-harness.js';

afterAll(removeTempDirs);

const T0 = 1_767_225_600_000;

function header(id: string): SessionHeader {
  return { version: 0, id: asSessionId(id), createdAt: T0 } as SessionHeader;
}

function titleEvent(seq: number, title: string): SessionEvent {
  return { type: 'session/title', seq, time: T0 + seq, data: { title, messageSeqs: [], source: { kind: 'user' } } };
}

/** A stub backend with both inspection paths, recording which one each id took. */
class TitleStorage implements SessionStorage {
  readonly calls: string[] = [];

  constructor(private readonly titleOf: (id: SessionId, signal: AbortSignal | undefined) => Promise<SessionInspection>) {}

  list(): Promise<readonly SessionHeader[]> {
    return Promise.resolve([header('a'), header('b')]);
  }

  inspect(id: SessionId): Promise<SessionInspection> {
    this.calls.push(`inspect ${id}`);
    return Promise.resolve({ meta: header(id), events: [titleEvent(0, 'from inspect')] });
  }

  inspectTitle(id: SessionId, signal?: AbortSignal): Promise<SessionInspection> {
    this.calls.push(`inspectTitle ${id}`);
    return this.titleOf(id, signal);
  }
}

describe('query layer: inspectTitle', () => {
  it('is used instead of inspect for persisted ids, and its result is folded like an inspection', async () => {
    const storage = new TitleStorage((id) => Promise.resolve({ meta: header(id), events: [titleEvent(3, `indexed ${id}`)] }));
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const results = await query.readTitleSnapshots([asSessionId('a'), asSessionId('b')]);
    expect(results.map((result) => result.status === 'fulfilled' && result.value.title)).toEqual([
      { title: 'indexed a', messageSeqs: [], source: { kind: 'user' }, eventSeq: 3, updatedAt: T0 + 3 },
      { title: 'indexed b', messageSeqs: [], source: { kind: 'user' }, eventSeq: 3, updatedAt: T0 + 3 },
    ]);
    expect(storage.calls).toEqual(['inspectTitle a', 'inspectTitle b']);
  });

  it('maps its failures like an inspection: corruption by name, anything else as a persistence failure', async () => {
    const storage = new TitleStorage((id) =>
      Promise.reject(id === 'a' ? new SessionPersistenceCorruptionError('a', new Error('boom')) : new Error('disk on fire')),
    );
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage });
    const [a, b] = await query.readTitleSnapshots([asSessionId('a'), asSessionId('b')]);
    const reasonA = (a as { reason: SessionQueryError }).reason;
    const reasonB = (b as { reason: SessionQueryError }).reason;
    expect([reasonA.code, reasonA.message]).toEqual([
      'SESSION_QUERY_CORRUPT_SESSION',
      'stored session "a" is corrupt: stored session "a" failed validation: Error: boom',
    ]);
    expect([reasonB.code, reasonB.message]).toEqual(['SESSION_QUERY_PERSISTENCE_FAILED', 'failed to inspect session "b": disk on fire']);
  });

  it('receives the caller signal; an abort during it rejects with the reason after it settles', async () => {
    const controller = new AbortController();
    let settle: (() => void) | undefined;
    const seen: (AbortSignal | undefined)[] = [];
    const storage = new TitleStorage((_id, signal) => {
      seen.push(signal);
      return new Promise((_resolve, reject) => {
        settle = () => reject(new Error('stopped'));
      });
    });
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage, config: { persistedInspectConcurrency: 1 } });
    const pending = query.readTitleSnapshots([asSessionId('a'), asSessionId('b')], controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user cancelled'));
    settle?.();
    await expect(pending).rejects.toThrow('user cancelled');
    expect(seen).toEqual([controller.signal]);
    expect(storage.calls).toEqual(['inspectTitle a']);
  });

  it('is never used for live sessions', async () => {
    const storage = new TitleStorage(() => Promise.reject(new Error('must not be called')));
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('a'), events: [titleEvent(0, 'live')] });
    const query = new SessionQuery({ registry, storage });
    const [a] = await query.readTitleSnapshots([asSessionId('a')]);
    expect(a?.status === 'fulfilled' && a.value.title?.title).toBe('live');
    expect(storage.calls).toEqual([]);
  });
});

/** Expects `inspectTitle` and `inspect` to reject alike (name, code, message). */
async function expectSameFailure(store: JsonlSessionStore, id: string): Promise<Error & { code?: unknown }> {
  const viaIndex = await store.inspectTitle(asSessionId(id)).then(
    () => undefined,
    (error: unknown) => error as Error & { code?: unknown },
  );
  const viaInspect = await store.inspect(asSessionId(id)).then(
    () => undefined,
    (error: unknown) => error as Error & { code?: unknown },
  );
  expect(viaIndex).toBeInstanceOf(Error);
  expect([viaIndex?.name, viaIndex?.code, viaIndex?.message]).toEqual([viaInspect?.name, viaInspect?.code, viaInspect?.message]);
  return viaIndex as Error & { code?: unknown };
}

describe.each(['none', 'zstd'] as const)('JSONL store inspectTitle (%s)', (compression) => {
  it('R1 and R4 failures equal inspect: not found, header id mismatch, misplaced artifact, flat file', async () => {
    const root = join(await tempDir(), 'sessions');
    const { indexed } = await openPair(root, compression);
    await indexed.list();
    expect((await expectSameFailure(indexed, 'nobody')).message).toBe('session "nobody" not found');

    // A directory named after one id holding another session's log: requested id mismatch.
    const path = await indexed.create(header('real'));
    const impostor = artifactPathFor(indexed.config, 'impostor', undefined);
    await mkdir(dirname(impostor), { recursive: true });
    await rename(path, impostor);
    await indexed.list().catch(() => undefined);
    expect((await expectSameFailure(indexed, 'impostor')).message).toBe(
      `corrupt session log "${impostor}": requested id "impostor" does not match header id "real"`,
    );

    // The right directory name under the wrong project directory: identity rule.
    const moved = join(root, '--elsewhere--', 'real', artifactPathFor(indexed.config, 'real', undefined).split('/').at(-1) as string);
    await mkdir(dirname(moved), { recursive: true });
    await rename(impostor, moved);
    expect((await expectSameFailure(indexed, 'real')).message).toMatch(
      /^corrupt session log ".*": header id "real" and cwd identify ".*"$/,
    );

    // A flat transcript file in a project directory.
    await writeFile(join(root, '--elsewhere--', `flat${compression === 'none' ? '.jsonl' : '.jsonl.zstd'}`), '');
    await expectSameFailure(indexed, 'flat');
  });

  it('a session directory name found in two project directories is looked up by id, as inspect does', async () => {
    const root = join(await tempDir(), 'sessions');
    const pair = await openPair(root, compression);
    const path = await pair.full.create({ ...header('twice'), cwd: '/a' } as SessionHeader);
    await appendLines(path, [JSON.stringify(titleEvent(0, 'only one'))], compression);
    // A second directory of the same name without an artifact: the listing skips it, the lookup ignores it.
    const other = join(root, '--b--', 'twice');
    await mkdir(other, { recursive: true });
    const [first] = await expectSameTitles(pair, ['twice'], 'empty second directory');
    expect(first?.status === 'fulfilled' && first.value.title?.title).toBe('only one');
    // An empty artifact there: still skipped by the listing, but the lookup by id now finds two.
    await writeFile(join(other, artifactPathFor(pair.full.config, 'twice', undefined).split('/').at(-1) as string), '');
    const [second] = await expectSameTitles(pair, ['twice'], 'empty second artifact');
    expect(second?.status === 'rejected' && (second.reason as Error).message).toBe(
      'failed to inspect session "twice": duplicate JSONL session id "twice" appears in multiple project directories',
    );
  });

  it('with the index disabled it is a full inspection and there are no index stats', async () => {
    const root = join(await tempDir(), 'sessions');
    const store = await JsonlSessionStore.open({ root, compression, titleIndex: false });
    const path = await store.create(header('s'));
    await appendLines(path, [JSON.stringify(titleEvent(0, 'full'))], compression);
    const inspection = await store.inspectTitle(asSessionId('s'));
    expect(inspection.events.map((event) => event.type)).toEqual(['session/title']);
    expect(store.titleIndexStats).toBeUndefined();
    await store.flushTitleIndex();
  });

  it('returns the validated header and only the last title event', async () => {
    const root = join(await tempDir(), 'sessions');
    const { indexed } = await openPair(root, compression);
    const path = await indexed.create(header('s'));
    await appendLines(
      path,
      [
        JSON.stringify(titleEvent(0, 'one')),
        JSON.stringify(titleEvent(1, 'two')),
        JSON.stringify({ type: 'step/end', seq: 2, time: T0, data: {} }),
      ],
      compression,
    );
    await indexed.list();
    const inspection = await indexed.inspectTitle(asSessionId('s'));
    expect(inspection.meta).toEqual({ version: 0, id: 's', createdAt: T0, delegationDepth: 0 });
    expect(inspection.events).toEqual([titleEvent(1, 'two')]);
  });

  it('rejects invalid index options', async () => {
    const root = join(await tempDir(), 'sessions');
    await expect(JsonlSessionStore.open({ root, compression, titleIndex: 'yes' as unknown as boolean })).rejects.toThrow(
      'session store: titleIndex must be a boolean',
    );
    await expect(JsonlSessionStore.open({ root, compression, titleIndexPath: '' })).rejects.toThrow(
      'session store: titleIndexPath must be a non-empty path',
    );
  });
});

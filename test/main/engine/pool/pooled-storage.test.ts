// Inspections and title observations on the pool (SESSION-LOG.md §9.15, §10.5, §10.6 rule 2): the same
// results as the store's in-thread inspection and SessionQuery's title reads, failures with the same
// names, codes and texts (the identity rule included: one copy in src/io/, reached here through the worker).
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import type { SessionTitleObservation } from '../../../../src/main/engine/corpus/session-query.js';
import { PoolTitleSnapshots } from '../../../../src/main/engine/pool/pool-title-snapshots.js';
import { PooledSessionStorage } from '../../../../src/main/engine/pool/pooled-storage.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { encodeSegment, projectDirName } from '../../../../src/protocol/storage-paths.js';
import { RAW_ROOT, ZSTD_ROOT, fixtureSessions } from '../../../support/fixtures.js';
import { header, titleEvent, userEvent } from '../reference/reference-builders.js';
import { makeTempDir, removeTempDir } from '../store/store-test-builders.js';
import { testPool } from './pool-builders.js';

const pool = testPool();
afterAll(() => pool.close());

async function failureOf(
  promise: Promise<unknown>,
): Promise<{ name: string; code: unknown; message: string; cause?: { name: string; message: string } }> {
  const error = (await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (reason: unknown) => reason,
  )) as Error & { code?: unknown; cause?: Error };
  return {
    name: error.name,
    code: error.code,
    message: error.message,
    ...(error.cause === undefined ? {} : { cause: { name: error.cause.name, message: error.cause.message } }),
  };
}

/** Observations as comparable plain data (reasons reduced to name, code, message). */
function comparableObservations(observations: readonly SessionTitleObservation[]): unknown {
  return observations.map((observation) =>
    observation.status === 'fulfilled'
      ? observation
      : {
          sessionId: observation.sessionId,
          status: 'rejected',
          reason: {
            name: (observation.reason as Error).name,
            code: (observation.reason as { code?: unknown }).code,
            message: (observation.reason as Error).message,
          },
        },
  );
}

describe.each([
  ['raw', RAW_ROOT, 'none' as const],
  ['zstd', ZSTD_ROOT, 'zstd' as const],
])('fixture corpus (%s)', (_name, root, compression) => {
  it('every session inspects on the pool exactly as in-thread: header, balanced events, frozen', async () => {
    // No title index: it would write its file into the read-only ground truth (test/fixtures).
    const store = await JsonlSessionStore.open({ root, compression, titleIndex: false });
    const pooled = new PooledSessionStorage(store, pool);
    for (const session of fixtureSessions()) {
      const id = asSessionId(session.id);
      const [viaPool, inThread] = await Promise.all([pooled.inspect(id), store.inspect(id)]);
      expect(JSON.stringify(viaPool.meta)).toBe(JSON.stringify(inThread.meta));
      expect(viaPool.events).toEqual(inThread.events);
      expect(Object.isFrozen(viaPool.events)).toBe(true);
      expect(Object.isFrozen(viaPool.events.at(-1))).toBe(true);
    }
  });

  it('batched title observations equal SessionQuery.readTitleSnapshots, live and missing ids included', async () => {
    // No title index: it would write its file into the read-only ground truth (test/fixtures).
    const store = await JsonlSessionStore.open({ root, compression, titleIndex: false });
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live-one', 5), events: [userEvent(0, 'x'), titleEvent(1, 'Live title')] });
    const ids = [
      ...fixtureSessions().map((session) => asSessionId(session.id)),
      asSessionId('live-one'),
      asSessionId('missing'),
      asSessionId(fixtureSessions()[0]!.id),
    ];
    const expected = await new SessionQuery({ registry, storage: store }).readTitleSnapshots(ids);
    const titles = new PoolTitleSnapshots({ runner: pool, registry, storage: store, batchSize: 4 });
    const actual = await titles.readTitleSnapshots(ids);
    expect(comparableObservations(actual)).toEqual(comparableObservations(expected));
    expect(actual).toHaveLength(fixtureSessions().length + 2);
    const titled = actual.find((observation) => observation.status === 'fulfilled' && observation.value.title !== undefined);
    expect(Object.isFrozen((titled as { value: { title: object } }).value.title)).toBe(true);
  });

  it("both title readers answer against a caller's own listing without listing again, as against a fresh one", async () => {
    const store = await JsonlSessionStore.open({ root, compression, titleIndex: false });
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live-one', 5), events: [userEvent(0, 'x'), titleEvent(1, 'Live title')] });
    const listing = await store.list();
    const ids = [...listing.map((listed) => listed.id), asSessionId('live-one'), asSessionId('missing')];
    const fresh = comparableObservations(await new SessionQuery({ registry, storage: store }).readTitleSnapshots(ids));
    // The readers see the store through a wrapper that counts its listings (every other call goes to the store).
    let listings = 0;
    const counted = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'list' || key === 'listReport') listings += 1;
        const value: unknown = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const inThread = await new SessionQuery({ registry, storage: counted }).readTitleSnapshots(ids, undefined, listing);
    const pooled = await new PoolTitleSnapshots({ runner: pool, registry, storage: counted, batchSize: 4 }).readTitleSnapshots(
      ids,
      undefined,
      listing,
    );
    expect(comparableObservations(inThread)).toEqual(fresh);
    expect(comparableObservations(pooled)).toEqual(fresh);
    expect(listings).toBe(0);
    // An id the given listing does not hold is unlisted, as a fresh listing missing it would make it.
    const [first] = listing;
    const narrowed = await new SessionQuery({ registry, storage: counted }).readTitleSnapshots([first!.id], undefined, []);
    expect(narrowed[0]).toMatchObject({ status: 'rejected', reason: { code: 'SESSION_QUERY_SESSION_NOT_FOUND' } });
  });
});

describe('failures match the store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await removeTempDir(dir);
  });

  async function storeWith(sessions: ReadonlyArray<{ id: string; cwd?: string; events: SessionEvent[] }>): Promise<JsonlSessionStore> {
    const store = await JsonlSessionStore.open({ root: join(dir, 'root'), compression: 'none' });
    for (const session of sessions) await store.create(header(session.id, 1, session.cwd), session.events);
    return store;
  }

  it('stage S6 corruption, a missing artifact, a misplaced artifact (§9.5) and a requested-id mismatch', async () => {
    const { surfaceOp: _dropped, ...bare } = userEvent(0, 'no marker');
    const store = await storeWith([
      { id: 'broken', events: [bare as SessionEvent] },
      { id: 'placed', cwd: '/a', events: [userEvent(0, 'x')] },
      { id: 'original', cwd: '/b', events: [userEvent(0, 'y')] },
    ]);
    // Misplaced: the session directory of "placed" (cwd /a) moved under the project directory of cwd /c.
    const placedPath = (await store.locate(asSessionId('placed'))) as string;
    const misplacedDir = join(store.config.root, projectDirName('/c'), encodeSegment('placed'));
    // Requested-id mismatch: the artifact of "original" stored under the segment of another id.
    const originalPath = (await store.locate(asSessionId('original'))) as string;
    const mismatchDir = join(store.config.root, projectDirName('/b'), encodeSegment('alias'));
    await mkdir(join(store.config.root, projectDirName('/c')), { recursive: true });
    await rename(dirname(placedPath), misplacedDir);
    await mkdir(mismatchDir, { recursive: true });
    await copyFile(originalPath, join(mismatchDir, 'session.jsonl'));

    const pooled = new PooledSessionStorage(store, pool);
    for (const id of ['broken', 'absent', 'placed', 'alias']) {
      const [viaPool, inThread] = await Promise.all([
        failureOf(pooled.inspect(asSessionId(id))),
        failureOf(store.inspect(asSessionId(id))),
      ]);
      expect(viaPool).toEqual(inThread);
    }
    expect(await failureOf(pooled.inspect(asSessionId('alias')))).toMatchObject({
      name: 'Error',
      code: 'SESSION_LOG_CORRUPT',
      message: `corrupt session log "${join(mismatchDir, 'session.jsonl')}": requested id "alias" does not match header id "original"`,
    });
    expect(await failureOf(pooled.inspect(asSessionId('placed')))).toMatchObject({
      name: 'Error',
      code: 'SESSION_LOG_CORRUPT',
      message: `corrupt session log "${join(misplacedDir, 'session.jsonl')}": header id "placed" and cwd identify "${placedPath}"`,
    });
    expect(await failureOf(pooled.inspect(asSessionId('absent')))).toMatchObject({
      code: 'SESSION_QUERY_SESSION_NOT_FOUND',
      message: 'session "absent" not found',
    });
    expect(await failureOf(pooled.inspect(asSessionId('broken')))).toMatchObject({
      name: 'SessionPersistenceCorruptionError',
      code: 'SESSION_PERSISTENCE_CORRUPT',
    });
  });

  it('an aborted inspection rejects with the reason at once', async () => {
    const store = await storeWith([{ id: 'some', events: [userEvent(0, 'x')] }]);
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(new PooledSessionStorage(store, pool).inspect(asSessionId('some'), controller.signal)).rejects.toBe(reason);
  });
});

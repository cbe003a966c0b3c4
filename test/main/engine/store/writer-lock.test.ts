// SESSION-LOG.md §9.16 rules 4–7 and §9.12: one writer per session (the lock file), the optimistic checks of
// every append, torn tails never written over, ids unique in a root, no writes through links, over-long ids.
// Each test names the defect of issue 12 it pins; all would fail on the store before the writer lock.
import { appendFile, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { SessionLogError } from '../../../../src/protocol/errors.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { batchBytes } from '../../../../src/main/engine/store/artifact-writer.js';
import { acquireSessionLock } from '../../../../src/main/engine/store/session-lock.js';
import type { SessionLock } from '../../../../src/main/engine/store/session-lock.js';
import { EventSequence, json, makeTempDir, removeTempDir, sessionHeader } from './store-test-builders.js';

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

async function rejection(promise: Promise<unknown>): Promise<SessionLogError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SessionLogError);
    return error as SessionLogError;
  }
  throw new Error('expected a rejection');
}

const ENCODINGS = ['none', 'zstd'] as const;

describe.each(ENCODINGS)('writer lock and checks (%s)', (compression) => {
  const open = (): Promise<JsonlSessionStore> => JsonlSessionStore.open({ root, compression, titleIndex: false });
  const header = sessionHeader('w', '/p');
  const id = asSessionId('w');

  it('a held writer makes a second writer fail with SESSION_STORE_LOCKED naming the holder, before writing anything', async () => {
    const store = await open();
    const log = new EventSequence();
    const writer = await store.createWriter(header, log.closedTurn(1, 'one', ['a']));
    const before = await readFile(writer.path);
    const other = await open();
    const locked = await rejection(other.append(header, log.closedTurn(2, 'two', ['b'])));
    expect(locked.code).toBe('SESSION_STORE_LOCKED');
    expect(locked.message).toContain(`pid ${process.pid} on ${hostname()} since `);
    expect((await rejection(other.acquireWriter(id))).code).toBe('SESSION_STORE_LOCKED');
    expect((await rejection(other.repair(id))).code).toBe('SESSION_STORE_LOCKED');
    expect((await rejection(store.acquireWriter(id))).code).toBe('SESSION_STORE_LOCKED');
    expect(Buffer.compare(await readFile(writer.path), before)).toBe(0);
    await writer.release();
    // Released: the lock file is gone and the other store may write.
    expect(await readdir(dirname(writer.path))).toEqual([compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl']);
    const fresh = new EventSequence();
    fresh.closedTurn(1, 'one', ['a']);
    await other.append(header, fresh.closedTurn(2, 'two', ['b']));
    expect((await other.inspect(id)).events).toHaveLength(fresh.length);
  });

  it("the store's own held writer serves store.append (no self-lock)", async () => {
    const store = await open();
    const log = new EventSequence();
    const writer = await store.createWriter(header, log.closedTurn(1, 'one', ['a']));
    await store.append(header, log.closedTurn(2, 'two', ['b']));
    await writer.append(log.closedTurn(3, 'three', ['c']));
    expect(writer.nextSeq).toBe(log.length);
    await writer.release();
    expect((await store.inspect(id)).events).toHaveLength(log.length);
  });

  it("an append whose first seq is not the log's next seq fails with SESSION_STORE_CONFLICT and writes nothing", async () => {
    const store = await open();
    const log = new EventSequence();
    const path = await store.create(header, log.closedTurn(1, 'one', ['a']));
    const before = await readFile(path);
    const stale = new EventSequence(); // a second process that computed its seqs from an empty log
    const conflict = await rejection(store.append(header, stale.closedTurn(1, 'again', ['x'])));
    expect(conflict.code).toBe('SESSION_STORE_CONFLICT');
    const ahead = new EventSequence();
    ahead.advance(log.length + 1);
    expect((await rejection(store.append(header, ahead.closedTurn(2, 'gap', ['y'])))).code).toBe('SESSION_STORE_CONFLICT');
    expect(Buffer.compare(await readFile(path), before)).toBe(0);
    expect((await store.inspect(id)).events).toHaveLength(log.length);
  });

  it('a held writer refuses to append after the file changed under it (size or identity), nothing written', async () => {
    const store = await open();
    const log = new EventSequence();
    const writer = await store.createWriter(header, log.closedTurn(1, 'one', ['a']));
    // A tool that ignores the lock (dsh itself) makes the file grow behind the writer's back.
    await appendFile(writer.path, Buffer.from('{'));
    const sizeBefore = (await stat(writer.path)).size;
    const conflict = await rejection(writer.append(log.closedTurn(3, 'mine', ['m'])));
    expect(conflict.code).toBe('SESSION_STORE_CONFLICT');
    expect((await stat(writer.path)).size).toBe(sizeBefore);
    // Sticky: the writer stays refused until it learns the log again.
    expect((await rejection(writer.append(log.closedTurn(4, 'x', ['x'])))).code).toBe('SESSION_STORE_CONFLICT');
    await writer.release();
  });

  it('a batch whose seqs are not contiguous is refused (SESSION_LOG_INVALID_APPEND), nothing written', async () => {
    const store = await open();
    const log = new EventSequence();
    const path = await store.create(header, log.closedTurn(1, 'one', ['a']));
    const before = await readFile(path);
    const batch = log.closedTurn(2, 'two', ['b']);
    const broken: SessionEvent[] = [batch[0]!, { ...batch[1]!, seq: batch[1]!.seq + 5 }];
    expect((await rejection(store.append(header, broken))).code).toBe('SESSION_LOG_INVALID_APPEND');
    expect(Buffer.compare(await readFile(path), before)).toBe(0);
  });

  it('an append after a torn tail is refused (SESSION_STORE_TORN_TAIL); repair keeps every complete record; the append then succeeds', async () => {
    const store = await open();
    const log = new EventSequence();
    const first = log.closedTurn(1, 'one', ['a']);
    const path = await store.create(header, first);
    const acknowledged = log.closedTurn(2, 'two', ['b']);
    await store.append(header, acknowledged);
    const committed = (await stat(path)).size;
    // A crashed write: part of a next batch.
    const torn = new EventSequence();
    torn.advance(log.length);
    const tornBytes = await tornBatchBytes(compression, torn.closedTurn(3, 'torn', ['t']));
    await appendFile(path, tornBytes);
    const next = new EventSequence();
    next.advance(log.length);
    const batch = next.closedTurn(3, 'after', ['z']);
    const refused = await rejection(store.append(header, batch));
    expect(refused.code).toBe('SESSION_STORE_TORN_TAIL');
    expect((await stat(path)).size).toBe(committed + tornBytes.length);
    expect(await store.repair(id)).toBe(0);
    expect((await stat(path)).size).toBe(committed);
    await store.append(header, batch);
    const events = (await store.inspect(id)).events;
    expect(json(events)).toBe(json([...first, ...acknowledged, ...batch]));
    // A later repair erases nothing acknowledged.
    expect(await store.repair(id)).toBe(0);
    expect(json((await store.inspect(id)).events)).toBe(json([...first, ...acknowledged, ...batch]));
  });

  it('a stale lock (a dead pid on this host) is broken; a live foreign-host lock is not', async () => {
    const store = await open();
    const log = new EventSequence();
    const path = await store.create(header, log.closedTurn(1, 'one', ['a']));
    const lockPath = join(dirname(path), 'session.lock');
    const dead = {
      pid: 2 ** 22 + 12345,
      startTime: '1',
      bootId: null,
      host: hostname(),
      acquiredAt: '2026-01-01T00:00:00.000Z',
      token: 'dead',
    };
    await writeFile(lockPath, JSON.stringify(dead));
    await store.append(header, log.closedTurn(2, 'two', ['b']));
    await expect(stat(lockPath)).rejects.toThrow();
    // Our own pid with another start time: the pid was reused, the lock is stale too.
    await writeFile(lockPath, JSON.stringify({ ...dead, pid: process.pid, startTime: 'not-my-start', token: 'reused' }));
    await store.append(header, log.closedTurn(3, 'three', ['c']));
    const foreign = { ...dead, pid: process.pid, host: `${hostname()}-elsewhere`, token: 'foreign' };
    await writeFile(lockPath, JSON.stringify(foreign));
    const locked = await rejection(store.append(header, log.closedTurn(4, 'four', ['d'])));
    expect(locked.code).toBe('SESSION_STORE_LOCKED');
    expect(locked.message).toContain(`on ${hostname()}-elsewhere since 2026-01-01T00:00:00.000Z`);
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toEqual(foreign);
  });

  it('eight concurrent breakers of one stale lock: exactly one acquires it, the others get SESSION_STORE_LOCKED (10 rounds)', async () => {
    const store = await open();
    const path = await store.create(header, new EventSequence().closedTurn(1, 'one', ['a']));
    const lockPath = join(dirname(path), 'session.lock');
    for (let round = 0; round < 10; round += 1) {
      await writeFile(
        lockPath,
        JSON.stringify({ pid: 2 ** 22 + 999, startTime: '1', bootId: null, host: hostname(), acquiredAt: 'then', token: `dead-${round}` }),
      );
      const settled = await Promise.allSettled(Array.from({ length: 8 }, () => acquireSessionLock(dirname(path), 'w')));
      const winners = settled.filter((outcome): outcome is PromiseFulfilledResult<SessionLock> => outcome.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      for (const outcome of settled) {
        if (outcome.status === 'rejected') expect((outcome.reason as SessionLogError).code).toBe('SESSION_STORE_LOCKED');
      }
      const winner = winners[0]!.value;
      expect(JSON.parse(await readFile(lockPath, 'utf8')).token).toBe(winner.owner.token);
      await winner.release();
      // Nothing left behind: no lock, no renamed stale lock, no temp file.
      expect((await readdir(dirname(path))).filter((name) => name.startsWith('session.lock'))).toEqual([]);
    }
  });

  it('a writer whose lock was removed or taken over writes nothing more (SESSION_STORE_LOCKED)', async () => {
    const store = await open();
    const log = new EventSequence();
    const writer = await store.createWriter(header, log.closedTurn(1, 'one', ['a']));
    const lockPath = join(dirname(writer.path), 'session.lock');
    await writeFile(
      lockPath,
      JSON.stringify({ pid: process.pid, startTime: null, bootId: null, host: hostname(), acquiredAt: 'now', token: 'someone-else' }),
    );
    const size = (await stat(writer.path)).size;
    expect((await rejection(writer.append(log.closedTurn(2, 'two', ['b'])))).code).toBe('SESSION_STORE_LOCKED');
    expect((await stat(writer.path)).size).toBe(size);
    await writer.release();
    // Release leaves a lock that is not its own in place.
    expect(JSON.parse(await readFile(lockPath, 'utf8')).token).toBe('someone-else');
  });

  it('create of an id that exists under another cwd fails with SESSION_STORE_EXISTS and the root stays listable', async () => {
    const store = await open();
    const path = await store.create(sessionHeader('dup', '/one'), new EventSequence().closedTurn(1, 'one', ['a']));
    const exists = await rejection(store.create(sessionHeader('dup', '/two'), new EventSequence().closedTurn(1, 'two', ['b'])));
    expect(exists.code).toBe('SESSION_STORE_EXISTS');
    expect(exists.message).toContain(JSON.stringify(path));
    expect((await store.list()).map((listed) => listed.id)).toEqual(['dup']);
    const strict = await JsonlSessionStore.open({ root, compression, listing: 'strict', titleIndex: false });
    expect((await strict.list()).map((listed) => listed.id)).toEqual(['dup']);
  });

  it('writes never follow a symlinked project or session directory (SESSION_STORE_INVALID_PATH), nothing written outside', async () => {
    const outside = await makeTempDir();
    try {
      await mkdir(root, { recursive: true });
      const project = join(root, '--p--');
      await symlink(outside, project);
      const store = await open();
      const linked = await rejection(store.create(header, new EventSequence().closedTurn(1, 'one', ['a'])));
      expect(linked.code).toBe('SESSION_STORE_INVALID_PATH');
      expect(linked.message).toContain('symbolic link');
      expect(await readdir(outside)).toEqual([]);
      // A session directory that is a link.
      const other = sessionHeader('s', '/q');
      const qProject = join(root, '--q--');
      await mkdir(qProject);
      await symlink(outside, join(qProject, 's'));
      expect((await rejection(store.create(other, new EventSequence().closedTurn(1, 'one', ['a'])))).code).toBe(
        'SESSION_STORE_INVALID_PATH',
      );
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await removeTempDir(outside);
    }
  });

  it('an over-long id fails with SESSION_STORE_INVALID_PATH naming the 255-byte limit, for create, inspect and append', async () => {
    const store = await open();
    const long = sessionHeader('x'.repeat(256), '/p');
    const created = await rejection(store.create(long, new EventSequence().closedTurn(1, 'one', ['a'])));
    expect(created.code).toBe('SESSION_STORE_INVALID_PATH');
    expect(created.message).toContain('at most 255 bytes per path component');
    expect((await rejection(store.inspect(long.id))).code).toBe('SESSION_STORE_INVALID_PATH');
    expect((await rejection(store.append(long, new EventSequence().closedTurn(1, 'one', ['a'])))).code).toBe('SESSION_STORE_INVALID_PATH');
    // Multi-byte units are escaped (§9.3) and counted in bytes: 52 × "~XXXX" = 260 bytes.
    expect((await rejection(store.create(sessionHeader('é'.repeat(52), '/p')))).code).toBe('SESSION_STORE_INVALID_PATH');
    // 255 bytes is allowed.
    await store.create(sessionHeader('y'.repeat(255), '/p'), new EventSequence().closedTurn(1, 'one', ['a']));
    expect((await store.inspect(asSessionId('y'.repeat(255)))).meta.id).toBe('y'.repeat(255));
  });
});

/**
 * The first bytes of a batch as a crashed write leaves them, with nothing recoverable: raw, half of its first line
 * (no LF); zstd, a frame cut inside its header.
 */
async function tornBatchBytes(compression: 'none' | 'zstd', batch: readonly SessionEvent[]): Promise<Buffer> {
  const bytes = Buffer.from(await batchBytes(batch, compression, false));
  return compression === 'none' ? bytes.subarray(0, Math.floor(bytes.indexOf(0x0a) / 2)) : bytes.subarray(0, 4);
}

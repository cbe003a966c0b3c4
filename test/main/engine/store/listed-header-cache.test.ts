/**
 * The listing's header cache (SESSION-LOG.md §9.13 steps 4–5; SESSION-REFERENCE.md §7.5 "header reads only"):
 * an unchanged artifact is answered from the cache, and every change of the file's revision — an append, an
 * in-place rewrite, a replacement by rename (new inode), a removal — makes the listing read the header again,
 * so listings stay what reading every header gives.
 */
import { readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { EventSequence, json, makeTempDir, removeTempDir, sessionHeader } from './store-test-builders.js';

let dir: string | undefined;

afterEach(async () => {
  if (dir !== undefined) await removeTempDir(dir);
  dir = undefined;
});

async function openStore(titleIndex = true): Promise<JsonlSessionStore> {
  dir = await makeTempDir();
  return JsonlSessionStore.open({ root: dir, compression: 'none', titleIndex });
}

/** Three sessions under one cwd; returns their artifact paths. */
async function seed(store: JsonlSessionStore): Promise<string[]> {
  const paths: string[] = [];
  for (const id of ['a', 'b', 'c']) {
    const log = new EventSequence();
    paths.push(await store.create(sessionHeader(id, '/p'), log.closedTurn(1, `hello ${id}`, ['x'])));
  }
  return paths;
}

/** The artifact's bytes with the header's createdAt replaced by another value of the same length. */
async function withCreatedAt(path: string, createdAt: number): Promise<string> {
  const text = await readFile(path, 'utf8');
  const replaced = text.replace(/"createdAt":\d+/, `"createdAt":${createdAt}`);
  expect(replaced.length).toBe(text.length);
  return replaced;
}

function createdAts(listing: readonly { id: string; createdAt: number }[]): Record<string, number> {
  return Object.fromEntries(listing.map((header) => [header.id, header.createdAt]));
}

describe('listed header cache', () => {
  it('an unchanged root is listed from the cache with the same headers', async () => {
    const store = await openStore();
    await seed(store);
    const first = json(await store.list());
    expect(store.listedHeaderCacheHits).toBe(0);
    expect(json(await store.list())).toBe(first);
    expect(store.listedHeaderCacheHits).toBe(3);
  });

  it('an appended artifact is read again; the others come from the cache', async () => {
    const store = await openStore();
    await seed(store);
    const first = json(await store.list());
    // The log `seed` wrote for b, rebuilt, so the appended turn continues its seqs (SESSION-LOG.md §9.16 rule 5).
    const log = new EventSequence();
    log.closedTurn(1, 'hello b', ['x']);
    await store.append(sessionHeader('b', '/p'), log.closedTurn(2, 'more', ['y']));
    expect(json(await store.list())).toBe(first);
    expect(store.listedHeaderCacheHits).toBe(2);
  });

  it('a header rewritten in place (same size, mtime put back) is read again', async () => {
    const store = await openStore();
    const [path] = (await seed(store)) as [string];
    const before = await stat(path);
    await store.list();
    const base = sessionHeader('a', '/p').createdAt;
    await writeFile(path, await withCreatedAt(path, base + 1));
    await utimes(path, before.atime, before.mtime);
    expect(createdAts(await store.list())['a']).toBe(base + 1);
    expect(store.listedHeaderCacheHits).toBe(2);
  });

  it('an artifact replaced by rename (new inode, same size) is read again', async () => {
    const store = await openStore();
    const [path] = (await seed(store)) as [string];
    const before = await stat(path);
    await store.list();
    const base = sessionHeader('a', '/p').createdAt;
    const temp = `${path}.new`;
    await writeFile(temp, await withCreatedAt(path, base + 2));
    await utimes(temp, before.atime, before.mtime);
    await rename(temp, path);
    expect((await stat(path)).ino).not.toBe(before.ino);
    expect(createdAts(await store.list())['a']).toBe(base + 2);
  });

  it('a removed artifact leaves the listing; a header made unreadable and restored follows the file', async () => {
    const store = await openStore();
    const [first, second] = (await seed(store)) as [string, string];
    await store.list();
    await rm(first);
    expect((await store.list()).map((header) => header.id)).toEqual(['b', 'c']);
    const original = await readFile(second, 'utf8');
    await writeFile(second, `not json${original}`);
    expect((await store.list()).map((header) => header.id)).toEqual(['c']);
    await writeFile(second, original);
    expect((await store.list()).map((header) => header.id)).toEqual(['b', 'c']);
  });

  it('is off with the title index off: every listing reads every header', async () => {
    const store = await openStore(false);
    await seed(store);
    const first = json(await store.list());
    expect(json(await store.list())).toBe(first);
    expect(store.listedHeaderCacheHits).toBeUndefined();
  });
});

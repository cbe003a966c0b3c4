/**
 * SESSION-REFERENCE.md §15 item 99 (SESSION-LOG.md §10.7): an index file that is unreadable, corrupt, of
 * another version or holding damaged entries is discarded (or the entry dropped) and rebuilt, with results
 * unchanged; an I/O failure of the index falls back to the full inspection; two processes updating the same
 * index concurrently never produce a wrong answer.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Packr } from 'msgpackr';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../../src/protocol/events.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import { artifactPathFor } from '../../../../../src/io/artifact-path.js';
import {
  TITLE_INDEX_FORMAT,
  TITLE_INDEX_VERSION,
  encodeTitleIndex,
  openEntry,
} from '../../../../../src/main/engine/corpus/title-index/title-index-file.js';
import type { TitleIndexEntry } from '../../../../../src/main/engine/corpus/title-index/title-index-entry.js';
import {
  appendLines,
  cacheEnv,
  CountingFs,
  expectSameTitles,
  indexPathOf,
  openPair,
  readIndexEntries,
  removeTempDirs,
  tempDir,
} from './title-index-harness.js';

afterAll(removeTempDirs);

const T0 = 1_767_225_600_000;
const run = promisify(execFile);

function turn(seq: number, turnNumber: number, title: string): string[] {
  return [
    JSON.stringify({ type: 'turn/start', seq, time: T0 + seq, data: { turn: turnNumber } }),
    JSON.stringify({ type: 'session/title', seq: seq + 1, time: T0 + seq, data: { title, messageSeqs: [], source: { kind: 'user' } } }),
    JSON.stringify({ type: 'turn/end', seq: seq + 2, time: T0 + seq, data: { turn: turnNumber, reason: { kind: 'completed' } } }),
  ];
}

/** A root with `count` titled sessions; returns it and the ids. */
async function corpus(compression: Compression, count: number, prefix = 's'): Promise<{ root: string; ids: string[] }> {
  const root = join(await tempDir(), 'sessions');
  const pair = await openPair(root, compression);
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = `${prefix}-${index}`;
    const path = await pair.full.create({ version: 0, id: asSessionId(id), createdAt: T0 + index, cwd: '/w' } as SessionHeader);
    await appendLines(path, turn(0, 1, `title of ${id}`), compression);
    ids.push(id);
  }
  return { root, ids };
}

/** Builds the index file of a root (observe everything, flush) and returns its decoded entries (keyed relative to the root). */
async function buildIndex(root: string, compression: Compression, ids: readonly string[]): Promise<Map<string, TitleIndexEntry>> {
  const pair = await openPair(root, compression);
  await expectSameTitles(pair, ids, 'build');
  await pair.indexed.flushTitleIndex();
  const entries = await readIndexEntries(root);
  expect(entries?.size).toBe(ids.length);
  const out = new Map<string, TitleIndexEntry>();
  for (const [key, entry] of entries ?? []) {
    const opened = openEntry(entry);
    if (opened === undefined) throw new Error(`entry ${key} of a freshly built index does not open`);
    out.set(key, opened);
  }
  return out;
}

/** Opens a new store over `root`, expects equal results and a rebuilt (fully rescanned, rewritten) index. */
async function expectRebuilt(root: string, compression: Compression, ids: readonly string[]): Promise<void> {
  const pair = await openPair(root, compression);
  await expectSameTitles(pair, ids, 'after discarding the index');
  expect(pair.indexed.titleIndexStats).toEqual({
    statOnly: 0,
    incremental: 0,
    full: ids.length,
    unavailable: 0,
    discarded: 0,
    discardedFiles: 1,
  });
  await pair.indexed.flushTitleIndex();
  expect((await readIndexEntries(root))?.size).toBe(ids.length);
  const again = await openPair(root, compression);
  await expectSameTitles(again, ids, 'from the rebuilt index');
  expect(again.indexed.titleIndexStats?.statOnly).toBe(ids.length);
}

describe.each(['none', 'zstd'] as const)('item 99: damaged index files (%s)', (compression: Compression) => {
  it('a corrupt file (not msgpack) is discarded and rebuilt', async () => {
    const { root, ids } = await corpus(compression, 4);
    await buildIndex(root, compression, ids);
    await writeFile(await indexPathOf(root), 'this is not an index file \u0000\u00ff');
    await expectRebuilt(root, compression, ids);
  });

  it('a truncated file is discarded and rebuilt', async () => {
    const { root, ids } = await corpus(compression, 4);
    await buildIndex(root, compression, ids);
    const bytes = await readFile(await indexPathOf(root));
    await writeFile(await indexPathOf(root), bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectRebuilt(root, compression, ids);
  });

  it('a file of another version (or format) is discarded and rebuilt', async () => {
    const { root, ids } = await corpus(compression, 4);
    const entries = await buildIndex(root, compression, ids);
    const packr = new Packr({ useRecords: false, mapsAsObjects: true });
    const indexPath = await indexPathOf(root);
    await writeFile(
      indexPath,
      packr.pack({ format: TITLE_INDEX_FORMAT, version: TITLE_INDEX_VERSION + 1, root: await realpath(root), entries: [...entries] }),
    );
    await expectRebuilt(root, compression, ids);
    await writeFile(
      indexPath,
      packr.pack({ format: 'something-else', version: TITLE_INDEX_VERSION, root: await realpath(root), entries: [...entries] }),
    );
    await expectRebuilt(root, compression, ids);
    // The layout of earlier builds (no root recorded) is discarded too.
    await writeFile(indexPath, packr.pack({ format: TITLE_INDEX_FORMAT, version: TITLE_INDEX_VERSION, entries: [...entries] }));
    await expectRebuilt(root, compression, ids);
    // Version 1 (entries as plain maps, without checksums) is discarded rather than trusted.
    await writeFile(indexPath, packr.pack({ format: TITLE_INDEX_FORMAT, version: 1, root: await realpath(root), entries: [...entries] }));
    await expectRebuilt(root, compression, ids);
  });

  it('an unreadable file (read fails) is ignored and rebuilt', async () => {
    const { root, ids } = await corpus(compression, 3);
    await buildIndex(root, compression, ids);
    const fs = new CountingFs();
    fs.failReads.add(await indexPathOf(root));
    const pair = await openPair(root, compression, { titleIndexFs: fs });
    await expectSameTitles(pair, ids, 'index unreadable');
    expect(pair.indexed.titleIndexStats).toEqual({ statOnly: 0, incremental: 0, full: 3, unavailable: 0, discarded: 0, discardedFiles: 0 });
    await pair.indexed.flushTitleIndex();
    expect((await readIndexEntries(root))?.size).toBe(3);
  });

  it('an index path that is a directory: answers unchanged, nothing written', async () => {
    const { root, ids } = await corpus(compression, 3);
    const indexPath = join(root, 'index-dir');
    await mkdir(indexPath);
    const pair = await openPair(root, compression, { titleIndexPath: indexPath });
    await expectSameTitles(pair, ids, 'index path is a directory');
    await pair.indexed.flushTitleIndex();
    await expectSameTitles(pair, ids, 'second call, from memory');
    expect(pair.indexed.titleIndexStats?.statOnly).toBe(3);
  });

  it('a root marked read-only is never written to, whoever runs the process; the index goes to the cache; answers unchanged', async () => {
    const { root, ids } = await corpus(compression, 2);
    await chmod(root, 0o555);
    try {
      const pair = await openPair(root, compression);
      await expectSameTitles(pair, ids, 'read-only root');
      await pair.indexed.flushTitleIndex();
      expect((await readdir(root)).filter((name) => !name.startsWith('--'))).toEqual([]);
      expect((await readIndexEntries(root))?.size).toBe(2);
      await expectSameTitles(pair, ids, 'from memory');
      expect(pair.indexed.titleIndexStats?.statOnly).toBe(2);
    } finally {
      await chmod(root, 0o755);
    }
  });

  it('damaged entries are dropped or rescanned, never trusted', async () => {
    const { root, ids } = await corpus(compression, 3);
    const entries = await buildIndex(root, compression, ids);
    const config = (await openPair(root, compression)).indexed.config;
    const [first, second, third] = ids.map((id) => artifactPathFor(config, id, '/w'));
    // The file keys entries by artifact path relative to the root.
    const [firstKey, secondKey, thirdKey] = [first, second, third].map((path) => relative(root, path as string)) as [
      string,
      string,
      string,
    ];
    const damaged = new Map(entries);
    // Revision matches, but the stored outcome is unreadable: rescanned.
    const firstEntry = entries.get(firstKey) as TitleIndexEntry;
    damaged.set(firstKey, {
      ...firstEntry,
      outcome: { kind: 'valid', headerLine: new TextEncoder().encode('not a header\n'), titleLine: null },
    });
    // A checkpoint whose validator state is garbage, on a log that then grows: continuing fails, so rescanned.
    const secondEntry = entries.get(secondKey) as TitleIndexEntry;
    damaged.set(secondKey, {
      ...secondEntry,
      state: { ...secondEntry.state, validator: { ...secondEntry.state?.validator, surface: 5 } } as unknown as TitleIndexEntry['state'],
    });
    await appendLines(second as string, turn(3, 2, 'grown'), compression);
    // Not an entry at all: dropped when the file is read.
    const indexPath = await indexPathOf(root);
    await writeFile(indexPath, encodeTitleIndex(await realpath(root), damaged));
    const raw = new Packr({ useRecords: false, mapsAsObjects: true });
    const content = raw.unpack(await readFile(indexPath)) as { entries: unknown[][] };
    // Sealed entries are [answer bytes, checksum, checkpoint bytes, checksum]; the answer starts with the key.
    const isThird = (sealed: unknown[]): boolean => (raw.unpack(sealed[0] as Uint8Array) as unknown[])[0] === thirdKey;
    expect(content.entries.some(isThird)).toBe(true);
    content.entries = content.entries.map((sealed) => (isThird(sealed) ? [thirdKey, { dev: 'x' }] : sealed));
    await writeFile(indexPath, raw.pack(content));

    const pair = await openPair(root, compression);
    const observations = await expectSameTitles(pair, ids, 'damaged entries');
    expect(observations.map((observation) => observation.status === 'fulfilled' && observation.value.title?.title)).toEqual([
      `title of ${ids[0]}`,
      'grown',
      `title of ${ids[2]}`,
    ]);
    // The first entry's checkpoint is intact, so it is continued (rule 2); the others are scanned from 0.
    expect(pair.indexed.titleIndexStats).toEqual({ statOnly: 0, incremental: 1, full: 2, unavailable: 0, discarded: 1, discardedFiles: 0 });
  });

  it('an I/O failure on an artifact through the index falls back to the full inspection', async () => {
    const { root, ids } = await corpus(compression, 3);
    const fs = new CountingFs();
    const pair = await openPair(root, compression, { titleIndexFs: fs });
    const failing = artifactPathFor(pair.indexed.config, ids[1] as string, '/w');
    fs.failStats.add(failing);
    await expectSameTitles(pair, ids, 'stat fails');
    fs.failStats.clear();
    fs.failReads.add(failing);
    await appendLines(failing, turn(3, 2, 'grown'), compression);
    await expectSameTitles(pair, ids, 'read fails');
    expect(pair.indexed.titleIndexStats?.unavailable).toBe(2);
  });
});

describe('item 99: two processes updating one index concurrently', () => {
  it.each(['none', 'zstd'] as const)('never produce a wrong answer (%s)', async (compression) => {
    const a = await corpus(compression, 5, 'a');
    const root = a.root;
    const pair = await openPair(root, compression);
    const ids = [...a.ids];
    for (let index = 0; index < 5; index++) {
      const id = `b-${index}`;
      const path = await pair.full.create({ version: 0, id: asSessionId(id), createdAt: T0 + 100 + index, cwd: '/v' } as SessionHeader);
      await appendLines(path, turn(0, 1, `title of ${id}`), compression);
      ids.push(id);
    }
    const script = fileURLToPath(new URL('./concurrent-index-writer.js', import.meta.url));
    const rounds = '25';
    // The children find the shared index file through the environment, as a CLI process would.
    const env = { ...process.env, ...(await cacheEnv()) };
    const children = ['a', 'b'].map((owner) =>
      run(process.execPath, [script, root, compression, owner, rounds, ...ids], { maxBuffer: 16 * 1024 * 1024, env }),
    );
    const results = await Promise.all(children);
    for (const { stdout, stderr } of results) {
      expect(stderr).toBe('');
      const report = JSON.parse(stdout) as {
        mismatches: number;
        checked: number;
        stats: { statOnly: number; incremental: number; full: number; unavailable: number };
      };
      expect(report.mismatches).toBe(0);
      expect(report.checked).toBe(5 * Number(rounds));
      // Each process reused entries written by either process (stat-only answers on fresh stores).
      expect(report.stats.statOnly).toBeGreaterThan(0);
      expect(report.stats.incremental).toBeGreaterThan(0);
    }
    // Quiescent again: the shared index file decodes and answers equal a full inspection.
    expect((await readIndexEntries(root))?.size).toBeGreaterThan(0);
    const final = await openPair(root, compression);
    const observations = await expectSameTitles(final, ids, 'after both processes');
    expect(
      observations.filter((observation) => observation.status === 'fulfilled' && observation.value.title?.title.includes('round 24')),
    ).toHaveLength(2);
  });
});

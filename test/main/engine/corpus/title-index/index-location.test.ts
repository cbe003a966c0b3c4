/**
 * Caches live where caches live (SESSION-LOG.md §10.7, issue 11 item 6): the title index is kept in the user
 * cache directory, never in the session root.
 *
 * (a) A read-only discovery (the query layer's `readTitleSnapshots`, and the built CLI's `sessions --query`)
 *     leaves the root's files and directory listing byte-for-byte unchanged and writes the index under
 *     `XDG_CACHE_HOME` (not under `HOME`).
 * (b) The file is keyed by the root's real path: a symlink to the root shares the root's file (and its
 *     entries); a copy gets its own; a cache file copied to another root is discarded.
 * (c) Entries of artifacts that no longer exist are pruned when the file is written.
 * (d) An unwritable cache directory: answers identical, nothing written, nothing printed, one note.
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, cp, link, mkdir, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../../src/protocol/events.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import { decodeTitleIndex } from '../../../../../src/main/engine/corpus/title-index/title-index-file.js';
import { TitleIndex } from '../../../../../src/main/engine/corpus/title-index/title-index.js';
import { artifactPathFor } from '../../../../../src/io/artifact-path.js';
import { REPO_ROOT, ZSTD_ROOT } from '../../../../support/fixtures.js';
import {
  appendLines,
  copyRoot,
  CountingFs,
  expectSameTitles,
  openPair,
  readIndexEntries,
  removeTempDirs,
  tempDir,
} from './title-index-harness.js';

afterAll(removeTempDirs);

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
const T0 = 1_767_225_600_000;

/** Every path under `dir` (and `dir` itself) with its kind, size and nanosecond mtime, sorted: what "unchanged" compares. */
async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const stats = await stat(path, { bigint: true });
    out.push(`${relative(dir, path) || '.'} ${stats.isDirectory() ? 'dir' : 'file'} ${stats.size} ${stats.mtimeNs}`);
    if (stats.isDirectory()) for (const name of await readdir(path)) await walk(join(path, name));
  };
  await walk(dir);
  return out.sort();
}

/** The files of `<cacheHome>/sessionctx/title-index/` (none when it does not exist). */
async function indexFiles(cacheHome: string): Promise<string[]> {
  return readdir(join(cacheHome, 'sessionctx', 'title-index')).catch(() => []);
}

/** A root with `count` titled sessions (cwd `/w`); returns it and the ids. */
async function corpus(compression: Compression, count: number): Promise<{ root: string; ids: string[] }> {
  const root = join(await tempDir(), 'sessions');
  const { full } = await openPair(root, compression);
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = `loc-${index}`;
    const path = await full.create({ version: 0, id: asSessionId(id), createdAt: T0 + index, cwd: '/w' } as SessionHeader);
    await appendLines(
      path,
      [
        JSON.stringify({
          type: 'session/title',
          seq: 0,
          time: T0,
          data: { title: `title ${index}`, messageSeqs: [], source: { kind: 'user' } },
        }),
      ],
      compression,
    );
    ids.push(id);
  }
  return { root, ids };
}

describe('(a) a read-only discovery writes nothing into the root', () => {
  it('query layer over a copy of the zstd fixture: the root is unchanged, the index is under XDG_CACHE_HOME, nothing under HOME', async () => {
    const root = await copyRoot(ZSTD_ROOT);
    const cacheHome = await tempDir('sessionctx-xdg-');
    const home = await tempDir('sessionctx-home-');
    const before = await snapshot(root);
    const pair = await openPair(root, 'zstd', { env: { XDG_CACHE_HOME: cacheHome, HOME: home } });
    const ids = (await pair.indexedQuery.listSessions()).map((record) => record.header.id);
    await expectSameTitles(pair, ids, 'discovery');
    await pair.indexed.flushTitleIndex();
    expect(await snapshot(root)).toEqual(before);
    const [file] = await indexFiles(cacheHome);
    expect(pair.indexed.titleIndexPath).toBe(join(cacheHome, 'sessionctx', 'title-index', file as string));
    const content = decodeTitleIndex(await readFile(pair.indexed.titleIndexPath as string));
    expect(content?.root).toBe(await realpath(root));
    expect(content?.entries.size).toBe(ids.length);
    expect(await readdir(home)).toEqual([]);
    expect(pair.indexed.titleIndexNote).toBeUndefined();
  });

  it('the built CLI: sessions --query leaves the root unchanged and writes the index under XDG_CACHE_HOME', async () => {
    const root = await copyRoot(ZSTD_ROOT);
    const cacheHome = await tempDir('sessionctx-xdg-');
    const home = await tempDir('sessionctx-home-');
    const before = await snapshot(root);
    const { stdout, stderr } = await run(process.execPath, [BIN, 'sessions', '--root', root, '--query', 'a'], {
      env: { ...process.env, XDG_CACHE_HOME: cacheHome, HOME: home },
    });
    expect(stderr).toBe('');
    expect(stdout).not.toBe('');
    expect(await snapshot(root)).toEqual(before);
    const files = await indexFiles(cacheHome);
    expect(files).toHaveLength(1);
    const content = decodeTitleIndex(await readFile(join(cacheHome, 'sessionctx', 'title-index', files[0] as string)));
    expect(content?.root).toBe(await realpath(root));
    expect(content?.entries.size).toBeGreaterThan(0);
    expect(await readdir(home)).toEqual([]);
    // A second run answers from the file and still changes nothing.
    await run(process.execPath, [BIN, 'sessions', '--root', root, '--query', 'a'], {
      env: { ...process.env, XDG_CACHE_HOME: cacheHome, HOME: home },
    });
    expect(await snapshot(root)).toEqual(before);
  });

  it("without XDG_CACHE_HOME the index goes under the environment's HOME (~/.cache on Linux, ~/Library/Caches on macOS)", async () => {
    const { root, ids } = await corpus('none', 2);
    const home = await tempDir('sessionctx-home-');
    const pair = await openPair(root, 'none', { env: { HOME: home } });
    await expectSameTitles(pair, ids, 'home cache');
    await pair.indexed.flushTitleIndex();
    const base = process.platform === 'darwin' ? join(home, 'Library', 'Caches') : join(home, '.cache');
    expect(await indexFiles(base)).toHaveLength(1);
    // A cache of other people's conversation titles is private.
    expect((await stat(join(base, 'sessionctx', 'title-index'))).mode & 0o077).toBe(0);
  });

  it('an explicit titleIndexPath is honoured, inside the root if so configured', async () => {
    const { root, ids } = await corpus('none', 2);
    const cacheHome = await tempDir('sessionctx-xdg-');
    const pair = await openPair(root, 'none', { titleIndexPath: 'my-index.v1', env: { XDG_CACHE_HOME: cacheHome } });
    await expectSameTitles(pair, ids, 'explicit path');
    await pair.indexed.flushTitleIndex();
    expect(pair.indexed.titleIndexPath).toBe(join(root, 'my-index.v1'));
    expect(decodeTitleIndex(await readFile(join(root, 'my-index.v1')))?.entries.size).toBe(2);
    expect(await indexFiles(cacheHome)).toEqual([]);
  });
});

describe('(b) one index file per real root', () => {
  it("a symlink to the root shares the root's file and entries; a copy gets its own file", async () => {
    const { root, ids } = await corpus('none', 3);
    const alias = join(root, '..', 'alias');
    await symlink(root, alias);
    const first = await openPair(root, 'none');
    await expectSameTitles(first, ids, 'through the root');
    await first.indexed.flushTitleIndex();

    const viaAlias = await openPair(alias, 'none');
    expect(viaAlias.indexed.titleIndexPath).toBe(first.indexed.titleIndexPath);
    await expectSameTitles(viaAlias, ids, 'through the symlink');
    expect(viaAlias.indexed.titleIndexStats).toEqual({
      statOnly: 3,
      incremental: 0,
      full: 0,
      unavailable: 0,
      discarded: 0,
      discardedFiles: 0,
    });

    const copy = join(root, '..', 'copy');
    await cp(root, copy, { recursive: true });
    const viaCopy = await openPair(copy, 'none');
    expect(viaCopy.indexed.titleIndexPath).not.toBe(first.indexed.titleIndexPath);
    await expectSameTitles(viaCopy, ids, 'the copy');
    expect(viaCopy.indexed.titleIndexStats?.full).toBe(3);
    await viaCopy.indexed.flushTitleIndex();
    expect(decodeTitleIndex(await readFile(viaCopy.indexed.titleIndexPath as string))?.root).toBe(await realpath(copy));
    expect(decodeTitleIndex(await readFile(first.indexed.titleIndexPath as string))?.root).toBe(await realpath(root));
  });

  it('a cache file copied to another root is discarded, even over a hard-linked copy whose artifacts match every entry', async () => {
    const { root, ids } = await corpus('none', 3);
    const first = await openPair(root, 'none');
    await expectSameTitles(first, ids, 'build');
    await first.indexed.flushTitleIndex();
    // A copy of the root made of hard links: the same inodes, so every entry's revision matches its file.
    const twin = join(root, '..', 'twin');
    const config = first.indexed.config;
    for (const id of ids) {
      const source = artifactPathFor(config, id, '/w');
      const target = join(twin, relative(root, source));
      await mkdir(join(target, '..'), { recursive: true });
      await link(source, target);
    }
    const twinPair = await openPair(twin, 'none');
    const twinIndex = twinPair.indexed.titleIndexPath as string;
    await mkdir(join(twinIndex, '..'), { recursive: true });
    await copyFile(first.indexed.titleIndexPath as string, twinIndex);
    await expectSameTitles(twinPair, ids, 'twin with a copied cache file');
    expect(twinPair.indexed.titleIndexStats).toEqual({
      statOnly: 0,
      incremental: 0,
      full: 3,
      unavailable: 0,
      discarded: 0,
      discardedFiles: 0,
    });
    await twinPair.indexed.flushTitleIndex();
    expect(decodeTitleIndex(await readFile(twinIndex))?.root).toBe(await realpath(twin));
  });
});

describe('(c) entries of vanished artifacts are pruned when the file is written', () => {
  it.each(['none', 'zstd'] as const)('a deleted session directory loses its entry at the next flush (%s)', async (compression) => {
    const { root, ids } = await corpus(compression, 3);
    const first = await openPair(root, compression);
    await expectSameTitles(first, ids, 'build');
    await first.indexed.flushTitleIndex();
    const deleted = relative(root, artifactPathFor(first.indexed.config, ids[1] as string, '/w'));
    expect([...((await readIndexEntries(root))?.keys() ?? [])].sort()).toContain(deleted);

    await rm(join(root, deleted, '..'), { recursive: true });
    const remaining = [ids[0] as string, ids[2] as string];
    const second = await openPair(root, compression);
    await expectSameTitles(second, remaining, 'after deleting one');
    expect(second.indexed.titleIndexStats).toEqual({
      statOnly: 2,
      incremental: 0,
      full: 0,
      unavailable: 0,
      discarded: 0,
      discardedFiles: 0,
    });
    await second.indexed.flushTitleIndex();
    const entries = await readIndexEntries(root);
    expect(entries?.size).toBe(2);
    expect(entries?.has(deleted)).toBe(false);
  });

  it("an entry whose artifact cannot be stat'ed for another reason (EIO) is kept; one that exists is kept", async () => {
    const { root, ids } = await corpus('none', 3);
    const first = await openPair(root, 'none');
    await expectSameTitles(first, ids, 'build');
    await first.indexed.flushTitleIndex();
    const fs = new CountingFs();
    const failing = artifactPathFor(first.indexed.config, ids[2] as string, '/w');
    fs.failStats.add(failing);
    const second = await openPair(root, 'none', { titleIndexFs: fs });
    // Observe one session with a change, so a write happens; the two others are only checked by the pruning pass.
    await appendLines(
      artifactPathFor(first.indexed.config, ids[0] as string, '/w'),
      [JSON.stringify({ type: 'session/title', seq: 1, time: T0, data: { title: 'changed', messageSeqs: [], source: { kind: 'user' } } })],
      'none',
    );
    await second.indexed.inspectTitle(asSessionId(ids[0] as string));
    await second.indexed.flushTitleIndex();
    expect(fs.of(failing).stats).toBe(1);
    expect((await readIndexEntries(root))?.size).toBe(3);
  });
});

describe('(d) an unwritable cache directory', () => {
  let writes: ReturnType<typeof vi.spyOn>[] = [];
  afterEach(() => {
    for (const spy of writes) spy.mockRestore();
    writes = [];
  });

  /** Spies on everything that could print (the streams and the console); returns the spies. */
  function watchOutput(): Array<ReturnType<typeof vi.spyOn>> {
    writes = [
      vi.spyOn(process.stderr, 'write'),
      vi.spyOn(process.stdout, 'write'),
      vi.spyOn(console, 'warn'),
      vi.spyOn(console, 'error'),
      vi.spyOn(console, 'log'),
      vi.spyOn(console, 'debug'),
    ];
    return writes;
  }

  const cases: Array<{ name: string; env: (dir: string) => Promise<NodeJS.ProcessEnv> }> = [
    {
      name: 'XDG_CACHE_HOME is a file',
      env: async (dir) => {
        await writeFile(join(dir, 'file'), '');
        return { XDG_CACHE_HOME: join(dir, 'file') };
      },
    },
    {
      name: 'XDG_CACHE_HOME is a directory marked read-only (refused even for root)',
      env: async (dir) => {
        await mkdir(join(dir, 'ro'));
        await chmod(join(dir, 'ro'), 0o555);
        return { XDG_CACHE_HOME: join(dir, 'ro') };
      },
    },
    {
      name: 'the cache folder exists but is read-only',
      env: async (dir) => {
        await mkdir(join(dir, 'c', 'sessionctx', 'title-index'), { recursive: true });
        await chmod(join(dir, 'c', 'sessionctx', 'title-index'), 0o555);
        return { XDG_CACHE_HOME: join(dir, 'c') };
      },
    },
    {
      name: 'no XDG_CACHE_HOME and a read-only HOME',
      env: async (dir) => {
        await mkdir(join(dir, 'home'));
        await chmod(join(dir, 'home'), 0o555);
        return { HOME: join(dir, 'home') };
      },
    },
  ];

  it.each(cases)('$name: answers identical, nothing written or printed, one note', async ({ env }) => {
    const { root, ids } = await corpus('none', 3);
    const dir = await tempDir('sessionctx-blocked-');
    const blocked = await env(dir);
    const before = await snapshot(dir);
    const rootBefore = await snapshot(root);
    try {
      const pair = await openPair(root, 'none', { env: blocked });
      const spies = watchOutput();
      await expectSameTitles(pair, ids, 'unwritable cache');
      await pair.indexed.flushTitleIndex();
      await expectSameTitles(pair, ids, 'again, from memory');
      await pair.indexed.flushTitleIndex();
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
      expect(pair.indexed.titleIndexStats).toEqual({
        statOnly: 3,
        incremental: 0,
        full: 3,
        unavailable: 0,
        discarded: 0,
        discardedFiles: 0,
      });
      expect(pair.indexed.titleIndexNote).toMatch(/^title index not written to /u);
      expect(await snapshot(dir)).toEqual(before);
      expect(await snapshot(root)).toEqual(rootBefore);
    } finally {
      // Restore the modes so the temporary directory can be removed by any user; a case lacks some of them.
      for (const name of ['ro', 'home', join('c', 'sessionctx', 'title-index')]) await chmod(join(dir, name), 0o755).catch(() => undefined);
    }
  });

  it('the built CLI over an unwritable cache: the same answer as with a writable one, nothing on stderr', async () => {
    const root = await copyRoot(ZSTD_ROOT);
    const dir = await tempDir('sessionctx-blocked-');
    await mkdir(join(dir, 'ro'));
    await chmod(join(dir, 'ro'), 0o555);
    const writable = await tempDir('sessionctx-xdg-');
    try {
      const args = [BIN, 'sessions', '--root', root, '--query', 'a', '--json'];
      const blocked = await run(process.execPath, args, { env: { ...process.env, XDG_CACHE_HOME: join(dir, 'ro') } });
      const normal = await run(process.execPath, args, { env: { ...process.env, XDG_CACHE_HOME: writable } });
      expect(blocked.stderr).toBe('');
      expect(blocked.stdout).toBe(normal.stdout);
      expect(await readdir(join(dir, 'ro'))).toEqual([]);
    } finally {
      await chmod(join(dir, 'ro'), 0o755);
    }
  });
});

describe('an index without a file (no cache directory could be determined)', () => {
  it('answers from memory, touches no file, and says so in its note', async () => {
    const { root, ids } = await corpus('none', 1);
    const pair = await openPair(root, 'none');
    const fs = new CountingFs();
    const index = new TitleIndex({ indexPath: undefined, root, realRoot: await realpath(root), compression: 'none', fs });
    const artifact = artifactPathFor(pair.full.config, ids[0] as string, '/w');
    const before = await snapshot(join(root, '..'));
    expect((await index.observe(artifact))?.kind).toBe('checked');
    expect((await index.observe(artifact))?.kind).toBe('checked');
    await index.flush();
    expect(index.stats).toEqual({ statOnly: 1, incremental: 0, full: 1, unavailable: 0, discarded: 0, discardedFiles: 0 });
    expect(index.persistenceNote).toMatch(/in memory only/u);
    expect([...fs.counts.keys()]).toEqual([artifact]);
    expect(await snapshot(join(root, '..'))).toEqual(before);
  });
});

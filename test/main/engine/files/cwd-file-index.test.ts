// The `@` picker's file index (issue 28, docs/WEB.md "The @ source"): bounds, exclusions, links, hostile names and
// invalidation, on real directory trees the tests build; expected paths are written out by hand from each tree.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CwdFileIndex, type FileListing } from '../../../../src/main/engine/files/cwd-file-index.js';

let base: string;
let cwd: string;
let outside: string;

/** Creates `files` (a trailing `/` is a directory) under `dir`. */
async function tree(dir: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const path = join(dir, file);
    if (file.endsWith('/')) await mkdir(path, { recursive: true });
    else {
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, 'x');
    }
  }
}

const paths = (listing: FileListing): string[] => listing.candidates.map((c) => `${c.path}${c.kind === 'directory' ? '/' : ''}`);

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'sessionctx-files-'));
  cwd = join(base, 'project');
  outside = join(base, 'secret');
  await tree(outside, ['passwords.txt', 'keys/id_rsa']);
  await tree(cwd, [
    'README.md',
    'src/index.ts',
    'src/inbox/',
    'docs/index.md',
    '.env',
    '.git/HEAD',
    'node_modules/left-pad/index.js',
    'my notes/plan final.md',
    'bad\nname.txt',
    'quote"d.txt',
    'back\\slash.txt',
  ]);
  await symlink(outside, join(cwd, 'escape'));
  await symlink(join(outside, 'passwords.txt'), join(cwd, 'passwords-link.txt'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('CwdFileIndex', () => {
  it('ranks a bare query over the whole tree: name equal, starts, contains, path contains, in order; shorter paths first', async () => {
    const index = new CwdFileIndex();
    expect(paths(await index.list(cwd, 'index'))).toEqual(['src/index.ts', 'docs/index.md']);
    expect(paths(await index.list(cwd, 'src'))).toEqual(['src/', 'src/inbox/', 'src/index.ts']);
    // A subsequence: r…d…m of README.md.
    expect(paths(await index.list(cwd, 'rdm'))).toEqual(['README.md']);
    expect(paths(await index.list(cwd, 'zzz'))).toEqual([]);
  });

  it('never offers .git or node_modules, nor walks them; dot-files only to a query starting with a dot', async () => {
    const index = new CwdFileIndex();
    expect(paths(await index.list(cwd, 'HEAD'))).toEqual([]);
    expect(paths(await index.list(cwd, 'left-pad'))).toEqual([]);
    expect(paths(await index.list(cwd, 'env'))).toEqual([]);
    expect(paths(await index.list(cwd, '.env'))).toEqual(['.env']);
    expect(paths(await index.list(cwd, 'node_modules/'))).toEqual([]);
    expect(paths(await index.list(cwd, '.git/'))).toEqual([]);
  });

  it('an empty query lists the cwd: directories first, then files, dot entries hidden', async () => {
    const listing = await new CwdFileIndex().list(cwd, '');
    expect(paths(listing)).toEqual(['docs/', 'my notes/', 'src/', 'README.md', 'back\\slash.txt']);
  });

  it('a query with a / lists that directory as it is now, its last segment filtering; paths with spaces stay whole', async () => {
    const index = new CwdFileIndex();
    expect(paths(await index.list(cwd, 'src/'))).toEqual(['src/inbox/', 'src/index.ts']);
    expect(paths(await index.list(cwd, 'src/ind'))).toEqual(['src/index.ts']);
    expect(paths(await index.list(cwd, 'my notes/'))).toEqual(['my notes/plan final.md']);
    expect(paths(await index.list(cwd, 'plan'))).toEqual(['my notes/plan final.md']);
    // Backslashes are read as separators, as a Windows user types them.
    expect(paths(await index.list(cwd, 'src\\ind'))).toEqual(['src/index.ts']);
  });

  it('hostile names: a newline or a quote is never offered; links are neither offered nor followed; .. never leaves the cwd', async () => {
    const index = new CwdFileIndex();
    expect(paths(await index.list(cwd, 'name'))).toEqual([]);
    expect(paths(await index.list(cwd, 'quote'))).toEqual([]);
    // The links and everything behind them (`passwords.txt`, `keys/`) are outside the cwd.
    expect(paths(await index.list(cwd, 'escape'))).toEqual([]);
    expect(paths(await index.list(cwd, 'passwords'))).toEqual([]);
    expect(paths(await index.list(cwd, 'escape/'))).toEqual([]);
    expect(paths(await index.list(cwd, 'escape/keys/'))).toEqual([]);
    for (const query of ['../', '../secret/', 'src/../../secret/', './', '/', '/etc/', 'src/./']) {
      expect(paths(await index.list(cwd, query)), query).toEqual([]);
    }
  });

  it('bounds: maxEntries paths per cwd (breadth first, truncated says so), maxResults per answer', async () => {
    const wide = join(base, 'wide');
    await tree(wide, [...Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`), 'deep/inner.txt']);
    const bounded = new CwdFileIndex({ maxEntries: 10, maxResults: 100 });
    const listing = await bounded.list(wide, 'f');
    expect(listing.truncated).toBe(true);
    // Sorted names, breadth first: `deep/` then f00…f08 are the first ten; `deep/inner.txt` is beyond the bound.
    expect(paths(listing)).toEqual(Array.from({ length: 9 }, (_, i) => `f0${i}.txt`));
    expect(paths(await bounded.list(wide, 'inner'))).toEqual([]);
    const few = new CwdFileIndex({ maxResults: 3 });
    const top = await few.list(wide, 'f');
    expect(top.truncated).toBe(false);
    expect(paths(top)).toEqual(['f00.txt', 'f01.txt', 'f02.txt']);
    expect(paths(await few.list(wide, 'inner'))).toEqual(['deep/inner.txt']);
  });

  it('is reused until the TTL passes or the freshness token changes (the session wrote: its tools may have changed files)', async () => {
    const live = join(base, 'live');
    await tree(live, ['first.txt']);
    let now = 0;
    const index = new CwdFileIndex({ ttlMs: 1000, now: () => now });
    // What the index holds, whatever the order its ranking gives.
    const held = async (freshness: string): Promise<string[]> => paths(await index.list(live, 'txt', { freshness })).sort();
    expect(await held('r1')).toEqual(['first.txt']);
    await tree(live, ['second.txt']);
    now = 999;
    expect(await held('r1')).toEqual(['first.txt']);
    expect(await held('r2')).toEqual(['first.txt', 'second.txt']);
    await tree(live, ['third.txt']);
    now = 999 + 1000;
    expect(await held('r2')).toEqual(['first.txt', 'second.txt', 'third.txt']);
    await tree(live, ['fourth.txt']);
    index.invalidate(live);
    expect(await held('r2')).toEqual(['first.txt', 'fourth.txt', 'second.txt', 'third.txt']);
  });

  it('a cwd that is missing, a file or relative is a typed refusal; a later lookup tries again', async () => {
    const index = new CwdFileIndex();
    const later = join(base, 'later');
    await expect(index.list(later, 'a')).rejects.toMatchObject({ name: 'FileIndexError', code: 'FILE_INDEX_CWD_MISSING' });
    await expect(index.list(later, 'sub/')).rejects.toMatchObject({ code: 'FILE_INDEX_CWD_MISSING' });
    await expect(index.list(join(cwd, 'README.md'), 'a')).rejects.toMatchObject({ code: 'FILE_INDEX_CWD_MISSING' });
    await expect(index.list(join(cwd, 'README.md', 'below'), 'a')).rejects.toMatchObject({ code: 'FILE_INDEX_CWD_MISSING' });
    await expect(index.list('project', 'a')).rejects.toMatchObject({ code: 'FILE_INDEX_CWD_INVALID' });
    await tree(later, ['alpha.txt']);
    expect(paths(await index.list(later, 'a'))).toEqual(['alpha.txt']);
  });

  it('an aborted lookup rejects with the signal reason; bad bounds are RangeErrors', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(new CwdFileIndex().list(cwd, 'a', { signal: controller.signal })).rejects.toThrow('gone');
    expect(() => new CwdFileIndex({ maxResults: 0 })).toThrow(RangeError);
    expect(() => new CwdFileIndex({ maxEntries: 1.5 })).toThrow(RangeError);
    expect(() => new CwdFileIndex({ excludedDirectories: ['a/b'] })).toThrow(RangeError);
  });
});

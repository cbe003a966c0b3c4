/**
 * Where sessionctx keeps its caches (src/main/engine/config/cache-location.ts): the user cache directory of each
 * platform and environment case, the title index file of a root (keyed by the root's real path), and the
 * precedence of an explicit index path, an explicit cache directory and the environment. Expected paths are
 * written out literally from the platform conventions (XDG Base Directory, Apple's Library/Caches, Windows'
 * LOCALAPPDATA); the file-name digest is checked against a SHA-256 vector computed outside this code.
 */
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  homeDirectoryOf,
  realPathOf,
  resolveTitleIndexLocation,
  titleIndexFileName,
  userCacheDirectory,
} from '../../../../src/main/engine/config/cache-location.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sessionctx-cache-location-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('userCacheDirectory', () => {
  it.each([
    ['linux', {}, '/home/u', '/home/u/.cache/sessionctx'],
    ['linux', { XDG_CACHE_HOME: '/var/cache/u' }, '/home/u', '/var/cache/u/sessionctx'],
    ['linux', { XDG_CACHE_HOME: '/var/cache/u/' }, '/home/u', '/var/cache/u/sessionctx'],
    ['linux', { XDG_CACHE_HOME: '' }, '/home/u', '/home/u/.cache/sessionctx'],
    ['linux', { XDG_CACHE_HOME: 'relative/cache' }, '/home/u', '/home/u/.cache/sessionctx'],
    ['linux', { XDG_CACHE_HOME: '~/cache' }, '/home/u', '/home/u/.cache/sessionctx'],
    ['freebsd', {}, '/usr/home/u', '/usr/home/u/.cache/sessionctx'],
    ['freebsd', { XDG_CACHE_HOME: '/c' }, '/usr/home/u', '/c/sessionctx'],
    ['darwin', {}, '/Users/u', '/Users/u/Library/Caches/sessionctx'],
    ['darwin', { XDG_CACHE_HOME: '' }, '/Users/u', '/Users/u/Library/Caches/sessionctx'],
    ['darwin', { XDG_CACHE_HOME: 'rel' }, '/Users/u', '/Users/u/Library/Caches/sessionctx'],
    ['darwin', { XDG_CACHE_HOME: '/Users/u/.cache' }, '/Users/u', '/Users/u/.cache/sessionctx'],
    ['win32', { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'C:\\Users\\u', 'C:\\Users\\u\\AppData\\Local\\sessionctx\\Cache'],
    ['win32', {}, 'C:\\Users\\u', 'C:\\Users\\u\\AppData\\Local\\sessionctx\\Cache'],
    ['win32', { LOCALAPPDATA: '' }, 'C:\\Users\\u', 'C:\\Users\\u\\AppData\\Local\\sessionctx\\Cache'],
    ['win32', { LOCALAPPDATA: 'AppData\\Local' }, 'C:\\Users\\u', 'C:\\Users\\u\\AppData\\Local\\sessionctx\\Cache'],
    ['win32', { XDG_CACHE_HOME: 'D:\\cache', LOCALAPPDATA: 'E:\\Local' }, 'C:\\Users\\u', 'E:\\Local\\sessionctx\\Cache'],
  ] as const)('%s with %j and home %s: %s', (platform, env, home, expected) => {
    expect(userCacheDirectory(env, platform, home)).toBe(expected);
  });

  it.each([
    ['linux', {}, ''],
    ['linux', {}, 'relative/home'],
    ['darwin', { XDG_CACHE_HOME: 'rel' }, ''],
    ['win32', {}, ''],
    ['win32', { LOCALAPPDATA: 'rel' }, 'relative'],
  ] as const)('no absolute location (%s, %j, home %j): undefined, so the index stays in memory', (platform, env, home) => {
    expect(userCacheDirectory(env, platform, home)).toBeUndefined();
  });

  it('an absolute XDG_CACHE_HOME needs no home directory', () => {
    expect(userCacheDirectory({ XDG_CACHE_HOME: '/c' }, 'linux', '')).toBe('/c/sessionctx');
  });
});

describe('homeDirectoryOf', () => {
  it('takes HOME (USERPROFILE on Windows) from the given environment when absolute, else the process home', () => {
    expect(homeDirectoryOf({ HOME: '/home/other' }, 'linux')).toBe('/home/other');
    expect(homeDirectoryOf({ USERPROFILE: 'C:\\Users\\other', HOME: '/x' }, 'win32')).toBe('C:\\Users\\other');
    expect(homeDirectoryOf({ HOME: 'relative' }, 'linux')).toBe(homedir());
    expect(homeDirectoryOf({}, 'linux')).toBe(homedir());
  });
});

describe('titleIndexFileName', () => {
  it('is the first 16 hex digits of SHA-256 of the real root, plus .v1', () => {
    // printf '%s' '/home/u/.dsh/sessions' | sha256sum → 0ad21432dfaea7bb…
    expect(titleIndexFileName('/home/u/.dsh/sessions')).toBe('0ad21432dfaea7bb.v1');
  });
});

describe('realPathOf', () => {
  it('resolves symlinks of an existing path, of the existing part of a missing one, and resolves a relative path', async () => {
    const dir = await realpath(await tempDir());
    await mkdir(join(dir, 'real', 'sessions'), { recursive: true });
    await symlink(join(dir, 'real'), join(dir, 'link'));
    expect(await realPathOf(join(dir, 'link', 'sessions'))).toBe(join(dir, 'real', 'sessions'));
    expect(await realPathOf(join(dir, 'link', 'missing', 'sessions'))).toBe(join(dir, 'real', 'missing', 'sessions'));
    expect(await realPathOf(join(dir, 'real', 'sessions', '..', 'sessions'))).toBe(join(dir, 'real', 'sessions'));
    expect(await realPathOf('relative-root-that-does-not-exist')).toBe(
      join(await realpath(process.cwd()), 'relative-root-that-does-not-exist'),
    );
  });
});

describe('resolveTitleIndexLocation', () => {
  it("an explicit titleIndexPath wins, resolved against the root, and its directory is not sessionctx's to create", async () => {
    const dir = await realpath(await tempDir());
    const root = join(dir, 'sessions');
    expect(
      await resolveTitleIndexLocation(root, { titleIndexPath: 'idx.v1', cacheDirectory: '/elsewhere', env: { XDG_CACHE_HOME: '/x' } }),
    ).toEqual({ indexPath: join(root, 'idx.v1'), realRoot: root, createDirectory: false });
    expect((await resolveTitleIndexLocation(root, { titleIndexPath: '/abs/idx' })).indexPath).toBe('/abs/idx');
  });

  it("an explicit cacheDirectory beats the environment; the environment's XDG_CACHE_HOME beats HOME", async () => {
    const dir = await realpath(await tempDir());
    const root = join(dir, 'sessions');
    const name = titleIndexFileName(root);
    expect(await resolveTitleIndexLocation(root, { cacheDirectory: join(dir, 'c'), env: { XDG_CACHE_HOME: '/x' } })).toEqual({
      indexPath: join(dir, 'c', 'title-index', name),
      realRoot: root,
      createDirectory: true,
    });
    expect((await resolveTitleIndexLocation(root, { env: { XDG_CACHE_HOME: join(dir, 'xdg'), HOME: '/home/u' } })).indexPath).toBe(
      join(dir, 'xdg', 'sessionctx', 'title-index', name),
    );
  });

  it.runIf(process.platform === 'linux')("without XDG_CACHE_HOME the environment's HOME decides (Linux: ~/.cache)", async () => {
    const dir = await realpath(await tempDir());
    const root = join(dir, 'sessions');
    expect((await resolveTitleIndexLocation(root, { env: { HOME: join(dir, 'home'), XDG_CACHE_HOME: 'relative' } })).indexPath).toBe(
      join(dir, 'home', '.cache', 'sessionctx', 'title-index', titleIndexFileName(root)),
    );
  });

  it('a symlink to a root and the root share one file; a copy (another real path) gets its own', async () => {
    const dir = await realpath(await tempDir());
    await mkdir(join(dir, 'sessions'));
    await mkdir(join(dir, 'copy'));
    await symlink(join(dir, 'sessions'), join(dir, 'alias'));
    const options = { cacheDirectory: join(dir, 'c') };
    const real = await resolveTitleIndexLocation(join(dir, 'sessions'), options);
    const alias = await resolveTitleIndexLocation(join(dir, 'alias'), options);
    const copy = await resolveTitleIndexLocation(join(dir, 'copy'), options);
    expect(alias).toEqual(real);
    expect(real.realRoot).toBe(join(dir, 'sessions'));
    expect(copy.indexPath).not.toBe(real.indexPath);
    expect(copy.realRoot).toBe(join(dir, 'copy'));
  });
});

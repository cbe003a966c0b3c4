// Issue 17, robustness: a foreign or non-SQLite file at the index path is refused and left byte-identical; our file
// with an unknown version or damaged pages is rebuilt; a lock held by another connection fails with
// SEARCH_INDEX_BUSY and clears once released; a removed cache directory is recreated; FTS5 operators, quotes, NUL
// and 10 KB of text are data; a missing native module fails search with SEARCH_UNAVAILABLE and nothing else.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { artifactPathOf } from '../../../../bench/support/long-session.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { CorpusSession, writeSession } from './search-corpus.js';

type Sqlite = typeof import('better-sqlite3');
const Database = createRequire(import.meta.url)('better-sqlite3') as Sqlite;

let dir: string;
let root: string;

/** What a promise rejects with (fails the test when it resolves). */
async function thrown(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-robust-'));
  root = join(dir, 'root');
  const a = new CorpusSession('s-a', '/work/a');
  a.turn('We fixed the rounding in cartTotal today', 'Le café est prêt: a "quoted" OR b* NEAR(x y) col:value');
  a.turn(`long ${'filler '.repeat(1500)} needle at the end`, 'ok');
  await writeSession(root, a, 'none');
  const b = new CorpusSession('s-b', '/work/b');
  b.turn('merge note for the training OOM', 'nothing else');
  await writeSession(root, b, 'none');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

async function engineAt(directory: string, extra: Record<string, unknown> = {}, searchModule?: string): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'none',
    workers: false,
    corpus: { watch: false },
    store: { cacheDirectory: join(dir, 'unused-cache') },
    search: { directory, busyTimeoutMs: 200, ...extra },
    ...(searchModule === undefined ? {} : { searchModule }),
  });
}

async function ids(engine: LocalSessionEngine, query: string): Promise<string[]> {
  return (await engine.searchSessions({ query })).results.map((result) => result.sessionId);
}

describe('the index file', () => {
  it('a file that is not SQLite is refused with SEARCH_FOREIGN_DATABASE and left untouched', async () => {
    const directory = join(dir, 'not-sqlite');
    await mkdir(directory, { recursive: true });
    const file = join(directory, 'index.sqlite');
    writeFileSync(file, 'my precious notes, not a database\n'.repeat(10));
    const before = readFileSync(file);
    const engine = await engineAt(directory);
    try {
      const error = await thrown(engine.searchSessions({ query: 'cafe' }));
      expect((error as { code?: unknown }).code).toBe('SEARCH_FOREIGN_DATABASE');
      expect((error as Error).message).toContain('not an SQLite database');
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(existsSync(`${file}-wal`)).toBe(false);
      // Everything else still works.
      expect((await engine.listSessions()).length).toBe(2);
    } finally {
      await engine.close();
    }
  });

  it("another application's SQLite database is refused and left byte-identical", async () => {
    const directory = join(dir, 'foreign-sqlite');
    await mkdir(directory, { recursive: true });
    const file = join(directory, 'index.sqlite');
    const other = new Database(file);
    other.exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts (name) VALUES ('alice')");
    other.close();
    const before = readFileSync(file);
    const engine = await engineAt(directory);
    try {
      const error = await thrown(engine.searchSessions({ query: 'cafe' }));
      expect((error as { code?: unknown }).code).toBe('SEARCH_FOREIGN_DATABASE');
      expect(readFileSync(file).equals(before)).toBe(true);
    } finally {
      await engine.close();
    }
  });

  it('our database with an unknown schema version is rebuilt', async () => {
    const directory = join(dir, 'old-version');
    let engine = await engineAt(directory);
    expect(await ids(engine, 'cafe')).toEqual(['s-a']);
    await engine.close();
    const file = join(directory, 'index.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = DELETE');
    db.pragma('user_version = 99');
    db.exec('DELETE FROM docs_fts');
    db.close();
    engine = await engineAt(directory);
    try {
      expect(await ids(engine, 'cafe')).toEqual(['s-a']);
      const reopened = new Database(file, { readonly: true });
      expect(reopened.pragma('user_version', { simple: true })).toBe(3);
      reopened.close();
    } finally {
      await engine.close();
    }
  });

  it('our database with damaged pages is rebuilt from the logs', async () => {
    const directory = join(dir, 'corrupt');
    let engine = await engineAt(directory);
    expect(await ids(engine, 'merge note')).toEqual(['s-b']);
    await engine.close();
    const file = join(directory, 'index.sqlite');
    const bytes = readFileSync(file);
    // Keep the 100-byte header (it still names us), overwrite everything after it.
    for (let at = 100; at < bytes.length; at += 1) bytes[at] = (at * 131) & 0xff;
    writeFileSync(file, bytes);
    engine = await engineAt(directory);
    try {
      expect(await ids(engine, 'merge note')).toEqual(['s-b']);
      expect(await ids(engine, 'cafe')).toEqual(['s-a']);
    } finally {
      await engine.close();
    }
  });

  it('a lock held by another connection fails with SEARCH_INDEX_BUSY, and search works once it is released', async () => {
    const directory = join(dir, 'locked');
    const engine = await engineAt(directory);
    try {
      expect(await ids(engine, 'cafe')).toEqual(['s-a']);
      const holder = new Database(join(directory, 'index.sqlite'));
      holder.exec('BEGIN EXCLUSIVE');
      try {
        // A change to the root makes the search write (an unchanged root only reads, which WAL allows).
        const c = new CorpusSession('s-c', '/work/c');
        c.turn('cafe again', 'yes');
        await writeSession(root, c, 'none');
        const error = await thrown(engine.searchSessions({ query: 'cafe' }));
        expect((error as { code?: unknown }).code).toBe('SEARCH_INDEX_BUSY');
      } finally {
        holder.exec('COMMIT');
        holder.close();
      }
      expect((await ids(engine, 'cafe')).sort()).toEqual(['s-a', 's-c']);
    } finally {
      await rm(dirname(dirname(artifactPathOf(root, { version: 0, id: asSessionId('s-c'), createdAt: 0, cwd: '/work/c' }, 'none'))), {
        recursive: true,
        force: true,
      });
      await engine.close();
    }
  });

  it('a cache directory removed between searches is recreated', async () => {
    const directory = join(dir, 'vanishing', 'search');
    const engine = await engineAt(directory);
    try {
      expect(await ids(engine, 'cafe')).toEqual(['s-a']);
      await rm(join(dir, 'vanishing'), { recursive: true, force: true });
      expect(await ids(engine, 'cafe')).toEqual(['s-a']);
      expect(existsSync(join(directory, 'index.sqlite'))).toBe(true);
    } finally {
      await engine.close();
    }
  });
});

describe('queries are literal phrases', () => {
  let engine: LocalSessionEngine;
  beforeAll(async () => {
    engine = await engineAt(join(dir, 'queries'));
  });
  afterAll(async () => {
    await engine.close();
  });

  it.each([
    ['"quoted" OR b*', ['s-a']],
    ['OR b', ['s-a']],
    ['NEAR(x y)', ['s-a']],
    ['col:value', ['s-a']],
    ['a "quoted', ['s-a']],
    ['merge\u0000note', ['s-b']],
    ['AND', []],
    ['")(*', []],
    ['b* NEAR', ['s-a']],
    ['NEAR b', []],
  ])('%j finds %j', async (query, expected) => {
    expect(await ids(engine, query)).toEqual(expected);
  });

  it('10 KB of text is a phrase like any other (found when the document holds it, no error otherwise)', async () => {
    expect(await ids(engine, `long ${'filler '.repeat(1500)} needle`)).toEqual(['s-a']);
    expect(await ids(engine, 'x'.repeat(10_240))).toEqual([]);
  });

  it('is case- and diacritic-insensitive: cafe finds café, CAFÉ finds it too', async () => {
    expect(await ids(engine, 'cafe')).toEqual(['s-a']);
    expect(await ids(engine, 'CAFÉ')).toEqual(['s-a']);
    expect(await ids(engine, 'pret')).toEqual(['s-a']);
  });

  it('an empty phrase and a bad limit are SEARCH_INVALID_QUERY; a foreign cursor SEARCH_INVALID_CURSOR', async () => {
    expect(((await thrown(engine.searchSessions({ query: '  ' }))) as { code?: unknown }).code).toBe('SEARCH_INVALID_QUERY');
    expect(((await thrown(engine.searchSessions({ query: 'cafe', limit: 0 }))) as { code?: unknown }).code).toBe('SEARCH_INVALID_QUERY');
    expect(((await thrown(engine.searchSessions({ query: 'cafe', cursor: 'bogus' }))) as { code?: unknown }).code).toBe(
      'SEARCH_INVALID_CURSOR',
    );
  });
});

describe('without the native module', () => {
  it('search fails with SEARCH_UNAVAILABLE saying why; listing, titles and discovery still work', async () => {
    const engine = await engineAt(join(dir, 'unavailable'), {}, 'better-sqlite3-not-installed-here');
    try {
      const error = await thrown(engine.searchSessions({ query: 'cafe' }));
      expect((error as { code?: unknown }).code).toBe('SEARCH_UNAVAILABLE');
      expect((error as Error).message).toContain('better-sqlite3-not-installed-here');
      expect((await engine.listSessions()).map((record) => record.header.id).sort()).toEqual(['s-a', 's-b']);
      const candidates = await engine.candidates({ id: 'x', session: { header: {} } }, 'merge', 5);
      expect(Array.isArray(candidates)).toBe(true);
      // The second search fails the same way (the failed load is remembered, not retried per call).
      expect(((await thrown(engine.searchSessions({ query: 'cafe' }))) as { code?: unknown }).code).toBe('SEARCH_UNAVAILABLE');
    } finally {
      await engine.close();
    }
  });

  it('search.enabled false fails with SEARCH_DISABLED', async () => {
    const engine = await engineAt(join(dir, 'disabled'), { enabled: false });
    try {
      expect(((await thrown(engine.searchSessions({ query: 'cafe' }))) as { code?: unknown }).code).toBe('SEARCH_DISABLED');
    } finally {
      await engine.close();
    }
  });

  it('an invalid search configuration fails the engine build with SEARCH_INVALID_CONFIG naming the key', async () => {
    const error = await thrown(engineAt(join(dir, 'bad'), { snippetLength: 3 }));
    expect((error as { code?: unknown }).code).toBe('SEARCH_INVALID_CONFIG');
    expect((error as Error).message).toContain('search.snippetLength');
  });
});

// Issue 27 item 2 (build rate): a new index merges FTS5 segments in eights (`automerge` 8, FTS5's default is 4), in
// both text tables, and the setting survives reopening the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSearchDatabase, type Database, type DatabaseConstructor } from '../../../src/workers/search/search-database.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;

function automerge(db: Database, table: string): unknown {
  return (db.prepare(`SELECT v FROM ${table}_config WHERE k = 'automerge'`).get() as { v?: unknown } | undefined)?.v;
}

describe('the search index schema', () => {
  it('creates both text tables with automerge 8, kept when the file is opened again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-schema-'));
    try {
      const path = join(dir, 'index.sqlite');
      const first = openSearchDatabase(Sqlite, path, 1000).db;
      expect([automerge(first, 'docs_fts'), automerge(first, 'docs_cjk')]).toEqual([8, 8]);
      first.close();
      const again = openSearchDatabase(Sqlite, path, 1000).db;
      expect([automerge(again, 'docs_fts'), automerge(again, 'docs_cjk')]).toEqual([8, 8]);
      again.close();
      const memory = openSearchDatabase(Sqlite, null, 1000).db;
      expect(automerge(memory, 'docs_fts')).toBe(8);
      memory.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// Issue 27 item 2 (from the review of item 5): while another process keeps the index open and has written (a WAL
// in use), an open no longer runs the full integrity check: the writer's worker leaves a digest of the main file and
// the WAL taken under the write lock (once idle after its writes, or when it closes beside another connection),
// which the opener compares. A changed byte in either file makes the opener check
// in full again (never "verified"), and once the writer closes, the usual digest of the closed file vouches.
import { closeSync, existsSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSearchIndex } from '../../../../src/main/engine/search/sqlite-search-index.js';
import { phraseLiteral } from '../../../../src/main/engine/search/search-service.js';
import { openSearchDatabase, type DatabaseConstructor } from '../../../../src/workers/search/search-database.js';
import { verifyFileDigest } from '../../../../src/workers/search/search-integrity.js';
import type { QueryPlan, SyncInput } from '../../../../src/workers/search/search-messages.js';
import { appendEvents, CorpusSession, writeSession } from './search-corpus.js';

let dir: string;
let root: string;
const sessions: CorpusSession[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-beside-'));
  root = join(dir, 'root');
  for (let index = 0; index < 20; index += 1) {
    const session = new CorpusSession(`w-${index}`, '/work/w');
    session.turn(`a prompt about ledgers ${index}`, `an answer about ledgers and totals ${index}`);
    await writeSession(root, session, 'none');
    sessions.push(session);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;

/** Opens the file in this thread as a search would, counting the full checks (`PRAGMA integrity_check`). */
function openCounting(path: string): number {
  let checks = 0;
  class Counting extends Sqlite {
    override pragma(source: string, options?: BetterSqlite3PragmaOptions): unknown {
      if (source.startsWith('integrity_check')) checks += 1;
      return super.pragma(source, options);
    }
  }
  openSearchDatabase(Counting as unknown as DatabaseConstructor, path, 1000).db.close();
  return checks;
}
type BetterSqlite3PragmaOptions = Parameters<InstanceType<DatabaseConstructor>['pragma']>[1];

function input(): SyncInput {
  return {
    root: '/index/root',
    storeRoot: root,
    compression: 'none',
    includeTools: false,
    live: [],
    artifacts: sessions.map((session) => ({ id: session.header.id, cwd: session.header.cwd, createdAt: session.header.createdAt })),
  };
}

const plan: QueryPlan = {
  match: phraseLiteral('ledgers'),
  cjk: false,
  cwd: null,
  since: null,
  until: null,
  roles: ['user', 'assistant', 'checkpoint', 'tool'],
  offset: 0,
  limit: 50,
  hitsPerSession: 2,
  snippetLength: 80,
};

/** Flips one bit of a file in place and returns the function that flips it back. */
function flipBit(path: string, at: number): () => void {
  const flip = (): void => {
    const fd = openSync(path, 'r+');
    try {
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, at);
      byte[0] = (byte[0] as number) ^ 0x10;
      writeSync(fd, byte, 0, 1, at);
    } finally {
      closeSync(fd);
    }
  };
  flip();
  return flip;
}

/** Waits (up to 20 s) until the digest vouches for the open file: the worker writes it once idle after a write. */
async function digestVerified(path: string): Promise<void> {
  for (let attempt = 0; attempt < 200 && verifyFileDigest(path) !== 'verified'; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(verifyFileDigest(path)).toBe('verified');
}

describe('opening the index beside a process that writes it', () => {
  it('compares the writer’s digest of the main file and the WAL instead of checking in full', async () => {
    const path = join(dir, 'search', 'index.sqlite');
    const writer = new SqliteSearchIndex({ databasePath: path, busyTimeoutMs: 2000 });
    try {
      expect(await writer.sync(input())).toMatchObject({ rebuilt: 20 });
      const expected = await writer.query('/index/root', plan);
      expect(expected.results).toHaveLength(20);
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
      // Written once the worker is idle after its writes (no request waits for the hashing).
      await digestVerified(path);
      expect(openCounting(path)).toBe(0);

      // A reader beside the writer answers the same.
      const reader = new SqliteSearchIndex({ databasePath: path, busyTimeoutMs: 2000 });
      try {
        expect(await reader.query('/index/root', plan)).toEqual(expected);
      } finally {
        await reader.close();
      }

      // One changed bit in the WAL or the main file: not verified, so the open checks in full.
      for (const [file, at] of [
        [`${path}-wal`, statSync(`${path}-wal`).size - 100],
        [path, statSync(path).size - 100],
      ] as const) {
        const restore = flipBit(file, at);
        try {
          expect(verifyFileDigest(path)).toBe('unknown');
        } finally {
          restore();
        }
      }

      // The writer writes again: its digest follows.
      const grown = sessions[3] as CorpusSession;
      await appendEvents(root, grown, grown.turn('ledgers once more', 'fine'), 'none');
      expect(await writer.sync(input())).toMatchObject({ appended: 1, unchanged: 19 });
      await digestVerified(path);
      expect(openCounting(path)).toBe(0);

      // A one-shot process writes beside the writer and closes at once: its close leaves the digest of both files.
      const other = sessions[5] as CorpusSession;
      await appendEvents(root, other, other.turn('ledgers from a one-shot', 'fine'), 'none');
      const oneShot = new SqliteSearchIndex({ databasePath: path, busyTimeoutMs: 2000 });
      try {
        expect(await oneShot.sync(input())).toMatchObject({ appended: 1, unchanged: 19 });
      } finally {
        await oneShot.close();
      }
      expect(existsSync(`${path}-wal`)).toBe(true);
      expect(verifyFileDigest(path)).toBe('verified');
      expect(openCounting(path)).toBe(0);
    } finally {
      await writer.close();
    }
    // Closed by its last connection (the WAL checkpointed and removed): the closed file's digest vouches.
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(verifyFileDigest(path)).toBe('verified');
    expect(openCounting(path)).toBe(0);
  }, 60_000);
});

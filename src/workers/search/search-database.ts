/**
 * The search index's SQLite database (issue 17 item 1), opened only inside the search worker: a derived, disposable
 * file under the cache directory, identified as ours by `PRAGMA application_id` and a `meta` row and versioned by
 * `PRAGMA user_version`. Before SQLite touches an existing file its 100-byte header is read: not SQLite, or SQLite
 * with another application id, is refused with `SEARCH_FOREIGN_DATABASE` and never modified; ours with another
 * version (or found damaged) is deleted and rebuilt. The schema is created in rollback-journal mode, so the header
 * that names us is in the main file before WAL mode is switched on.
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { SearchError } from './search-error.js';
import { checkDatabase, DIGEST_SUFFIX, verifyFileDigest, type DigestVerdict } from './search-integrity.js';

/** The database class of the native module. */
export type DatabaseConstructor = typeof BetterSqlite3;
/** An open connection. */
export type Database = BetterSqlite3.Database;

/** `'SCTX'` as a big-endian 32-bit integer: the application id of sessionctx's search index. */
export const SEARCH_APPLICATION_ID = 0x53435458;

/** The schema version in `PRAGMA user_version`; any other version of our file is rebuilt. */
export const SEARCH_SCHEMA_VERSION = 3;

/**
 * The file name of the index inside `<cache>/search/`. It carries no version: a file of another schema version is
 * rebuilt in place, so an upgrade never leaves an old index behind in the cache.
 */
export const SEARCH_DATABASE_FILE = 'index.sqlite';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1');

/**
 * FTS5's `automerge`: segments of one level merged once this many exist (FTS5's default is 4). A build commits one
 * segment per batch; merging them in eights instead of fours wrote 10–15 % less during a 60,000-document build (a
 * probe), and a query reads a handful of segments more, which cost nothing measurable (10 segments against 1).
 */
const FTS_AUTOMERGE = 8;

/**
 * The schema. `docs` holds each document's metadata, `docs_fts` its text (same rowid) under `unicode61` with
 * diacritics removed, and `docs_cjk` the text of documents with CJK characters again under `trigram` (substring
 * matching for scripts without spaces between words).
 */
const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  root TEXT NOT NULL,
  session_id TEXT NOT NULL,
  path TEXT NOT NULL,
  cwd TEXT,
  created_at REAL NOT NULL,
  dev TEXT NOT NULL, ino TEXT NOT NULL, size TEXT NOT NULL, ctime_ns TEXT NOT NULL,
  live_log TEXT,
  include_tools INTEGER NOT NULL,
  scanned_bytes INTEGER NOT NULL,
  state BLOB,
  UNIQUE (root, session_id)
) STRICT;
CREATE TABLE docs (
  id INTEGER PRIMARY KEY,
  session INTEGER NOT NULL REFERENCES sessions(id),
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  time REAL NOT NULL,
  cjk INTEGER NOT NULL,
  digest TEXT NOT NULL
) STRICT;
CREATE INDEX docs_by_session ON docs (session, seq);
CREATE VIRTUAL TABLE docs_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE docs_cjk USING fts5(body, tokenize = 'trigram remove_diacritics 1');
INSERT INTO docs_fts (docs_fts, rank) VALUES ('automerge', ${FTS_AUTOMERGE});
INSERT INTO docs_cjk (docs_cjk, rank) VALUES ('automerge', ${FTS_AUTOMERGE});
`;

/**
 * What the 100-byte header of an existing file says: no file (or an empty one), ours at this schema version, ours at
 * another version (rebuilt on the next open), or not ours (why).
 */
export type FileVerdict = 'new' | 'ours' | { readonly rebuild: number } | { readonly foreign: string };

/**
 * Reads the header of `path` without SQLite (so a foreign file is never opened for writing).
 * @throws SearchError `SEARCH_INDEX_FAILED` when the file exists but cannot be read.
 */
export function inspectDatabaseFile(path: string): FileVerdict {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'new';
    throw new SearchError('SEARCH_INDEX_FAILED', `search index "${path}" cannot be read: ${(error as Error).message}`, { cause: error });
  }
  // SQLite itself treats an empty file as an empty database.
  if (size === 0) return 'new';
  const header = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (read < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) return { foreign: 'it is not an SQLite database' };
  const applicationId = header.readUInt32BE(68);
  if (applicationId !== SEARCH_APPLICATION_ID) {
    return { foreign: `it is an SQLite database of another application (application_id ${applicationId})` };
  }
  const version = header.readUInt32BE(60);
  return version === SEARCH_SCHEMA_VERSION ? 'ours' : { rebuild: version };
}

/** The refusal of a file that is not sessionctx's index (never modified). */
export function foreignDatabase(path: string, why: string): SearchError {
  return new SearchError('SEARCH_FOREIGN_DATABASE', `refusing to use "${path}" as the search index: ${why}; it was left untouched`);
}

/** Removes an index file of ours and its journal files. */
export function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal', DIGEST_SUFFIX]) rmSync(`${path}${suffix}`, { force: true });
}

/** Maps a SQLite or file-system failure to a typed search error. */
export function searchFailure(error: unknown, what: string): SearchError {
  if (error instanceof SearchError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_BUSY_TIMEOUT') {
    return new SearchError('SEARCH_INDEX_BUSY', `${what}: the search index is locked by another process (${String(code)})`, {
      cause: error,
    });
  }
  return new SearchError('SEARCH_INDEX_FAILED', `${what}: ${(error as Error).message ?? String(error)}`, { cause: error });
}

/** True when a failure says the file is damaged (ours, so it is rebuilt). */
export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT_VTAB';
}

function createSchema(db: Database): void {
  db.exec('BEGIN');
  db.exec(SCHEMA);
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('application', 'sessionctx search index');
  db.pragma(`application_id = ${SEARCH_APPLICATION_ID}`);
  db.pragma(`user_version = ${SEARCH_SCHEMA_VERSION}`);
  db.exec('COMMIT');
}

/** An open index database and the identity of its file (to notice the file or its directory disappearing). */
export interface OpenedDatabase {
  readonly db: Database;
  /** `dev:ino` of the file when opened, or `null` in memory. */
  readonly identity: string | null;
}

/** `dev:ino` of `path`, or `null` when it is gone. */
export function fileIdentity(path: string): string | null {
  try {
    const stats = statSync(path);
    return `${stats.dev}:${stats.ino}`;
  } catch {
    // Gone (the cache directory was removed): the caller reopens.
    return null;
  }
}

/**
 * Opens (creating or rebuilding as needed) the index at `path`, or an in-memory index for `null`.
 * @throws SearchError `SEARCH_FOREIGN_DATABASE`, `SEARCH_INDEX_BUSY`, `SEARCH_INDEX_FAILED`.
 */
export function openSearchDatabase(Sqlite: DatabaseConstructor, path: string | null, busyTimeoutMs: number): OpenedDatabase {
  if (path === null) {
    const db = new Sqlite(':memory:');
    createSchema(db);
    return { db, identity: null };
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw searchFailure(error, `search index directory "${dirname(path)}" cannot be created`);
  }
  const verdict = inspectDatabaseFile(path);
  if (typeof verdict === 'object' && 'foreign' in verdict) throw foreignDatabase(path, verdict.foreign);
  if (typeof verdict === 'object') removeDatabaseFiles(path);
  // Ours: the digest written when it was last closed vouches for it, or says it changed since (damage: rebuilt).
  const digest: DigestVerdict = verdict === 'ours' ? verifyFileDigest(path) : 'unknown';
  if (digest === 'damaged') {
    removeDatabaseFiles(path);
    return openSearchDatabase(Sqlite, path, busyTimeoutMs);
  }
  let db: Database | undefined;
  try {
    db = new Sqlite(path, { timeout: busyTimeoutMs });
    if (verdict === 'ours') {
      const meta = db.prepare("SELECT value FROM meta WHERE key = 'application'").get() as { value?: unknown } | undefined;
      if (meta?.value !== 'sessionctx search index') throw Object.assign(new Error('meta row missing'), { code: 'SQLITE_CORRUPT' });
      // No digest could vouch for it (a crash, a process that was killed, a WAL in use): check it whole.
      if (digest !== 'verified') checkDatabase(db);
    } else {
      createSchema(db);
    }
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    return { db, identity: fileIdentity(path) };
  } catch (error) {
    db?.close();
    if (verdict === 'ours' && isCorruption(error)) {
      // Ours but damaged: the index is derived data, so it is rebuilt from the logs.
      removeDatabaseFiles(path);
      return openSearchDatabase(Sqlite, path, busyTimeoutMs);
    }
    throw searchFailure(error, `search index "${path}" cannot be opened`);
  }
}

/**
 * The search worker (issue 17): the only thread that loads the native SQLite module and opens the index. It serves
 * one request at a time from its parent (the search service), validating each, and answers with one result
 * message. The module is loaded lazily with `createRequire` on the first request; when it cannot be loaded (no
 * build for this platform, no compiler at install time) every request fails with `SEARCH_UNAVAILABLE` saying why,
 * and nothing else of the engine is affected.
 *
 * Cancellation: the caller writes the id of the request it abandoned into a shared `Int32`; the worker checks it
 * between sessions and scan chunks during a sync and every few hundred rows of a MATCH, then fails the request and
 * is ready for the next one (no statement is left running: an iterator that stops early is closed).
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../protocol/wire/wire-error.js';
import { statSync } from 'node:fs';
import {
  fileIdentity,
  foreignDatabase,
  inspectDatabaseFile,
  isCorruption,
  openSearchDatabase,
  removeDatabaseFiles,
  searchFailure,
  type DatabaseConstructor,
  type OpenedDatabase,
} from './search-database.js';
import { SearchError } from './search-error.js';
import { runQuery } from './search-match.js';
import {
  isSearchRequest,
  isSearchWorkerInit,
  type IndexClearResult,
  type IndexFileStatus,
  type SearchReply,
  type SearchRequest,
  type SearchWorkerData,
} from './search-messages.js';
import { SEARCH_SCHEMA_VERSION } from './search-database.js';
import { SearchSync } from './search-sync.js';
import { removeFileDigest, writeFileDigest, writeOpenFileDigest } from './search-integrity.js';
import { unpackListing } from './packed-listing.js';
import type { ScanControl } from '../tasks/scan-source.js';

if (parentPort === null) throw new Error('search-worker must run in a worker thread');
const port = parentPort;
/**
 * The configuration: `workerData`, or for a prestarted thread (`{prestarted: true}`, engine/search/search-worker-thread.ts)
 * its first message. No request can come before it: the client sends the configuration first.
 */
let data: SearchWorkerData;
let cancelled: Int32Array;
function configure(given: SearchWorkerData): void {
  data = given;
  cancelled = new Int32Array(given.cancel);
}
const prestarted = (workerData as { prestarted?: unknown } | null)?.prestarted === true;
if (!prestarted) configure(workerData as SearchWorkerData);

/** Raised inside a request when the caller abandoned it. */
class RequestCancelled extends Error {
  constructor() {
    super('search request cancelled by the caller');
    this.name = 'AbortError';
  }
}

let sqlite: DatabaseConstructor | { readonly unavailable: string } | undefined;

/** The native module, loaded once; probing FTS5 and the trigram tokenizer is part of "available". */
function loadSqlite(): DatabaseConstructor {
  if (sqlite === undefined) {
    try {
      const loaded = createRequire(import.meta.url)(data.moduleName) as DatabaseConstructor;
      const probe = new loaded(':memory:');
      try {
        probe.exec("CREATE VIRTUAL TABLE probe USING fts5(body, tokenize = 'trigram remove_diacritics 1')");
      } finally {
        probe.close();
      }
      sqlite = loaded;
    } catch (error) {
      sqlite = {
        unavailable: `the native SQLite module "${data.moduleName}" could not be loaded: ${(error as Error).message ?? String(error)}`,
      };
    }
  }
  if ('unavailable' in sqlite) throw new SearchError('SEARCH_UNAVAILABLE', `full-text search is unavailable: ${sqlite.unavailable}`);
  return sqlite;
}

let opened: (OpenedDatabase & { readonly sync: SearchSync }) | undefined;

/** The open database, reopened when its file (or the cache directory holding it) disappeared. */
function database(): OpenedDatabase & { readonly sync: SearchSync } {
  const Sqlite = loadSqlite();
  if (opened !== undefined && data.databasePath !== null && fileIdentity(data.databasePath) !== opened.identity) {
    opened.db.close();
    opened = undefined;
  }
  if (opened === undefined) {
    const fresh = openSearchDatabase(Sqlite, data.databasePath, data.busyTimeoutMs);
    const path = data.databasePath;
    // The digest only describes a file nobody changed since it was written: it goes before the first write.
    const beforeWrite =
      path === null
        ? undefined
        : () => {
            removeFileDigest(path);
            wroteSinceDigest = true;
          };
    opened = { ...fresh, sync: new SearchSync(fresh.db, beforeWrite) };
  }
  return opened;
}

/** Whether this connection wrote since it last wrote a digest (or opened the file). */
let wroteSinceDigest = false;

/** How long the worker must have been idle after a write before it hashes the files (the next request never waits). */
const DIGEST_IDLE_MS = 1000;

let idleDigest: ReturnType<typeof setTimeout> | undefined;

/**
 * The digest of the main file and the WAL, taken under the write lock (no other connection can append to the WAL or
 * checkpoint it meanwhile), so a process that opens the index while this one keeps it open compares it instead of
 * running the full check. Busy (another writer holds the lock): not written, and that opener runs the full check.
 */
function digestOpenFile(db: OpenedDatabase['db'], path: string): void {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch {
    // Another connection is writing: it removed the digest before its write, and the next opener checks in full.
    return;
  }
  try {
    writeOpenFileDigest(path);
  } finally {
    db.exec('ROLLBACK');
  }
}

/** After a request that wrote: the digest once the worker has been idle for {@link DIGEST_IDLE_MS}. */
function scheduleDigest(): void {
  if (idleDigest !== undefined) clearTimeout(idleDigest);
  idleDigest = undefined;
  const path = data.databasePath;
  if (!wroteSinceDigest || path === null) return;
  idleDigest = setTimeout(() => {
    idleDigest = undefined;
    queue = queue.then(() => {
      if (!wroteSinceDigest || opened === undefined) return;
      wroteSinceDigest = false;
      try {
        digestOpenFile(opened.db, path);
      } catch {
        // Not written: the next opener beside this process runs the full check.
      }
    });
  }, DIGEST_IDLE_MS);
}

/**
 * Closes the database; the digest the next open compares: of the closed file when this was the last connection (its
 * WAL checkpointed and removed), else — when this connection wrote — of the main file and the WAL, taken on a brief
 * second connection under the write lock.
 */
function closeDatabase(): void {
  if (idleDigest !== undefined) clearTimeout(idleDigest);
  idleDigest = undefined;
  if (opened === undefined) return;
  opened.db.close();
  opened = undefined;
  const path = data.databasePath;
  if (path === null) return;
  if (wroteSinceDigest && fileIdentity(`${path}-wal`) !== null) {
    try {
      const db = new (loadSqlite())(path, { timeout: data.busyTimeoutMs });
      try {
        digestOpenFile(db, path);
      } finally {
        db.close();
      }
    } catch {
      // Not written: the next opener runs the full check.
    }
  }
  wroteSinceDigest = false;
  // Unless a digest of the closed file still vouches for it (or another connection keeps a WAL), one is written.
  writeFileDigest(path);
}

/** Drops a damaged database of ours so the next open rebuilds it. */
function discardDatabase(): void {
  opened?.db.close();
  opened = undefined;
  wroteSinceDigest = false;
  if (data.databasePath !== null) removeDatabaseFiles(data.databasePath);
}

/** Bytes of a file, 0 when it is absent. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    // Absent (no write-ahead log right now): nothing to count.
    return 0;
  }
}

/** What one root's sessions and documents in the open database are, and how many roots it holds. */
function countsOf(root: string): Pick<IndexFileStatus, 'sessions' | 'documents' | 'roots'> {
  const { db } = database();
  const count = (sql: string, ...params: string[]): number => (db.prepare(sql).get(...params) as { n: number }).n;
  return {
    sessions: count('SELECT count(*) AS n FROM sessions WHERE root = ?', root),
    documents: count('SELECT count(*) AS n FROM docs JOIN sessions ON docs.session = sessions.id WHERE sessions.root = ?', root),
    roots: count('SELECT count(DISTINCT root) AS n FROM sessions'),
  };
}

/** The index file and what it holds of `root`; a missing file is not created, a file of another version not rebuilt. */
function status(root: string): IndexFileStatus {
  const path = data.databasePath;
  if (path === null) return { exists: false, bytes: 0, schemaVersion: SEARCH_SCHEMA_VERSION, ...countsOf(root) };
  const verdict = inspectDatabaseFile(path);
  if (typeof verdict === 'object' && 'foreign' in verdict) throw foreignDatabase(path, verdict.foreign);
  const exists = fileIdentity(path) !== null;
  const bytes = sizeOf(path) + sizeOf(`${path}-wal`);
  if (verdict === 'new') return { exists, bytes, schemaVersion: null, sessions: 0, documents: 0, roots: 0 };
  if (typeof verdict === 'object') return { exists, bytes, schemaVersion: verdict.rebuild, sessions: 0, documents: 0, roots: 0 };
  return { exists, bytes, schemaVersion: SEARCH_SCHEMA_VERSION, ...countsOf(root) };
}

/**
 * Removes the index file once no other connection writes to it (its write lock is taken first, waiting up to the
 * busy timeout: `SEARCH_INDEX_BUSY`), so a sync in another process is never cut from under it. A foreign file is
 * refused and left alone.
 */
function clear(): IndexClearResult {
  const path = data.databasePath;
  if (path === null) {
    opened?.db.close();
    opened = undefined;
    return { removed: false };
  }
  const verdict = inspectDatabaseFile(path);
  if (typeof verdict === 'object' && 'foreign' in verdict) throw foreignDatabase(path, verdict.foreign);
  const exists = fileIdentity(path) !== null;
  if (verdict === 'ours') {
    const { db } = database();
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
  }
  opened?.db.close();
  opened = undefined;
  removeDatabaseFiles(path);
  return { removed: exists };
}

function controlFor(id: number): ScanControl {
  const controller = new AbortController();
  const poll = (): void => {
    if (!controller.signal.aborted && Atomics.load(cancelled, 0) === id) controller.abort(new RequestCancelled());
    if (controller.signal.aborted) throw controller.signal.reason;
  };
  return { signal: controller.signal, poll, pollFn: poll };
}

function post(reply: SearchReply): void {
  port.postMessage(reply);
}

async function serve(request: SearchRequest): Promise<unknown> {
  const control = controlFor(request.id);
  control.poll();
  switch (request.type) {
    case 'sync': {
      let lastReport = 0;
      const onProgress = (done: number, total: number): void => {
        const now = Date.now();
        if (done === total || now - lastReport >= 100) {
          lastReport = now;
          post({ type: 'progress', id: request.id, done, total });
        }
      };
      if (request.removed !== undefined && request.artifacts !== null) {
        const { removed } = request;
        return database().sync.syncChanges({ ...request, artifacts: unpackListing(request.artifacts), removed }, control, onProgress);
      }
      const artifacts = request.artifacts === null ? null : unpackListing(request.artifacts);
      return database().sync.sync({ ...request, artifacts }, control, onProgress);
    }
    case 'query':
      return runQuery(database().db, request.root, request.plan, control.pollFn);
    case 'status':
      return status(request.root);
    case 'clear':
      return clear();
    default:
      throw new SearchError('SEARCH_WORKER_FAILED', 'unknown search request');
  }
}

async function handle(message: unknown): Promise<void> {
  const id = typeof (message as { id?: unknown })?.id === 'number' ? (message as { id: number }).id : 0;
  if (!isSearchRequest(message)) {
    post({ type: 'result', id, ok: false, error: serializeError(new SearchError('SEARCH_WORKER_FAILED', 'malformed search request')) });
    return;
  }
  try {
    let value: unknown;
    try {
      value = await serve(message);
    } catch (error) {
      // Our file, damaged: the index is derived, so it is rebuilt from the logs and the request runs once more.
      if (!isCorruption(error)) throw error;
      discardDatabase();
      value = await serve(message);
    }
    post({ type: 'result', id: message.id, ok: true, value });
  } catch (error) {
    const failure =
      error instanceof RequestCancelled || error instanceof SearchError ? error : searchFailure(error, `search ${message.type} failed`);
    post({ type: 'result', id: message.id, ok: false, error: serializeError(failure) });
  }
  // Not now: hashing the files is no part of this request's latency, nor of the next one's.
  scheduleDigest();
}

// One request at a time: the service sends the next only after this one's result.
let queue: Promise<void> = Promise.resolve();
let configured = !prestarted;
port.on('message', (message: unknown) => {
  if (!configured) {
    if (isSearchWorkerInit(message)) {
      configure(message.data);
      configured = true;
      return;
    }
    // Anything else before the configuration is the client's mistake: the thread cannot serve it.
    throw new Error('search-worker: a prestarted thread needs its configuration first');
  }
  if ((message as { type?: unknown } | null)?.type === 'close') {
    // The service is closing: finish the request in hand, close the database (its WAL checkpointed and removed),
    // then let the thread end by closing its port.
    queue = queue.then(() => {
      closeDatabase();
      port.close();
    });
    return;
  }
  // A request: the idle digest waits until the worker is idle again.
  if (idleDigest !== undefined) clearTimeout(idleDigest);
  idleDigest = undefined;
  queue = queue.then(() => handle(message));
});

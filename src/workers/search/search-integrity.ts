/**
 * An index never changes an answer (issue 27 item 5): damage to the search database is detected and leads to a
 * rebuild, never to a silent answer. Three layers, cheapest first:
 *
 * - **File digest.** When the last connection closes the file (its WAL checkpointed and removed), the SHA-256 of the
 *   main file and its size are written beside it (`index.sqlite.sum`, replaced atomically). Opening the file with
 *   no WAL in use compares them: equal is verified, anything else is damage. Every writer removes the digest before
 *   its first write, so a digest only ever describes a file no connection has changed since. A connection that
 *   wrote while the file stays open writes the digest of the main file and the WAL together under the write lock
 *   (issue 27 item 2), so a process opening it beside a running server compares those instead of running the full
 *   check; a mismatch there is no proof of damage (a writer may have committed since) and leads to the full check.
 * - **Full check**, when no digest can vouch for the file (none was written: a crash, a killed process, a file of an
 *   older build): `PRAGMA integrity_check` (b-trees, records, indexes), FTS5's own `integrity-check` of both text
 *   tables (the inverted index and document sizes against the stored text), and every document's checksum.
 * - **Per-document checksum** (`docs.digest`: the session row, seq, role, time, CJK flag and text), verified for
 *   every hit a page returns, so damage that happens while the file is in use (or while another process holds it
 *   and the digest cannot be used) cannot put another text or another session into a page.
 *
 * A failed check throws an error with code `SQLITE_CORRUPT`, which every caller already treats as "ours but
 * damaged": the file is deleted, rebuilt from the logs, and the request runs once more.
 */
import { createHash, hash } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { replaceFileAtomicallySync } from '../../io/atomic-file.js';
import type { Database } from './search-database.js';

/** The suffix of the digest file written beside the index (`index.sqlite.sum`). */
export const DIGEST_SUFFIX = '.sum';

/**
 * What the digest file holds: the main file's size and SHA-256, and — written by a connection that wrote while the
 * file stays open (a WAL in use) — the write-ahead log's too, taken under the write lock so no other writer changed
 * either file meanwhile.
 */
interface FileDigest {
  /** 1: the closed file; 2: the main file and its WAL (version 2, so a build that knows only 1 ignores it). */
  readonly v: 1 | 2;
  readonly size: number;
  readonly sha256: string;
  readonly wal?: { readonly size: number; readonly sha256: string };
}

/** A failure that says the file is damaged (handled as SQLite's own `SQLITE_CORRUPT`: rebuilt). */
export function corruption(message: string): Error {
  return Object.assign(new Error(`search index damaged: ${message}`), { code: 'SQLITE_CORRUPT' });
}

/**
 * The checksum of one document row as written: its session row, seq, role, time, CJK flag and text, so a changed
 * byte in any of them — or a row moved to another session — no longer matches.
 */
export function documentDigest(session: number, seq: number, role: string, time: number, cjk: number, text: string): string {
  // One-shot `hash` (Node ≥ 20.12): the same SHA-256 of the same bytes as a Hash object fed the two parts, at half
  // the cost per document (a build hashes every document it writes, the full check every document there is).
  return hash('sha256', `${session}\u0000${seq}\u0000${role}\u0000${time}\u0000${cjk}\u0000${text}`, 'base64url').slice(0, 22);
}

/** SHA-256 (hex) of a whole file, read in 1 MiB chunks, and its size; `undefined` when it cannot be read. */
function digestOfFile(path: string): { size: number; sha256: string } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // Gone or unreadable: nothing to vouch for.
    return undefined;
  }
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(1 << 20);
    let size = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, size);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
      size += read;
    }
    return { size, sha256: hash.digest('hex') };
  } finally {
    closeSync(fd);
  }
}

function readDigest(path: string): FileDigest | undefined {
  let fd: number;
  try {
    fd = openSync(`${path}${DIGEST_SUFFIX}`, 'r');
  } catch {
    // No digest: the full check decides.
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(256);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const value = JSON.parse(buffer.subarray(0, read).toString('utf8')) as Partial<FileDigest>;
    const wal = value.wal as Partial<NonNullable<FileDigest['wal']>> | undefined;
    const walOk = value.v === 1 ? wal === undefined : value.v === 2 && typeof wal?.size === 'number' && typeof wal.sha256 === 'string';
    return walOk && typeof value.size === 'number' && typeof value.sha256 === 'string' ? (value as FileDigest) : undefined;
  } catch {
    // A digest that does not parse vouches for nothing.
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** True when a write-ahead log with content sits beside the file (a connection uses it, or one crashed). */
function walInUse(path: string): boolean {
  try {
    return statSync(`${path}-wal`).size > 0;
  } catch {
    // No WAL file.
    return false;
  }
}

/** What the file digest says of an existing file before SQLite opens it. */
export type DigestVerdict = 'verified' | 'damaged' | 'unknown';

/**
 * Compares the file with its digest. Without a WAL in use: the digest written when it was last closed — equal is
 * verified, anything else is damage. With a WAL in use (another process has the index open, or one was killed): the
 * digest its last writer took of the main file and the WAL together — equal is verified (a reader beside a running
 * server skips the full check), anything else `unknown` (the full check decides: a writer may have committed since,
 * which is no damage). `unknown` too when there is no digest.
 */
export function verifyFileDigest(path: string): DigestVerdict {
  const expected = readDigest(path);
  if (expected === undefined) return 'unknown';
  if (walInUse(path)) {
    if (expected.wal === undefined) return 'unknown';
    const wal = digestOfFile(`${path}-wal`);
    if (wal === undefined || wal.size !== expected.wal.size || wal.sha256 !== expected.wal.sha256) return 'unknown';
    const main = digestOfFile(path);
    return main !== undefined && main.size === expected.size && main.sha256 === expected.sha256 ? 'verified' : 'unknown';
  }
  // The WAL was checkpointed into the main file after a digest that described both: it describes neither now.
  if (expected.wal !== undefined) return 'unknown';
  const actual = digestOfFile(path);
  if (actual === undefined) return 'unknown';
  return actual.size === expected.size && actual.sha256 === expected.sha256 ? 'verified' : 'damaged';
}

/**
 * Writes the digest of the main file and the WAL after this connection's writes, while the caller holds the write
 * lock (`BEGIN IMMEDIATE`): no other connection can append to the WAL or checkpoint it meanwhile, so the two files
 * are one state of the database. The next open beside the still running process compares it instead of running
 * the full check. Failures are ignored (the next open runs the full check).
 */
export function writeOpenFileDigest(path: string): void {
  const main = digestOfFile(path);
  const wal = digestOfFile(`${path}-wal`);
  if (main === undefined || wal === undefined) return;
  try {
    replaceFileAtomicallySync(`${path}${DIGEST_SUFFIX}`, JSON.stringify({ v: 2, ...main, wal } satisfies FileDigest));
  } catch {
    // Not written (a read-only or vanished directory): the next open runs the full check instead.
  }
}

/** Removes the digest before a write: once the file changes, it would describe a file that no longer is. */
export function removeFileDigest(path: string): void {
  rmSync(`${path}${DIGEST_SUFFIX}`, { force: true });
}

/**
 * Writes the digest of a file its connection has just closed, unless one is there or a WAL remains (another connection still
 * uses the file: the last one to close writes it). Replaced atomically (`io/atomic-file.ts`), so a reader never
 * sees half of one. Failures are ignored: without a digest the next open runs the full check.
 */
export function writeFileDigest(path: string): void {
  // A digest of the main file alone still vouches: every writer removes it before changing the file. One that
  // described the WAL too describes nothing once the WAL is checkpointed into the main file: it is written again.
  const existing = readDigest(path);
  if (existing !== undefined && existing.wal === undefined) return;
  try {
    statSync(`${path}-wal`);
    // A WAL file (even an empty one) means another connection still has the database open.
    return;
  } catch {
    // No WAL: this was the last connection.
  }
  const actual = digestOfFile(path);
  if (actual === undefined) return;
  try {
    replaceFileAtomicallySync(`${path}${DIGEST_SUFFIX}`, JSON.stringify({ v: 1, ...actual } satisfies FileDigest));
  } catch {
    // Not written (a read-only or vanished directory): the next open runs the full check instead.
  }
}

/**
 * The full check of an open database that no digest vouches for.
 * @throws an error with code `SQLITE_CORRUPT` naming the first problem found (or SQLite's own).
 */
export function checkDatabase(db: Database): void {
  const rows = db.pragma('integrity_check') as Array<Record<string, unknown>>;
  const first = rows[0] === undefined ? undefined : Object.values(rows[0])[0];
  if (rows.length !== 1 || first !== 'ok') throw corruption(`integrity_check: ${String(first)}`);
  // FTS5's own check: the inverted index and the document sizes agree with the stored text.
  db.exec("INSERT INTO docs_fts (docs_fts) VALUES ('integrity-check')");
  db.exec("INSERT INTO docs_cjk (docs_cjk) VALUES ('integrity-check')");
  // Every document row and its text as written, and every text row has its document (and no other).
  const documents = db.prepare(
    'SELECT d.id, d.session, d.seq, d.role, d.time, d.cjk, d.digest, f.body FROM docs d LEFT JOIN docs_fts f ON f.rowid = d.id',
  );
  for (const row of documents.raw().iterate() as IterableIterator<[number, number, number, string, number, number, string, unknown]>) {
    const [id, session, seq, role, time, cjk, digest, body] = row;
    if (typeof body !== 'string' || documentDigest(session, seq, role, time, cjk, body) !== digest) {
      throw corruption(`document ${id} does not match its checksum`);
    }
  }
  const orphans = db.prepare('SELECT count(*) AS n FROM docs_fts WHERE rowid NOT IN (SELECT id FROM docs)').get() as { n: number };
  const cjkMismatch = db
    .prepare(
      `SELECT (SELECT count(*) FROM docs_cjk WHERE rowid NOT IN (SELECT id FROM docs WHERE cjk = 1))
            + (SELECT count(*) FROM docs WHERE cjk = 1 AND id NOT IN (SELECT rowid FROM docs_cjk)) AS n`,
    )
    .get() as { n: number };
  if (orphans.n !== 0 || cjkMismatch.n !== 0) throw corruption('text rows without their documents');
  const cjkText = db
    .prepare('SELECT c.rowid AS id FROM docs_cjk c JOIN docs_fts f ON f.rowid = c.rowid WHERE c.body IS NOT f.body LIMIT 1')
    .get();
  if (cjkText !== undefined) throw corruption('a CJK text row differs from its document');
}

/**
 * Keeping one root's index current (issue 17 item 2), incremental per artifact revision:
 *
 * - unchanged (same dev, ino, size and ctime as indexed, same `includeTools`): one `stat`, nothing read;
 * - appended (same file, longer): the source cache's resumable, digest-guarded scan (`scanSourceWith`) continues the
 *   stored title-scan checkpoint over the new bytes only; the stored surface node order is continued with the
 *   projection fold (`ProjectionFold`), so documents a compaction shadows leave the index when it lands;
 * - anything else (new, rewritten, shrunk, replaced, a checkpoint that no longer fits): scanned whole and replaced;
 * - gone from the listing: its documents and row are removed.
 *
 * A log that is not a valid session is recorded with its revision and no documents (so it costs a `stat` until it
 * changes). Writes go in transactions of a bounded number of sessions; a cancelled sync keeps what it committed.
 */
import { deserialize, serialize } from 'node:v8';
import { statSync } from 'node:fs';
import { revisionOf, type FileRevision } from '../../io/file-revision.js';
import { artifactPathFor } from '../../io/artifact-path.js';
import type { ScanPersistedSourcePayload, ScanSourceResume } from '../../protocol/wire/task-shapes.js';
import { ProjectionFold, type ProjectionNode } from '../reference/projection-fold.js';
import { scanSourceWith, type ScanControl } from '../tasks/scan-source.js';
import { searchStep, type SearchStep } from './search-documents.js';
import type { Database } from './search-database.js';
import type { SyncArtifact, SyncRequest, SyncSummary } from './search-messages.js';

/** What the index keeps per session to continue it. */
interface SessionState {
  readonly resume: ScanSourceResume;
  /** The committed surface nodes' seqs, in surface order (the fold continued by the next scan). */
  readonly committed: readonly number[];
  /** The seqs of the current answer (committed fold plus provisional steps): what `docs` holds. */
  readonly answer: readonly number[];
}

interface SessionRow {
  readonly id: number;
  readonly path: string;
  readonly cwd: string | null;
  readonly created_at: number;
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  readonly ctime_ns: string;
  readonly include_tools: number;
}

/** One session's pending write. */
type SessionWrite =
  | { readonly kind: 'meta'; readonly row: SessionRow; readonly artifact: ListedArtifact }
  | {
      readonly kind: 'replace';
      readonly artifact: ListedArtifact;
      readonly revision: FileRevision;
      readonly previous: SessionRow | undefined;
      /** `null`: not a valid session (no documents). */
      readonly state: SessionState | null;
      /** Seqs whose documents are removed (all of them when `reset`). */
      readonly removed: readonly number[];
      readonly reset: boolean;
      readonly steps: readonly SearchStep[];
      readonly keep: ReadonlySet<number>;
      readonly scannedBytes: number;
    };

/**
 * The write of a log that is not a valid session (not a regular file, unreadable as a session, or a surface its steps
 * do not fit): its revision is recorded with no documents, so it costs a `stat` until it changes.
 */
function noSessionWrite(artifact: ListedArtifact, revision: FileRevision, previous: SessionRow | undefined): SessionWrite {
  return {
    kind: 'replace',
    artifact,
    revision,
    previous,
    state: null,
    removed: [],
    reset: true,
    steps: [],
    keep: new Set(),
    scannedBytes: 0,
  };
}

/** A listed session with its artifact path. */
type ListedArtifact = SyncArtifact & { readonly path: string };

/** CJK scripts: Han, Hiragana, Katakana, Hangul (text with them also goes to the trigram table). */
export const CJK_PATTERN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Sessions per write transaction, and documents that close one early. */
const BATCH_SESSIONS = 64;
const BATCH_DOCUMENTS = 4000;

/** The prepared statements of a sync. */
class Statements {
  readonly insertSession;
  readonly updateSession;
  readonly updateMeta;
  readonly deleteSession;
  readonly docsOfSession;
  readonly docsAt;
  readonly deleteDoc;
  readonly deleteFts;
  readonly deleteCjk;
  readonly insertDoc;
  readonly insertFts;
  readonly insertCjk;
  readonly countDocs;

  constructor(db: Database) {
    this.insertSession = db.prepare(
      `INSERT INTO sessions (root, session_id, path, cwd, created_at, dev, ino, size, ctime_ns, include_tools, scanned_bytes, state)
       VALUES (@root, @sessionId, @path, @cwd, @createdAt, @dev, @ino, @size, @ctimeNs, @includeTools, @scannedBytes, @state)`,
    );
    this.updateSession = db.prepare(
      `UPDATE sessions SET path = @path, cwd = @cwd, created_at = @createdAt, dev = @dev, ino = @ino, size = @size,
       ctime_ns = @ctimeNs, include_tools = @includeTools, scanned_bytes = @scannedBytes, state = @state WHERE id = @id`,
    );
    this.updateMeta = db.prepare('UPDATE sessions SET path = ?, cwd = ?, created_at = ? WHERE id = ?');
    this.deleteSession = db.prepare('DELETE FROM sessions WHERE id = ?');
    this.docsOfSession = db.prepare('SELECT id, cjk FROM docs WHERE session = ?');
    this.docsAt = db.prepare('SELECT id, cjk FROM docs WHERE session = ? AND seq = ?');
    this.deleteDoc = db.prepare('DELETE FROM docs WHERE id = ?');
    this.deleteFts = db.prepare('DELETE FROM docs_fts WHERE rowid = ?');
    this.deleteCjk = db.prepare('DELETE FROM docs_cjk WHERE rowid = ?');
    this.insertDoc = db.prepare('INSERT INTO docs (session, seq, role, time, cjk) VALUES (?, ?, ?, ?, ?)');
    this.insertFts = db.prepare('INSERT INTO docs_fts (rowid, body) VALUES (?, ?)');
    this.insertCjk = db.prepare('INSERT INTO docs_cjk (rowid, body) VALUES (?, ?)');
    this.countDocs = db.prepare('SELECT count(*) AS n FROM docs JOIN sessions s ON s.id = docs.session WHERE s.root = ?');
  }
}

function removeDocs(statements: Statements, rows: readonly { id: number; cjk: number }[]): void {
  for (const row of rows) {
    statements.deleteFts.run(row.id);
    if (row.cjk === 1) statements.deleteCjk.run(row.id);
    statements.deleteDoc.run(row.id);
  }
}

function sameRevision(row: SessionRow, revision: FileRevision): boolean {
  return row.dev === revision.dev && row.ino === revision.ino && row.size === revision.size && row.ctime_ns === revision.ctimeNs;
}

function stateOf(blob: Buffer | null | undefined): SessionState | undefined {
  if (blob === null || blob === undefined) return undefined;
  try {
    return deserialize(blob) as SessionState;
  } catch {
    // A state this build cannot read: the session is scanned whole.
    return undefined;
  }
}

/** The surface seqs of a fold. */
function seqsOf(nodes: readonly ProjectionNode[]): number[] {
  return nodes.map((node) => node.seq);
}

/** Index maintenance of one database. */
export class SearchSync {
  readonly #db: Database;
  readonly #statements: Statements;
  readonly #selectSession;
  readonly #selectState;

  constructor(db: Database) {
    this.#db = db;
    this.#statements = new Statements(db);
    // The rows of a root in one pass, without their states: an unchanged log needs only its revision.
    this.#selectSession = db.prepare(
      'SELECT id, session_id, path, cwd, created_at, dev, ino, size, ctime_ns, include_tools FROM sessions WHERE root = ?',
    );
    this.#selectState = db.prepare('SELECT state FROM sessions WHERE id = ?');
  }

  /**
   * Brings `request.root`'s index up to date with its listing.
   * @param control - polled between sessions and inside scans; its abort ends the sync (committed batches stay).
   * @param onProgress - called with sessions done so far.
   */
  async sync(request: SyncRequest, control: ScanControl, onProgress: (done: number, total: number) => void): Promise<SyncSummary> {
    const counts = { unchanged: 0, appended: 0, rebuilt: 0, removed: 0, unindexable: 0, scannedBytes: 0 };
    const listed = new Set(request.artifacts.map((artifact) => artifact.sessionId));
    const rows = new Map<string, SessionRow>();
    for (const row of this.#selectSession.iterate(request.root) as IterableIterator<SessionRow & { session_id: string }>)
      rows.set(row.session_id, row);
    const gone = [...rows.values()].filter((row) => !listed.has((row as SessionRow & { session_id: string }).session_id));
    if (gone.length > 0) {
      this.#db.transaction(() => {
        for (const row of gone) {
          removeDocs(this.#statements, this.#statements.docsOfSession.all(row.id) as Array<{ id: number; cjk: number }>);
          this.#statements.deleteSession.run(row.id);
        }
      })();
      counts.removed = gone.length;
    }
    let pending: SessionWrite[] = [];
    let pendingDocuments = 0;
    const flush = (): void => {
      if (pending.length === 0) return;
      const writes = pending;
      pending = [];
      pendingDocuments = 0;
      this.#db.transaction(() => {
        for (const write of writes) this.#apply(request, write);
      })();
    };
    try {
      let done = 0;
      for (const artifact of request.artifacts) {
        control.poll();
        const write = await this.#plan(request, artifact, control, rows.get(artifact.sessionId));
        if (write !== undefined) {
          if (write.kind === 'replace') {
            if (write.state === null) counts.unindexable += 1;
            else if (write.reset) counts.rebuilt += 1;
            else counts.appended += 1;
            counts.scannedBytes += write.scannedBytes;
            pendingDocuments += write.steps.length;
          } else {
            counts.unchanged += 1;
          }
          pending.push(write);
          if (pending.length >= BATCH_SESSIONS || pendingDocuments >= BATCH_DOCUMENTS) flush();
        } else {
          counts.unchanged += 1;
        }
        done += 1;
        onProgress(done, request.artifacts.length);
      }
    } finally {
      // What was scanned before a cancellation or a failure is kept: each write is a complete session.
      flush();
    }
    const documents = (this.#statements.countDocs.get(request.root) as { n: number }).n;
    return { sessions: request.artifacts.length, ...counts, documents };
  }

  /** What to write for one listed artifact (`undefined`: unchanged). */
  async #plan(
    request: SyncRequest,
    listed: SyncArtifact,
    control: ScanControl,
    row: SessionRow | undefined,
  ): Promise<SessionWrite | undefined> {
    let path: string;
    try {
      // The stored path is the one this id and cwd name, unless the root moved; else derive it once.
      path =
        row !== undefined && row.cwd === listed.cwd && row.path.startsWith(request.storeRoot)
          ? row.path
          : artifactPathFor({ root: request.storeRoot, compression: request.compression }, listed.sessionId, listed.cwd ?? undefined);
    } catch {
      // An id or cwd no file can be named by (an over-long component): nothing to index.
      return undefined;
    }
    const artifact: ListedArtifact = { ...listed, path };
    let revision: FileRevision;
    try {
      // A synchronous stat: this is the search worker's own thread, and 10,000 awaited stats cost ten times more.
      revision = revisionOf(statSync(artifact.path, { bigint: true }));
    } catch {
      // Listed but gone (or unreadable) now: indexed as nothing until it is listed and readable again.
      revision = { dev: '0', ino: '0', size: '0', mtimeNs: '0', ctimeNs: '0' };
    }
    const includeTools = request.includeTools ? 1 : 0;
    if (row !== undefined && row.include_tools === includeTools && sameRevision(row, revision)) {
      const metaChanged = row.path !== artifact.path || row.cwd !== artifact.cwd || row.created_at !== artifact.createdAt;
      return metaChanged ? { kind: 'meta', row, artifact } : undefined;
    }
    const previous =
      row !== undefined && row.include_tools === includeTools
        ? stateOf((this.#selectState.get(row.id) as { state: Buffer | null } | undefined)?.state)
        : undefined;
    const appendable =
      previous !== undefined &&
      row !== undefined &&
      row.dev === revision.dev &&
      row.ino === revision.ino &&
      BigInt(revision.size) > BigInt(row.size);
    if (revision.ino === '0') {
      return noSessionWrite(artifact, revision, row);
    }
    const payload: ScanPersistedSourcePayload = {
      source: 'scan',
      artifact: {
        sessionId: artifact.sessionId,
        path: artifact.path,
        root: request.storeRoot,
        compression: request.compression,
        capture: { dev: revision.dev, ino: revision.ino, size: revision.size },
      },
      ctimeNs: revision.ctimeNs,
      resume: appendable ? previous.resume : null,
    };
    const outcome = await scanSourceWith(payload, control, (event) => searchStep(event, request.includeTools));
    if (outcome.status !== 'scanned') {
      return noSessionWrite(artifact, revision, row);
    }
    const { scan } = outcome;
    const scannedRevision: FileRevision = { ...scan.revision, mtimeNs: revision.mtimeNs };
    const continued = scan.served === 'appended' && previous !== undefined;
    const fold = continued ? ProjectionFold.of(previous.committed.map((seq) => ({ seq, item: null }))) : ProjectionFold.empty();
    let answerFold: ProjectionFold | undefined;
    try {
      for (const step of scan.steps) {
        if (step.seq >= scan.committedEvents && answerFold === undefined) answerFold = ProjectionFold.of(fold.nodes());
        (answerFold ?? fold).apply({ seq: step.seq, replace: step.replace, item: null });
      }
    } catch {
      // Steps that do not fit the stored surface (a damaged state): rescan this log whole.
      if (continued) return this.#rescan(request, artifact, row, control);
      return noSessionWrite(artifact, revision, row);
    }
    const committed = seqsOf(fold.nodes());
    const answer = seqsOf((answerFold ?? fold).nodes());
    const keep = new Set(answer);
    const stepSeqs = new Set(scan.steps.map((step) => step.seq));
    const scannedBytes = Number(scan.revision.size) - (continued ? Number(row?.size ?? 0) : 0);
    if (!continued) {
      return {
        kind: 'replace',
        artifact,
        revision: scannedRevision,
        previous: row,
        state: { resume: scan.resume, committed, answer },
        removed: [],
        reset: true,
        steps: scan.steps.filter((step) => keep.has(step.seq)),
        keep,
        scannedBytes,
      };
    }
    const indexed = new Set(previous.answer);
    // Every current node is either indexed already or a step of this scan; anything else means the stored state
    // and the file disagree, and the log is scanned whole.
    for (const seq of answer) if (!indexed.has(seq) && !stepSeqs.has(seq)) return this.#rescan(request, artifact, row, control);
    return {
      kind: 'replace',
      artifact,
      revision: scannedRevision,
      previous: row,
      state: { resume: scan.resume, committed, answer },
      removed: previous.answer.filter((seq) => !keep.has(seq)),
      reset: false,
      steps: scan.steps.filter((step) => keep.has(step.seq) && !indexed.has(step.seq)),
      keep,
      scannedBytes,
    };
  }

  /** A whole scan of a log whose stored state could not be continued. */
  async #rescan(
    request: SyncRequest,
    artifact: ListedArtifact,
    row: SessionRow | undefined,
    control: ScanControl,
  ): Promise<SessionWrite | undefined> {
    const forgotten = row === undefined ? undefined : { ...row, size: '-1' };
    if (forgotten !== undefined) this.#statements.updateSession.run(this.#params(request, artifact, forgotten, null, 0, forgotten.id));
    return this.#plan(request, artifact, control, forgotten);
  }

  #params(
    request: SyncRequest,
    artifact: ListedArtifact,
    revision: { dev: string; ino: string; size: string; ctime_ns?: string; ctimeNs?: string },
    state: SessionState | null,
    scannedBytes: number,
    id?: number,
  ): Record<string, unknown> {
    return {
      ...(id === undefined ? {} : { id }),
      root: request.root,
      sessionId: artifact.sessionId,
      path: artifact.path,
      cwd: artifact.cwd,
      createdAt: artifact.createdAt,
      dev: revision.dev,
      ino: revision.ino,
      size: revision.size,
      ctimeNs: revision.ctimeNs ?? revision.ctime_ns ?? '0',
      includeTools: request.includeTools ? 1 : 0,
      scannedBytes,
      state: state === null ? null : serialize(state),
    };
  }

  #apply(request: SyncRequest, write: SessionWrite): void {
    const statements = this.#statements;
    if (write.kind === 'meta') {
      statements.updateMeta.run(write.artifact.path, write.artifact.cwd, write.artifact.createdAt, write.row.id);
      return;
    }
    let id: number;
    if (write.previous === undefined) {
      id = Number(
        statements.insertSession.run(this.#params(request, write.artifact, write.revision, write.state, write.scannedBytes))
          .lastInsertRowid,
      );
    } else {
      id = write.previous.id;
      statements.updateSession.run(this.#params(request, write.artifact, write.revision, write.state, write.scannedBytes, id));
      if (write.reset) removeDocs(statements, statements.docsOfSession.all(id) as Array<{ id: number; cjk: number }>);
      else for (const seq of write.removed) removeDocs(statements, statements.docsAt.all(id, seq) as Array<{ id: number; cjk: number }>);
    }
    for (const step of write.steps) {
      for (const document of step.documents) {
        const cjk = CJK_PATTERN.test(document.text) ? 1 : 0;
        const docId = Number(statements.insertDoc.run(id, step.seq, document.role, step.time, cjk).lastInsertRowid);
        statements.insertFts.run(docId, document.text);
        if (cjk === 1) statements.insertCjk.run(docId, document.text);
      }
    }
  }
}

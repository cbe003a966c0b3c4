/**
 * Keeping one root's index current (issue 17 item 2), incremental per artifact revision:
 *
 * - unchanged (same dev, ino, size and ctime as indexed, same `includeTools`): one `stat`, nothing read;
 * - appended (same file, longer): the source cache's resumable, digest-guarded scan (`scanSourceWith`) continues the
 *   stored title-scan checkpoint over the new bytes only; the stored surface is continued (`continueSurface`), so
 *   documents a compaction shadows leave the index when it lands;
 * - anything else (new, rewritten, shrunk, replaced, a checkpoint that no longer fits): scanned whole and replaced;
 * - gone from the listing: its documents and row are removed;
 * - live sessions are indexed from captures of their byte logs: the same byte log (same id) longer than indexed is
 *   decoded from the stored position on, any other log whole; an unchanged one costs nothing.
 *
 * A log that is not a valid session is recorded with its revision and no documents (so it costs a `stat` until it
 * changes). Writes go in transactions of a bounded number of sessions; a cancelled sync keeps what it committed.
 */
import { deserialize, serialize } from 'node:v8';
import { statSync } from 'node:fs';
import { revisionOf, type FileRevision } from '../../io/file-revision.js';
import { artifactPathFor } from '../../io/artifact-path.js';
import type { SessionEvent } from '../../protocol/events.js';
import { forEachLiveLogEventFrom, LIVE_LOG_START, type LiveLogPosition } from '../../protocol/wire/live-log-codec.js';
import type { ScanPersistedSourcePayload, ScanSourceResume } from '../../protocol/wire/task-shapes.js';
import { scanSourceWith, type ScanControl } from '../tasks/scan-source.js';
import { searchStep, type SearchStep } from './search-documents.js';
import type { Database } from './search-database.js';
import { documentDigest } from './search-integrity.js';
import type { SyncArtifact, SyncChangesRequest, SyncLive, SyncRequest, SyncSummary } from './search-messages.js';
import { continueSurface, type IndexedSurface, type SurfaceUpdate } from './search-surface.js';

/** What the index keeps of a persisted log to continue it: the title scan's checkpoint and the surface. */
interface ArtifactState extends IndexedSurface {
  readonly kind: 'artifact';
  readonly resume: ScanSourceResume;
}

/** What the index keeps of a live log to continue it: where its decoding stopped, and the surface. */
interface LiveState extends IndexedSurface {
  readonly kind: 'live';
  readonly position: LiveLogPosition;
}

type SessionState = ArtifactState | LiveState;

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
  /** The live byte log's id for a live session's entry, `null` for a persisted log's. */
  readonly live_log: string | null;
}

/** The columns of an entry: the session and the revision of what was indexed. */
interface EntryColumns {
  readonly sessionId: string;
  /** The artifact path (empty for a live session). */
  readonly path: string;
  readonly cwd: string | null;
  readonly createdAt: number;
  readonly dev: string;
  readonly ino: string;
  /** A persisted log's size in bytes, or a live log's event count. */
  readonly size: string;
  readonly ctimeNs: string;
  readonly liveLog: string | null;
}

/** One session's pending write. */
type SessionWrite =
  | { readonly kind: 'meta'; readonly row: SessionRow; readonly entry: EntryColumns }
  | {
      readonly kind: 'replace';
      readonly entry: EntryColumns;
      readonly previous: SessionRow | undefined;
      /** `null`: not a valid session (no documents). */
      readonly state: SessionState | null;
      /** What changes in the documents (every one replaced, none added, when `state` is `null`). */
      readonly update: SurfaceUpdate;
      readonly scannedBytes: number;
    };

/** The update of an entry with no documents. */
const NO_DOCUMENTS: SurfaceUpdate = { committed: [], answer: [], reset: true, removed: [], steps: [] };

/**
 * The write of a log that is not a valid session (not a regular file, unreadable as a session, or a surface its steps
 * do not fit): its revision is recorded with no documents, so it costs a `stat` until it changes.
 */
function noSessionWrite(entry: EntryColumns, previous: SessionRow | undefined): SessionWrite {
  return { kind: 'replace', entry, previous, state: null, update: NO_DOCUMENTS, scannedBytes: 0 };
}

/** The columns of a persisted log's entry at `revision`. */
function artifactEntry(artifact: ListedArtifact, revision: FileRevision | ScannedRevision): EntryColumns {
  return {
    sessionId: artifact.sessionId,
    path: artifact.path,
    cwd: artifact.cwd,
    createdAt: artifact.createdAt,
    dev: revision.dev,
    ino: revision.ino,
    size: revision.size,
    ctimeNs: revision.ctimeNs,
    liveLog: null,
  };
}

/** The columns of a live session's entry with `events` indexed. */
function liveEntry(live: SyncLive, events: number): EntryColumns {
  return {
    sessionId: live.sessionId,
    path: '',
    cwd: live.cwd,
    createdAt: live.createdAt,
    dev: 'live',
    ino: '0',
    size: String(events),
    ctimeNs: '0',
    liveLog: live.logId,
  };
}

type ScannedRevision = { readonly dev: string; readonly ino: string; readonly size: string; readonly ctimeNs: string };

/** A listed session with its artifact path. */
type ListedArtifact = SyncArtifact & { readonly path: string };

/** CJK scripts: Han, Hiragana, Katakana, Hangul (text with them also goes to the trigram table). */
export const CJK_PATTERN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Sessions per write transaction, and documents that close one early. Large: FTS5 writes its pending terms as a new
 * segment at every commit and merges segments later, so fewer, larger commits cost less per document.
 */
const BATCH_SESSIONS = 512;
const BATCH_DOCUMENTS = 32_000;

/** Logs read at once during a sync (their file-system waits overlap; the scans themselves run one at a time). */
const SCANS_IN_FLIGHT = 8;

/** Plans decided ahead of the one being recorded (unchanged logs among them are decided at once, without a read). */
const PLANS_AHEAD = 256;

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
  readonly countSessions;

  constructor(db: Database) {
    this.insertSession = db.prepare(
      `INSERT INTO sessions (root, session_id, path, cwd, created_at, dev, ino, size, ctime_ns, live_log, include_tools, scanned_bytes, state)
       VALUES (@root, @sessionId, @path, @cwd, @createdAt, @dev, @ino, @size, @ctimeNs, @liveLog, @includeTools, @scannedBytes, @state)`,
    );
    this.updateSession = db.prepare(
      `UPDATE sessions SET path = @path, cwd = @cwd, created_at = @createdAt, dev = @dev, ino = @ino, size = @size,
       ctime_ns = @ctimeNs, live_log = @liveLog, include_tools = @includeTools, scanned_bytes = @scannedBytes, state = @state
       WHERE id = @id`,
    );
    this.updateMeta = db.prepare('UPDATE sessions SET path = ?, cwd = ?, created_at = ? WHERE id = ?');
    this.deleteSession = db.prepare('DELETE FROM sessions WHERE id = ?');
    this.docsOfSession = db.prepare('SELECT id, cjk FROM docs WHERE session = ?');
    this.docsAt = db.prepare('SELECT id, cjk FROM docs WHERE session = ? AND seq = ?');
    this.deleteDoc = db.prepare('DELETE FROM docs WHERE id = ?');
    this.deleteFts = db.prepare('DELETE FROM docs_fts WHERE rowid = ?');
    this.deleteCjk = db.prepare('DELETE FROM docs_cjk WHERE rowid = ?');
    this.insertDoc = db.prepare('INSERT INTO docs (session, seq, role, time, cjk, digest) VALUES (?, ?, ?, ?, ?, ?)');
    this.insertFts = db.prepare('INSERT INTO docs_fts (rowid, body) VALUES (?, ?)');
    this.insertCjk = db.prepare('INSERT INTO docs_cjk (rowid, body) VALUES (?, ?)');
    this.countDocs = db.prepare('SELECT count(*) AS n FROM docs JOIN sessions s ON s.id = docs.session WHERE s.root = ?');
    this.countSessions = db.prepare('SELECT count(*) AS n FROM sessions WHERE root = ?');
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
  return (
    row.live_log === null &&
    row.dev === revision.dev &&
    row.ino === revision.ino &&
    row.size === revision.size &&
    row.ctime_ns === revision.ctimeNs
  );
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

type KeyedRow = SessionRow & { readonly session_id: string };

/** The per-kind counts a sync reports. */
interface SyncCounts {
  unchanged: number;
  appended: number;
  rebuilt: number;
  removed: number;
  unindexable: number;
  scannedBytes: number;
}

/** Index maintenance of one database. */
export class SearchSync {
  readonly #db: Database;
  readonly #statements: Statements;
  readonly #selectSession;
  readonly #selectOne;
  readonly #selectState;
  readonly #beforeWrite: () => void;
  /**
   * One root's rows as this connection last read or wrote them, and `PRAGMA data_version` when they were read (it
   * changes when another connection commits; this connection's own writes update the rows they touch). A sync after
   * appends to 1% of the logs reads the rows of those, not all 10,000. `listed`: a sync with the root's whole listing
   * completed since they were read, so they are what the caller's last sync left (what a sync of changes relies on).
   */
  #rows: { readonly root: string; readonly dataVersion: number; readonly byId: Map<string, KeyedRow>; listed: boolean } | undefined;

  /**
   * @param db - the open index.
   * @param beforeWrite - called before every write transaction (the file digest is removed before the file changes).
   */
  constructor(db: Database, beforeWrite: () => void = () => {}) {
    this.#db = db;
    this.#beforeWrite = beforeWrite;
    this.#statements = new Statements(db);
    // The rows of a root in one pass, without their states: an unchanged log needs only its revision.
    this.#selectSession = db.prepare(
      'SELECT id, session_id, path, cwd, created_at, dev, ino, size, ctime_ns, live_log, include_tools FROM sessions WHERE root = ?',
    );
    this.#selectOne = db.prepare(
      'SELECT id, session_id, path, cwd, created_at, dev, ino, size, ctime_ns, live_log, include_tools FROM sessions WHERE root = ? AND session_id = ?',
    );
    this.#selectState = db.prepare('SELECT state FROM sessions WHERE id = ?');
  }

  /** The root's rows by session id: the kept ones while no other connection committed since, else read again. */
  #rowsOf(root: string): Map<string, KeyedRow> {
    const dataVersion = this.#db.pragma('data_version', { simple: true }) as number;
    const kept = this.#rows;
    if (kept !== undefined && kept.root === root && kept.dataVersion === dataVersion) return kept.byId;
    const byId = new Map<string, KeyedRow>();
    for (const row of this.#selectSession.iterate(root) as IterableIterator<KeyedRow>) byId.set(row.session_id, row);
    this.#rows = { root, dataVersion, byId, listed: false };
    return byId;
  }

  /**
   * Brings `request.root`'s index up to date with only the sessions that may have changed since the caller's last
   * sync, trusting every other row — or answers `null`, doing nothing, when this connection cannot vouch that its rows
   * are those that sync left: none kept for the root (a new worker: an in-memory index would be empty), no whole
   * listing synced since they were read, or another connection committed since (it may have synced another listing).
   * @param control - as for {@link sync}.
   * @param onProgress - as for {@link sync} (of the changed sessions).
   */
  async syncChanges(
    request: SyncChangesRequest,
    control: ScanControl,
    onProgress: (done: number, total: number) => void,
  ): Promise<SyncSummary | null> {
    const kept = this.#rows;
    if (kept === undefined || kept.root !== request.root || !kept.listed) return null;
    if ((this.#db.pragma('data_version', { simple: true }) as number) !== kept.dataVersion) return null;
    return this.sync(request, control, onProgress);
  }

  /**
   * Runs one write transaction of sessions `ids` of `root`, then reads those rows again into the kept rows (a failed
   * transaction drops them: the next sync reads every row).
   */
  #write(root: string, ids: readonly string[], work: () => void): void {
    this.#beforeWrite();
    try {
      this.#db.transaction(work)();
    } catch (error) {
      this.#rows = undefined;
      throw error;
    }
    const byId = this.#rows?.root === root ? this.#rows.byId : undefined;
    if (byId === undefined) return;
    for (const id of ids) {
      const row = this.#selectOne.get(root, id) as KeyedRow | undefined;
      if (row === undefined) byId.delete(id);
      else byId.set(id, row);
    }
  }

  /**
   * Brings `request.root`'s index up to date with its listing (and its live sessions).
   * @param control - polled between sessions and inside scans; its abort ends the sync (committed batches stay).
   * @param onProgress - called with sessions done so far.
   */
  async sync(request: SyncRequest, control: ScanControl, onProgress: (done: number, total: number) => void): Promise<SyncSummary> {
    const counts: SyncCounts = { unchanged: 0, appended: 0, rebuilt: 0, removed: 0, unindexable: 0, scannedBytes: 0 };
    const rows = this.#rowsOf(request.root);
    const wholeListing = request.artifacts !== null && request.removed === undefined;
    if (request.artifacts !== null) {
      let gone: KeyedRow[];
      if (request.removed === undefined) {
        const listed = new Set<string>();
        for (const artifact of request.artifacts) listed.add(artifact.sessionId);
        for (const live of request.live) listed.add(live.sessionId);
        gone = [...rows.values()].filter((row) => !listed.has(row.session_id));
      } else {
        // Changes only: the ids the caller names as no longer listed (a live session's row stays, as above).
        const live = new Set(request.live.map((source) => source.sessionId));
        gone = [];
        for (const id of request.removed) {
          const row = rows.get(id);
          if (row !== undefined && !live.has(id)) gone.push(row);
        }
      }
      if (gone.length > 0) {
        this.#write(
          request.root,
          gone.map((row) => row.session_id),
          () => {
            for (const row of gone) {
              removeDocs(this.#statements, this.#statements.docsOfSession.all(row.id) as Array<{ id: number; cjk: number }>);
              this.#statements.deleteSession.run(row.id);
            }
          },
        );
        counts.removed = gone.length;
      }
    }
    let pending: SessionWrite[] = [];
    let pendingDocuments = 0;
    const flush = (): void => {
      if (pending.length === 0) return;
      const writes = pending;
      pending = [];
      pendingDocuments = 0;
      this.#write(
        request.root,
        writes.map((write) => write.entry.sessionId),
        () => {
          for (const write of writes) this.#apply(request, write);
        },
      );
    };
    const record = (write: SessionWrite | undefined): void => {
      if (write?.kind !== 'replace') {
        counts.unchanged += 1;
        if (write === undefined) return;
      } else {
        if (write.state === null) counts.unindexable += 1;
        else if (write.update.reset) counts.rebuilt += 1;
        else counts.appended += 1;
        counts.scannedBytes += write.scannedBytes;
        pendingDocuments += write.update.steps.length;
      }
      pending.push(write);
      if (pending.length >= BATCH_SESSIONS || pendingDocuments >= BATCH_DOCUMENTS) flush();
    };
    const artifacts = request.artifacts ?? [];
    const total = artifacts.length + request.live.length;
    try {
      let done = 0;
      // Up to SCANS_IN_FLIGHT logs are read at once: each read waits on the file system (open, stat, read, close
      // through libuv), and one at a time this thread idled for most of a build. Writes stay in listing order.
      const inFlight: Array<SessionWrite | undefined | Promise<SessionWrite | undefined>> = [];
      let next = 0;
      let reading = 0;
      const start = (): void => {
        const artifact = artifacts[next++] as SyncArtifact;
        const planned = this.#plan(request, artifact, control, rows.get(artifact.sessionId));
        if (planned instanceof Promise) {
          reading += 1;
          // Observed at once, so a failure while earlier plans are awaited is never an unhandled rejection.
          planned.then(
            () => {
              reading -= 1;
            },
            () => {
              reading -= 1;
            },
          );
        }
        inFlight.push(planned);
      };
      try {
        while (done < artifacts.length) {
          control.poll();
          while (next < artifacts.length && reading < SCANS_IN_FLIGHT && inFlight.length < PLANS_AHEAD) start();
          const planned = inFlight.shift();
          record(planned instanceof Promise ? await planned : planned);
          done += 1;
          onProgress(done, total);
        }
      } catch (error) {
        // Nothing of this sync may run after it ended: the plans still reading finish (or see the abort) first.
        await Promise.allSettled(inFlight);
        throw error;
      }
      for (const live of request.live) {
        control.poll();
        record(this.#planLive(request, live, control, rows.get(live.sessionId)));
        done += 1;
        onProgress(done, total);
      }
    } finally {
      // What was scanned before a cancellation or a failure is kept: each write is a complete session.
      flush();
    }
    const documents = (this.#statements.countDocs.get(request.root) as { n: number }).n;
    const known = wholeListing ? total : (this.#statements.countSessions.get(request.root) as { n: number }).n;
    // Every row now answers to the whole listing (kept rows dropped by a failed write stay dropped).
    if (wholeListing && this.#rows?.root === request.root) this.#rows.listed = true;
    return { sessions: known, live: request.live.length, ...counts, documents };
  }

  /**
   * What to write for one listed artifact (`undefined`: unchanged), without a promise when the answer needs no read
   * (an unchanged log, a changed header field): the 99% of a sync after appends to 1% cost a `stat` each and nothing
   * more.
   */
  #plan(
    request: SyncRequest,
    listed: SyncArtifact,
    control: ScanControl,
    row: SessionRow | undefined,
  ): SessionWrite | undefined | Promise<SessionWrite | undefined> {
    let path: string;
    try {
      // The stored path is the one this id and cwd name, unless the root moved; else derive it once.
      path =
        row !== undefined && row.live_log === null && row.cwd === listed.cwd && row.path.startsWith(request.storeRoot)
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
      return metaChanged ? { kind: 'meta', row, entry: artifactEntry(artifact, revision) } : undefined;
    }
    return this.#scan(request, artifact, control, row, revision);
  }

  /** What to write for a listed artifact whose revision is not the indexed one: continued or scanned whole. */
  async #scan(
    request: SyncRequest,
    artifact: ListedArtifact,
    control: ScanControl,
    row: SessionRow | undefined,
    revision: FileRevision,
  ): Promise<SessionWrite | undefined> {
    const includeTools = request.includeTools ? 1 : 0;
    const stored =
      row !== undefined && row.live_log === null && row.include_tools === includeTools
        ? stateOf((this.#selectState.get(row.id) as { state: Buffer | null } | undefined)?.state)
        : undefined;
    const previous = stored?.kind === 'artifact' ? stored : undefined;
    const appendable =
      previous !== undefined &&
      row !== undefined &&
      row.dev === revision.dev &&
      row.ino === revision.ino &&
      BigInt(revision.size) > BigInt(row.size);
    if (revision.ino === '0') {
      return noSessionWrite(artifactEntry(artifact, revision), row);
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
    // Read synchronously: this is the search worker's own thread, and each awaited file step was a libuv round trip
    // that left it idle (most of a 10,000-session build).
    const outcome = await scanSourceWith(payload, control, (event) => searchStep(event, request.includeTools), 'sync');
    if (outcome.status !== 'scanned') {
      return noSessionWrite(artifactEntry(artifact, revision), row);
    }
    const { scan } = outcome;
    const continued = scan.served === 'appended' && previous !== undefined;
    const update = continueSurface(continued ? previous : undefined, scan.steps, scan.committedEvents);
    if (update === undefined) {
      // Steps that do not fit the stored surface (a damaged state): rescan this log whole.
      if (continued) return this.#rescan(request, artifact, row, control);
      return noSessionWrite(artifactEntry(artifact, revision), row);
    }
    return {
      kind: 'replace',
      entry: artifactEntry(artifact, scan.revision),
      previous: row,
      state: { kind: 'artifact', resume: scan.resume, committed: update.committed, answer: update.answer },
      update,
      scannedBytes: Number(scan.revision.size) - (continued ? Number(row?.size ?? 0) : 0),
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
    if (forgotten !== undefined) {
      const entry = { ...artifactEntry(artifact, { ...forgotten, ctimeNs: forgotten.ctime_ns }) };
      this.#write(request.root, [artifact.sessionId], () => {
        this.#statements.updateSession.run(this.#params(request, entry, null, 0, forgotten.id));
      });
    }
    return this.#plan(request, artifact, control, forgotten);
  }

  /**
   * What to write for one live session (`undefined`: unchanged). The same log (same id) is decoded from the stored
   * position on; any other log, or a stored state that does not fit, from its start.
   */
  #planLive(request: SyncRequest, live: SyncLive, control: ScanControl, row: SessionRow | undefined): SessionWrite | undefined {
    const includeTools = request.includeTools ? 1 : 0;
    const events = live.log.events;
    const same = row !== undefined && row.live_log === live.logId && row.include_tools === includeTools;
    if (same && row.size === String(events)) {
      const metaChanged = row.cwd !== live.cwd || row.created_at !== live.createdAt;
      return metaChanged ? { kind: 'meta', row, entry: liveEntry(live, events) } : undefined;
    }
    const stored = same ? stateOf((this.#selectState.get(row.id) as { state: Buffer | null } | undefined)?.state) : undefined;
    const previous = stored?.kind === 'live' && stored.position.events <= events ? stored : undefined;
    return this.#scanLive(request, live, control, row, previous) ?? this.#scanLive(request, live, control, row, undefined);
  }

  /** Decodes a live log after `previous`'s position (or whole) and folds it; `undefined` when `previous` did not fit. */
  #scanLive(
    request: SyncRequest,
    live: SyncLive,
    control: ScanControl,
    row: SessionRow | undefined,
    previous: LiveState | undefined,
  ): SessionWrite | undefined {
    const steps: SearchStep[] = [];
    let position: LiveLogPosition;
    let update: SurfaceUpdate | undefined;
    try {
      position = forEachLiveLogEventFrom(
        live.log,
        previous?.position ?? LIVE_LOG_START,
        (event) => {
          const step = searchStep(event as SessionEvent, request.includeTools);
          if (step !== undefined) steps.push(step);
        },
        control.pollFn,
      );
      // A live log has no unfinished tail to re-read: every event stays where it is.
      update = continueSurface(previous, steps, Number.POSITIVE_INFINITY);
    } catch {
      if (control.signal.aborted) throw control.signal.reason;
      // Bytes that are not whole entries, or an entry that is not an event: nothing of this log can be trusted.
      if (previous !== undefined) return undefined;
      return noSessionWrite(liveEntry(live, live.log.events), row);
    }
    if (update === undefined) return previous === undefined ? noSessionWrite(liveEntry(live, live.log.events), row) : undefined;
    const bytes = live.log.sealed.lengths.reduce((sum, length) => sum + length, live.log.tailLength);
    return {
      kind: 'replace',
      entry: liveEntry(live, position.events),
      previous: row,
      state: { kind: 'live', position, committed: update.committed, answer: update.answer },
      update,
      scannedBytes: previous === undefined ? bytes : bytes - positionBytes(live, previous.position),
    };
  }

  #params(
    request: SyncRequest,
    entry: EntryColumns,
    state: SessionState | null,
    scannedBytes: number,
    id?: number,
  ): Record<string, unknown> {
    return {
      ...(id === undefined ? {} : { id }),
      root: request.root,
      ...entry,
      includeTools: request.includeTools ? 1 : 0,
      scannedBytes,
      state: state === null ? null : serialize(state),
    };
  }

  #apply(request: SyncRequest, write: SessionWrite): void {
    const statements = this.#statements;
    if (write.kind === 'meta') {
      statements.updateMeta.run(write.entry.path, write.entry.cwd, write.entry.createdAt, write.row.id);
      return;
    }
    const { update } = write;
    let id: number;
    if (write.previous === undefined) {
      id = Number(statements.insertSession.run(this.#params(request, write.entry, write.state, write.scannedBytes)).lastInsertRowid);
    } else {
      id = write.previous.id;
      statements.updateSession.run(this.#params(request, write.entry, write.state, write.scannedBytes, id));
      if (update.reset) removeDocs(statements, statements.docsOfSession.all(id) as Array<{ id: number; cjk: number }>);
      else for (const seq of update.removed) removeDocs(statements, statements.docsAt.all(id, seq) as Array<{ id: number; cjk: number }>);
    }
    for (const step of update.steps) {
      for (const document of step.documents) {
        const cjk = CJK_PATTERN.test(document.text) ? 1 : 0;
        const digest = documentDigest(id, step.seq, document.role, step.time, cjk, document.text);
        const docId = Number(statements.insertDoc.run(id, step.seq, document.role, step.time, cjk, digest).lastInsertRowid);
        statements.insertFts.run(docId, document.text);
        if (cjk === 1) statements.insertCjk.run(docId, document.text);
      }
    }
  }
}

/** The bytes of a live capture before `position` (the decoded part). */
function positionBytes(live: SyncLive, position: LiveLogPosition): number {
  const lengths = [...live.log.sealed.lengths, live.log.tailLength];
  let bytes = position.offset;
  for (let index = 0; index < position.chunk; index++) bytes += lengths[index] ?? 0;
  return bytes;
}

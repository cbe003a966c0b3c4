/**
 * Publishing one engine's root into the shared corpus index (issue 29), incrementally: per artifact, the header
 * and the latest title, with the artifact's file revision and its search documents (docs/FLEET.md §7: continued over
 * an appended log's new bytes, replaced otherwise) — all of them first, so the corpus is discoverable and searchable
 * soon — then the source-cache entry another host cites it from. An artifact whose revision the database already holds is
 * skipped; one that vanished from the root is removed.
 *
 * Each batch is one transaction. Inside it every artifact is written under a transaction-scoped advisory lock keyed
 * by corpus and session id, taken in sorted order (so two writers never deadlock), and the revision is compared again
 * once the lock is held: two processes publishing the same root never write one artifact at the same time, and a
 * writer that finds its revision already there writes nothing. A publisher that dies mid-batch leaves every artifact
 * of that batch at its previous revision: the server rolls back the dead connection's transaction and frees its locks.
 */
import { resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { artifactPathFor, type StoreLayout } from '../../../io/artifact-path.js';
import { statRevision, type FileRevision } from '../../../io/file-revision.js';
import type { SessionHeader, SessionId } from '../../../protocol/events.js';
import { observedTitle } from '../corpus/discovery-label.js';
import type { SessionRecord, SessionTitleObservation } from '../corpus/session-query.js';
import { discoveryKeys } from './discovery-keys.js';
import type { DocumentScan, DocumentScanRequest, PublishedSearchState } from './search-document-scan.js';
import { documentKeys } from './phrase-match.js';
import { asStoredText } from './fts5-tokens.js';
import type { SearchDocumentStep } from '../../../protocol/wire/task-shapes.js';
import type { FleetDatabase, FleetTransaction } from './fleet-database.js';
import { FLEET_SCHEMA } from './fleet-schema.js';

/** One artifact whose source-cache entry is asked for: its id, where it is, and the revision it was seen at. */
export interface SourceRecordRequest {
  readonly sessionId: SessionId;
  readonly path: string;
  readonly revision: FileRevision;
}

/** A source-cache entry in the cache's file format, and the key it was built for. */
export interface PublishedSourceRecord {
  readonly key: string;
  readonly bytes: Uint8Array;
}

/** What a publisher reads of an engine (a `SessionEngine` fits): its listing and title observations. */
export interface PublishSource {
  listSessions(signal?: AbortSignal): Promise<SessionRecord[]>;
  /**
   * Title observations of a batch of listed ids. `listing` is the persisted headers of the listing the publish walks:
   * a source may answer against it rather than list its root again per batch (without a warm corpus view, a fresh
   * listing per batch made a first publish quadratic in the root's size).
   */
  readTitleSnapshots(
    sessionIds: readonly SessionId[],
    signal?: AbortSignal,
    listing?: readonly SessionHeader[],
  ): Promise<SessionTitleObservation[]>;
  /**
   * The source-cache entry of one artifact at `revision` (what another host needs to cite it), or `undefined` when
   * that revision is not a valid session. Without it, no source is published (discovery only).
   */
  readSourceRecord?(request: SourceRecordRequest, signal?: AbortSignal): Promise<PublishedSourceRecord | undefined>;
  /**
   * The search documents of one artifact at a revision (`search-document-scan.ts`), and whether tool text is in them.
   * Without it, no document is published (the artifact is not searched over the fleet).
   */
  readonly search?: PublishedSearch;
}

/** How a source's search documents are read. */
export interface PublishedSearch {
  /** `search.includeTools` of the publishing host: a change re-indexes each artifact once. */
  readonly includeTools: boolean;
  scan(request: DocumentScanRequest, signal?: AbortSignal): Promise<DocumentScan>;
}

/** Who publishes: this machine's name and the root it reads. */
export interface CorpusIdentity {
  readonly host: string;
  /** The session root, as this host reads it (made absolute). */
  readonly root: string;
}

/** The id a corpus is published under: host and absolute root. */
export function corpusIdOf(identity: CorpusIdentity): string {
  return `${identity.host}:${resolve(identity.root)}`;
}

/** How one publish went. */
export interface PublishSummary {
  /** The corpus id written. */
  readonly corpusId: string;
  /** Artifacts written (new or at a new revision). */
  readonly published: number;
  /** Artifacts already at their revision. */
  readonly unchanged: number;
  /** Artifacts removed because the root no longer lists them. */
  readonly removed: number;
  /** Source entries written (0 for a source without `readSourceRecord`). */
  readonly sources: number;
  /** Transactions committed. */
  readonly batches: number;
}

/**
 * Progress of one publish, after each committed batch: of the artifacts that changed, how many are written
 * (`artifacts`: discoverable), then of those whose source entry is missing, how many are (`sources`: citable).
 */
export type PublishProgress = (done: number, total: number, stage: 'artifacts' | 'sources') => void;

/** Artifacts (and source entries) per transaction when the options do not say. */
export const DEFAULT_PUBLISH_BATCH_SIZE = 64;

/** Construction options. */
export interface CorpusPublisherOptions {
  readonly database: FleetDatabase;
  readonly identity: CorpusIdentity;
  /** The root's layout (root and encoding): where each header's artifact is, for its revision. */
  readonly layout: StoreLayout;
  /** Artifacts per transaction; default {@link DEFAULT_PUBLISH_BATCH_SIZE}. */
  readonly batchSize?: number;
}

/** One artifact to write: its record, the revision read before its title, the title and its source entry. */
interface PendingArtifact {
  readonly record: SessionRecord;
  readonly path: string;
  readonly fileRevision: FileRevision;
  readonly revision: string;
  title?: string;
  /** `null`: not a valid session at this revision; absent: not read (yet). */
  source?: PublishedSourceRecord | null;
  /** The documents' change, with the revision it continues (absent: documents not published in this batch). */
  documents?: { readonly scan: DocumentScan; readonly base: string | null };
}

/** A stored revision's numbers. */
function parseRevision(text: string): FileRevision | undefined {
  const [dev, ino, size, mtimeNs, ctimeNs, extra] = text.split(':');
  if (
    dev === undefined ||
    ino === undefined ||
    size === undefined ||
    mtimeNs === undefined ||
    ctimeNs === undefined ||
    extra !== undefined
  ) {
    return undefined;
  }
  return { dev, ino, size, mtimeNs, ctimeNs };
}

/** A stored search state, or `undefined` when this build cannot read it (the artifact is then scanned whole). */
function searchStateOf(bytes: Buffer | null): PublishedSearchState | undefined {
  if (bytes === null) return undefined;
  try {
    return deserialize(bytes) as PublishedSearchState;
  } catch {
    return undefined;
  }
}

/** The stored form of a revision: its five numbers, colon-separated. */
function revisionText(revision: FileRevision): string {
  return `${revision.dev}:${revision.ino}:${revision.size}:${revision.mtimeNs}:${revision.ctimeNs}`;
}

/** Publishes one root under its corpus id. */
export class CorpusPublisher {
  readonly #database: FleetDatabase;
  readonly #identity: CorpusIdentity;
  readonly #layout: StoreLayout;
  readonly #batchSize: number;
  /** The corpus id this publisher writes. */
  readonly corpusId: string;

  constructor(options: CorpusPublisherOptions) {
    this.#database = options.database;
    this.#identity = { host: options.identity.host, root: resolve(options.identity.root) };
    this.#layout = options.layout;
    this.#batchSize = options.batchSize ?? DEFAULT_PUBLISH_BATCH_SIZE;
    this.corpusId = corpusIdOf(this.#identity);
  }

  /**
   * Brings the database's copy of this corpus up to date with `source`.
   * @throws FleetError from the database; the source's own errors (a listing that fails publishes nothing)
   */
  async publish(
    source: PublishSource,
    signal?: AbortSignal,
    onProgress?: PublishProgress,
    onDiscoverable?: () => void,
  ): Promise<PublishSummary> {
    signal?.throwIfAborted();
    await this.#database.query(
      `INSERT INTO ${FLEET_SCHEMA}.corpora (corpus_id, host, root) VALUES ($1, $2, $3) ON CONFLICT (corpus_id) DO NOTHING`,
      [this.corpusId, this.#identity.host, this.#identity.root],
    );
    const storedRows = await this.#database.query<{
      session_id: string;
      revision: string;
      source_revision: string | null;
      search_revision: string | null;
      include_tools: boolean | null;
    }>(
      `SELECT a.session_id, a.revision, s.revision AS source_revision, d.revision AS search_revision, d.include_tools
       FROM ${FLEET_SCHEMA}.artifacts a
       LEFT JOIN ${FLEET_SCHEMA}.sources s ON s.corpus_id = a.corpus_id AND s.session_id = a.session_id
       LEFT JOIN ${FLEET_SCHEMA}.search_sessions d ON d.corpus_id = a.corpus_id AND d.session_id = a.session_id
       WHERE a.corpus_id = $1`,
      [this.corpusId],
    );
    const stored = new Map(storedRows.map((row) => [row.session_id, row.revision]));
    const storedSources = new Map(storedRows.map((row) => [row.session_id, row.source_revision]));
    const { search } = source;
    // The documents' revision, when they are of the host's tool setting (another setting re-indexes the artifact).
    const storedSearch = new Map(
      storedRows.map((row) => [row.session_id, row.include_tools === (search?.includeTools ?? null) ? row.search_revision : null]),
    );
    const publishesSources = source.readSourceRecord !== undefined;
    const records = (await source.listSessions(signal)).filter((record) => record.persisted);
    const listing = records.map((record) => record.header);
    signal?.throwIfAborted();
    // Discoverable first (headers and titles: cheap), then citable (source entries: a read of each log).
    const changed: PendingArtifact[] = [];
    const uncited: PendingArtifact[] = [];
    const listed = new Set<string>();
    for (const record of records) {
      listed.add(record.header.id);
      const path = artifactPathFor(this.#layout, record.header.id, record.header.cwd);
      let fileRevision: FileRevision;
      try {
        fileRevision = await statRevision(path);
      } catch {
        // Not where its header names it (or gone since the listing): left as it is; the next publish looks again.
        continue;
      }
      const revision = revisionText(fileRevision);
      const artifact: PendingArtifact = { record, path, fileRevision, revision };
      // Changed: a new revision, or documents not of it (new, a database migrated from version 2, another tool setting).
      if (stored.get(record.header.id) !== revision || (search !== undefined && storedSearch.get(record.header.id) !== revision)) {
        changed.push(artifact);
      }
      // A source missing at this revision (new, changed, or a database migrated from version 1) is published too.
      if (publishesSources && storedSources.get(record.header.id) !== revision) uncited.push(artifact);
    }
    const removed = [...stored.keys()].filter((id) => !listed.has(id));
    let batches = 0;
    for (let start = 0; start < changed.length; start += this.#batchSize) {
      const batch = changed.slice(start, start + this.#batchSize);
      // Titles are read before the transaction opens, so no lock is held across file reads.
      const observations = await source.readTitleSnapshots(
        batch.map((artifact) => artifact.record.header.id),
        signal,
        listing,
      );
      const titles = new Map(observations.map((observation) => [observation.sessionId, observedTitle(observation)]));
      for (const artifact of batch) {
        const title = titles.get(artifact.record.header.id);
        if (title !== undefined) artifact.title = title;
      }
      if (search !== undefined) await this.#scanDocuments(search, batch, storedSearch, signal);
      signal?.throwIfAborted();
      await this.#database.transaction((tx) => this.#writeBatch(tx, batch, [], search?.includeTools ?? false));
      batches += 1;
      onProgress?.(Math.min(start + this.#batchSize, changed.length), changed.length, 'artifacts');
    }
    if (removed.length > 0) {
      await this.#database.transaction((tx) => this.#writeBatch(tx, [], removed, false));
      batches += 1;
    }
    // The corpus's time is that of its last complete publish: what `fleet status` reports as its lag.
    await this.#markPublished();
    onDiscoverable?.();
    const readSourceRecord = source.readSourceRecord?.bind(source);
    if (readSourceRecord !== undefined && uncited.length > 0) {
      for (let start = 0; start < uncited.length; start += this.#batchSize) {
        const batch = uncited.slice(start, start + this.#batchSize);
        // Read before the transaction (on the engine's pool, a few at a time), so no lock is held across reads.
        await eachAtMost(SOURCE_READS_IN_FLIGHT, batch, async (artifact) => {
          const request = { sessionId: artifact.record.header.id, path: artifact.path, revision: artifact.fileRevision };
          artifact.source = (await readSourceRecord(request, signal)) ?? null;
        });
        signal?.throwIfAborted();
        await this.#database.transaction((tx) => this.#writeSources(tx, batch));
        batches += 1;
        onProgress?.(Math.min(start + this.#batchSize, uncited.length), uncited.length, 'sources');
      }
      await this.#markPublished();
    }
    return {
      corpusId: this.corpusId,
      published: changed.length,
      unchanged: records.length - changed.length,
      removed: removed.length,
      sources: readSourceRecord === undefined ? 0 : uncited.length,
      batches,
    };
  }

  /**
   * The documents of a batch's artifacts, read before its transaction (so no lock is held across reads), a few at a
   * time: each continued from its stored state when that is of an earlier revision of the same file.
   */
  async #scanDocuments(
    search: PublishedSearch,
    batch: readonly PendingArtifact[],
    storedSearch: ReadonlyMap<string, string | null>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const continuable = batch.filter((artifact) => {
      const base = storedSearch.get(artifact.record.header.id);
      return base !== undefined && base !== null && base !== artifact.revision;
    });
    const states = new Map<string, { revision: string; state: Buffer | null }>();
    if (continuable.length > 0) {
      const rows = await this.#database.query<{ session_id: string; revision: string; state: Buffer | null }>(
        `SELECT session_id, revision, state FROM ${FLEET_SCHEMA}.search_sessions WHERE corpus_id = $1 AND session_id = ANY($2::text[])`,
        [this.corpusId, continuable.map((artifact) => artifact.record.header.id)],
        signal,
      );
      for (const row of rows) states.set(row.session_id, { revision: row.revision, state: row.state });
    }
    await eachAtMost(SOURCE_READS_IN_FLIGHT, batch, async (artifact) => {
      const id = artifact.record.header.id;
      if (storedSearch.get(id) === artifact.revision) return;
      const stored = states.get(id);
      const previousRevision = stored === undefined ? undefined : parseRevision(stored.revision);
      const state = stored === undefined ? undefined : searchStateOf(stored.state);
      const previous = previousRevision === undefined || state === undefined ? undefined : { revision: previousRevision, state };
      const scan = await search.scan({ sessionId: id, path: artifact.path, revision: artifact.fileRevision, previous }, signal);
      artifact.documents = { scan, base: scan.status === 'appended' ? (stored?.revision ?? null) : null };
    });
  }

  /**
   * The documents of a batch's artifacts, inside its transaction and under their locks (taken by the caller before):
   * nothing for an artifact whose documents are already of its revision (another writer got there); an appended
   * update only onto the revision it continues (else they are left for the next publish, which sees them stale);
   * otherwise every document replaced. A few statements per batch, not per artifact.
   */
  async #writeDocuments(tx: FleetTransaction, artifacts: readonly PendingArtifact[], includeTools: boolean): Promise<void> {
    const pending = artifacts.filter((artifact) => artifact.documents !== undefined);
    if (pending.length === 0) return;
    const rows = await tx.query<{ session_id: string; revision: string; include_tools: boolean }>(
      `SELECT session_id, revision, include_tools FROM ${FLEET_SCHEMA}.search_sessions WHERE corpus_id = $1 AND session_id = ANY($2::text[])`,
      [this.corpusId, pending.map((artifact) => artifact.record.header.id)],
    );
    const current = new Map(rows.map((row) => [row.session_id, row]));
    const reset: string[] = [];
    const removed: { ids: string[]; seqs: number[] } = { ids: [], seqs: [] };
    const states: { ids: string[]; revisions: string[]; states: Array<Buffer | null> } = { ids: [], revisions: [], states: [] };
    const inserted: Array<{ id: string; steps: readonly SearchDocumentStep[] }> = [];
    for (const artifact of pending) {
      const id = artifact.record.header.id;
      const { scan, base } = artifact.documents as NonNullable<PendingArtifact['documents']>;
      const stored = current.get(id);
      if (stored?.revision === artifact.revision && stored.include_tools === includeTools) continue;
      if (scan.status === 'appended') {
        if (stored?.revision !== base || stored.include_tools !== includeTools) continue;
        for (const seq of scan.removed) {
          removed.ids.push(id);
          removed.seqs.push(seq);
        }
      } else if (stored !== undefined) reset.push(id);
      states.ids.push(id);
      states.revisions.push(artifact.revision);
      states.states.push(scan.status === 'none' ? null : serialize(scan.state));
      if (scan.status !== 'none' && scan.steps.length > 0) inserted.push({ id, steps: scan.steps });
    }
    if (reset.length > 0) {
      await tx.query(`DELETE FROM ${FLEET_SCHEMA}.documents WHERE corpus_id = $1 AND session_id = ANY($2::text[])`, [this.corpusId, reset]);
    }
    if (removed.ids.length > 0) {
      await tx.query(
        `DELETE FROM ${FLEET_SCHEMA}.documents d USING unnest($2::text[], $3::int[]) AS r (session_id, seq)
         WHERE d.corpus_id = $1 AND d.session_id = r.session_id AND d.seq = r.seq`,
        [this.corpusId, removed.ids, removed.seqs],
      );
    }
    if (states.ids.length === 0) return;
    await tx.query(
      `INSERT INTO ${FLEET_SCHEMA}.search_sessions (corpus_id, session_id, revision, include_tools, state)
       SELECT $1, r.session_id, r.revision, $4, r.state FROM unnest($2::text[], $3::text[], $5::bytea[]) AS r (session_id, revision, state)
       ON CONFLICT (corpus_id, session_id) DO UPDATE SET
         revision = EXCLUDED.revision, include_tools = EXCLUDED.include_tools, state = EXCLUDED.state`,
      [this.corpusId, states.ids, states.revisions, includeTools, states.states],
    );
    if (inserted.length === 0) return;
    const columns = documentRows(inserted);
    await tx.query(
      `INSERT INTO ${FLEET_SCHEMA}.documents
         (corpus_id, session_id, seq, ord, role, time, body_json, tokens, token_count, folded)
       SELECT $1, * FROM unnest($2::text[], $3::int[], $4::int[], $5::text[], $6::float8[], $7::text[], $8::text[], $9::int[], $10::text[])`,
      [
        this.corpusId,
        columns.ids,
        columns.seqs,
        columns.ords,
        columns.roles,
        columns.times,
        columns.bodies,
        columns.tokens,
        columns.tokenCounts,
        columns.folded,
      ],
    );
  }

  async #markPublished(): Promise<void> {
    await this.#database.query(`UPDATE ${FLEET_SCHEMA}.corpora SET published_at = clock_timestamp() WHERE corpus_id = $1`, [this.corpusId]);
  }

  /**
   * One batch of source entries, each under its artifact's lock and only while the artifact is still at the revision
   * the entry was read at (another writer may have published a newer one meanwhile: its entry follows it).
   */
  async #writeSources(tx: FleetTransaction, artifacts: readonly PendingArtifact[]): Promise<void> {
    const ordered = [...artifacts].sort((a, b) => compareText(a.record.header.id, b.record.header.id));
    for (const artifact of ordered) {
      const { source } = artifact;
      if (source === undefined) continue;
      await this.#lock(tx, artifact.record.header.id);
      await tx.query(
        `INSERT INTO ${FLEET_SCHEMA}.sources (corpus_id, session_id, revision, record_key, record)
         SELECT $1, $2, $3, $4, $5 WHERE EXISTS (
           SELECT 1 FROM ${FLEET_SCHEMA}.artifacts WHERE corpus_id = $1 AND session_id = $2 AND revision = $3)
         ON CONFLICT (corpus_id, session_id) DO UPDATE SET
           revision = EXCLUDED.revision, record_key = EXCLUDED.record_key, record = EXCLUDED.record
         WHERE ${FLEET_SCHEMA}.sources.revision IS DISTINCT FROM EXCLUDED.revision`,
        [
          this.corpusId,
          artifact.record.header.id,
          artifact.revision,
          // JSON text: the cache's key holds NUL separators, which PostgreSQL text cannot.
          source === null ? null : JSON.stringify(source.key),
          source === null ? null : Buffer.from(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength),
        ],
      );
    }
  }

  /** One batch: each artifact (and its documents) under its advisory lock, in session-id order; removals likewise. */
  async #writeBatch(
    tx: FleetTransaction,
    artifacts: readonly PendingArtifact[],
    removals: readonly string[],
    includeTools: boolean,
  ): Promise<void> {
    const ordered = [...artifacts].sort((a, b) => compareText(a.record.header.id, b.record.header.id));
    for (const artifact of ordered) {
      const { header } = artifact.record;
      await this.#lock(tx, header.id);
      const keys = discoveryKeys(header, artifact.title);
      await tx.query(
        `INSERT INTO ${FLEET_SCHEMA}.artifacts
           (corpus_id, session_id, revision, header_json, created_at, cwd, title_json, id_key, cwd_key, label_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (corpus_id, session_id) DO UPDATE SET
           revision = EXCLUDED.revision, header_json = EXCLUDED.header_json, created_at = EXCLUDED.created_at, cwd = EXCLUDED.cwd,
           title_json = EXCLUDED.title_json, id_key = EXCLUDED.id_key, cwd_key = EXCLUDED.cwd_key, label_key = EXCLUDED.label_key,
           published_at = clock_timestamp()
         WHERE ${FLEET_SCHEMA}.artifacts.revision IS DISTINCT FROM EXCLUDED.revision`,
        [
          this.corpusId,
          header.id,
          artifact.revision,
          JSON.stringify(header),
          header.createdAt,
          header.cwd ?? null,
          artifact.title === undefined ? null : JSON.stringify(artifact.title),
          keys.id,
          keys.cwd ?? null,
          keys.label,
        ],
      );
    }
    // Every artifact's lock is held (until the transaction ends): its documents follow, batched.
    await this.#writeDocuments(tx, ordered, includeTools);
    for (const sessionId of [...removals].sort(compareText)) {
      await this.#lock(tx, sessionId);
      await tx.query(`DELETE FROM ${FLEET_SCHEMA}.artifacts WHERE corpus_id = $1 AND session_id = $2`, [this.corpusId, sessionId]);
    }
  }

  /** The one-writer lock of an artifact, held until the transaction ends (commit, rollback or a dead connection). */
  async #lock(tx: FleetTransaction, sessionId: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [this.corpusId, sessionId]);
  }
}

/**
 * Source entries read at once: enough to keep a default pool busy, few enough that the scans (and their listeners on
 * the publish's abort signal) stay bounded whatever the batch size.
 */
const SOURCE_READS_IN_FLIGHT = 4;

/** Runs `work` on every item, at most `limit` at a time; rejects with the first failure once the rest settled. */
async function eachAtMost<T>(limit: number, items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  });
  const settled = await Promise.allSettled(lanes);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}

/** A batch of documents as the columns of one `unnest` insert. */
interface DocumentRows {
  readonly ids: string[];
  readonly seqs: number[];
  readonly ords: number[];
  readonly roles: string[];
  readonly times: number[];
  readonly bodies: string[];
  readonly tokens: string[];
  readonly tokenCounts: number[];
  readonly folded: Array<string | null>;
}

/**
 * The rows of the sessions' documents: the text as SQLite holds it (lone surrogates as U+FFFD) in JSON text (it may hold
 * NUL, which PostgreSQL text cannot), with its match keys.
 */
function documentRows(sessions: ReadonlyArray<{ readonly id: string; readonly steps: readonly SearchDocumentStep[] }>): DocumentRows {
  const rows: DocumentRows = { ids: [], seqs: [], ords: [], roles: [], times: [], bodies: [], tokens: [], tokenCounts: [], folded: [] };
  for (const { id, steps } of sessions)
    for (const step of steps) {
      step.documents.forEach((document, ord) => {
        const text = asStoredText(document.text);
        const keys = documentKeys(text);
        rows.ids.push(id);
        rows.seqs.push(step.seq);
        rows.ords.push(ord);
        rows.roles.push(document.role);
        rows.times.push(step.time);
        rows.bodies.push(JSON.stringify(text));
        rows.tokens.push(keys.tokens);
        rows.tokenCounts.push(keys.tokenCount);
        rows.folded.push(keys.folded);
      });
    }
  return rows;
}

/** Code-unit order: the same in every process and locale, as a lock order must be. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

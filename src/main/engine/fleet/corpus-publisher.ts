/**
 * Publishing one engine's root into the shared corpus index (issue 29), incrementally: per artifact, the header
 * and the latest title, with the artifact's file revision. An artifact whose revision the database already holds is
 * skipped; one that vanished from the root is removed.
 *
 * Each batch is one transaction. Inside it every artifact is written under a transaction-scoped advisory lock keyed
 * by corpus and session id, taken in sorted order (so two writers never deadlock), and the revision is compared again
 * once the lock is held: two processes publishing the same root never write one artifact at the same time, and a
 * writer that finds its revision already there writes nothing. A publisher that dies mid-batch leaves every artifact
 * of that batch at its previous revision: the server rolls back the dead connection's transaction and frees its locks.
 */
import { resolve } from 'node:path';
import { artifactPathFor, type StoreLayout } from '../../../io/artifact-path.js';
import { statRevision, type FileRevision } from '../../../io/file-revision.js';
import type { SessionId } from '../../../protocol/events.js';
import { observedTitle } from '../corpus/discovery-label.js';
import type { SessionRecord, SessionTitleObservation } from '../corpus/session-query.js';
import { discoveryKeys } from './discovery-keys.js';
import type { FleetDatabase, FleetTransaction } from './fleet-database.js';
import { FLEET_SCHEMA } from './fleet-schema.js';

/** What a publisher reads of an engine (a `SessionEngine` fits): its listing and title observations. */
export interface PublishSource {
  listSessions(signal?: AbortSignal): Promise<SessionRecord[]>;
  readTitleSnapshots(sessionIds: readonly SessionId[], signal?: AbortSignal): Promise<SessionTitleObservation[]>;
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
  /** Transactions committed. */
  readonly batches: number;
}

/** Progress of one publish: artifacts written so far of those that changed (after each committed batch). */
export type PublishProgress = (done: number, total: number) => void;

/** Construction options. */
export interface CorpusPublisherOptions {
  readonly database: FleetDatabase;
  readonly identity: CorpusIdentity;
  /** The root's layout (root and encoding): where each header's artifact is, for its revision. */
  readonly layout: StoreLayout;
  /** Artifacts per transaction; default 64. */
  readonly batchSize?: number;
}

/** One artifact to write: its record, the revision read before its title, and the title. */
interface PendingArtifact {
  readonly record: SessionRecord;
  readonly revision: string;
  title?: string;
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
    this.#batchSize = options.batchSize ?? 64;
    this.corpusId = corpusIdOf(this.#identity);
  }

  /**
   * Brings the database's copy of this corpus up to date with `source`.
   * @throws FleetError from the database; the source's own errors (a listing that fails publishes nothing)
   */
  async publish(source: PublishSource, signal?: AbortSignal, onProgress?: PublishProgress): Promise<PublishSummary> {
    signal?.throwIfAborted();
    await this.#database.query(
      `INSERT INTO ${FLEET_SCHEMA}.corpora (corpus_id, host, root) VALUES ($1, $2, $3) ON CONFLICT (corpus_id) DO NOTHING`,
      [this.corpusId, this.#identity.host, this.#identity.root],
    );
    const storedRows = await this.#database.query<{ session_id: string; revision: string }>(
      `SELECT session_id, revision FROM ${FLEET_SCHEMA}.artifacts WHERE corpus_id = $1`,
      [this.corpusId],
    );
    const stored = new Map(storedRows.map((row) => [row.session_id, row.revision]));
    const records = (await source.listSessions(signal)).filter((record) => record.persisted);
    signal?.throwIfAborted();
    const pending: PendingArtifact[] = [];
    const listed = new Set<string>();
    for (const record of records) {
      listed.add(record.header.id);
      let revision: string;
      try {
        revision = revisionText(await statRevision(artifactPathFor(this.#layout, record.header.id, record.header.cwd)));
      } catch {
        // Not where its header names it (or gone since the listing): left as it is; the next publish looks again.
        continue;
      }
      if (stored.get(record.header.id) !== revision) pending.push({ record, revision });
    }
    const removed = [...stored.keys()].filter((id) => !listed.has(id));
    let batches = 0;
    for (let start = 0; start < pending.length; start += this.#batchSize) {
      const batch = pending.slice(start, start + this.#batchSize);
      // Titles are read before the transaction opens, so no lock is held across file reads.
      const observations = await source.readTitleSnapshots(
        batch.map((artifact) => artifact.record.header.id),
        signal,
      );
      const titles = new Map(observations.map((observation) => [observation.sessionId, observedTitle(observation)]));
      for (const artifact of batch) {
        const title = titles.get(artifact.record.header.id);
        if (title !== undefined) artifact.title = title;
      }
      signal?.throwIfAborted();
      await this.#database.transaction((tx) => this.#writeBatch(tx, batch, []));
      batches += 1;
      onProgress?.(Math.min(start + this.#batchSize, pending.length), pending.length);
    }
    if (removed.length > 0) {
      await this.#database.transaction((tx) => this.#writeBatch(tx, [], removed));
      batches += 1;
    }
    // The corpus's time is that of its last complete publish: what `fleet status` reports as its lag.
    await this.#database.query(`UPDATE ${FLEET_SCHEMA}.corpora SET published_at = clock_timestamp() WHERE corpus_id = $1`, [this.corpusId]);
    return {
      corpusId: this.corpusId,
      published: pending.length,
      unchanged: records.length - pending.length,
      removed: removed.length,
      batches,
    };
  }

  /** One batch: each artifact under its advisory lock, in session-id order; removals likewise. */
  async #writeBatch(tx: FleetTransaction, artifacts: readonly PendingArtifact[], removals: readonly string[]): Promise<void> {
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

/** Code-unit order: the same in every process and locale, as a lock order must be. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

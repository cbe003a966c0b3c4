/**
 * The JSONL directory store: dsh's on-disk layout, read and written (SESSION-LOG.md §9). It lists
 * headers only, inspects whole logs through the unindexed definition (§9.15), and appends batches.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { artifactFileName } from '../../protocol/storage-paths.js';
import { asSessionId } from '../../protocol/events.js';
import type { SessionEvent, SessionHeader, SessionId } from '../../protocol/events.js';
import { validateStoredSession } from '../../protocol/session-validation.js';
import { decodeArtifact } from '../../workers/decode/decode-artifact.js';
import type { DecodedArtifact } from '../../workers/decode/decode-artifact.js';
import { initZstd } from '../../workers/decode/zstd-codec.js';
import type { SessionStorage } from '../corpus/session-storage.js';
import { SessionLogError } from '../../protocol/errors.js';
import { appendBatch, batchBytes, materializeArtifact, truncateDurably } from './artifact-writer.js';
import { stableRead } from './file-revision.js';
import type { FileRevision } from './file-revision.js';
import { readListedHeader } from './header-reader.js';
import { encodingMismatchError, requestedIdMismatchError, sessionNotFoundError } from './layout-errors.js';
import { resolveJsonlStoreConfig } from './store-config.js';
import type { JsonlStoreConfig, JsonlStoreOptions } from './store-config.js';
import {
  DuplicateIdGuard,
  artifactPathFor,
  assertArtifactIdentity,
  assertSingleEncoding,
  locateArtifact,
  oppositeArtifactName,
  pathExists,
  walkSessionDirectories,
} from './store-layout.js';

/** A full inspection plus what repair and indexing need to know about the bytes. */
export interface ArtifactInspection {
  readonly path: string;
  readonly revision: FileRevision;
  readonly decoded: DecodedArtifact;
  readonly meta: SessionHeader;
  /** The balanced events: stored events, then synthetic closers (frozen). */
  readonly events: readonly SessionEvent[];
}

/** The JSONL directory store over one root and one encoding. */
export class JsonlSessionStore implements SessionStorage {
  /** The resolved configuration. */
  readonly config: JsonlStoreConfig;
  private encodingCheck: Promise<void> | undefined;
  private readonly writeQueues = new Map<string, Promise<void>>();

  private constructor(config: JsonlStoreConfig) {
    this.config = config;
  }

  /**
   * Opens a store. The root may be missing (no sessions yet); an existing root must be a
   * directory.
   */
  static async open(options: JsonlStoreOptions): Promise<JsonlSessionStore> {
    const config = resolveJsonlStoreConfig(options);
    const rootStats = await stat(config.root).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      throw error;
    });
    if (rootStats !== undefined && !rootStats.isDirectory()) {
      throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', `session store: root "${config.root}" is not a directory`);
    }
    if (config.compression === 'zstd') await initZstd();
    return new JsonlSessionStore(config);
  }

  /**
   * Every session header under the root, in directory-walk order (§9.13). Any layout or header
   * failure fails the whole listing. The encoding scan runs once per store and is memoised.
   */
  async list(signal?: AbortSignal): Promise<readonly SessionHeader[]> {
    signal?.throwIfAborted();
    this.encodingCheck ??= assertSingleEncoding(this.config);
    await this.encodingCheck;
    signal?.throwIfAborted();
    const headers: SessionHeader[] = [];
    const ids = new DuplicateIdGuard();
    for (const dir of await walkSessionDirectories(this.config.root, signal)) {
      const artifact = join(dir.sessionPath, artifactFileName(this.config.compression));
      await this.assertNoOppositeArtifact(dir.sessionPath);
      const listed = await readListedHeader(artifact, this.config.compression, signal);
      signal?.throwIfAborted();
      if (listed === undefined) continue;
      await assertArtifactIdentity(this.config, artifact, listed.record);
      const id = listed.record.id as string;
      ids.add(id);
      headers.push({ ...listed.record, id: asSessionId(id) } as unknown as SessionHeader);
    }
    return headers;
  }

  /** An opposite-encoding artifact in a session directory fails the listing (§9.13 step 4). */
  private async assertNoOppositeArtifact(sessionPath: string): Promise<void> {
    const opposite = join(sessionPath, oppositeArtifactName(this.config.compression));
    if (await pathExists(opposite)) throw encodingMismatchError(opposite, this.config.compression);
  }

  /** The artifact path of an id, or `undefined` when none exists (§9.14). */
  locate(id: SessionId, signal?: AbortSignal): Promise<string | undefined> {
    return locateArtifact(this.config, id, signal);
  }

  /** Inspects one session (§9.15): `{meta, events}` with the balanced, frozen events. */
  async inspect(id: SessionId, signal?: AbortSignal): Promise<{ meta: SessionHeader; events: readonly SessionEvent[] }> {
    const inspection = await this.inspectArtifact(id, signal);
    return { meta: inspection.meta, events: inspection.events };
  }

  /** {@link inspect} with the artifact's path, revision and decoding details. */
  async inspectArtifact(id: SessionId, signal?: AbortSignal): Promise<ArtifactInspection> {
    signal?.throwIfAborted();
    const path = await locateArtifact(this.config, id, signal);
    if (path === undefined) throw sessionNotFoundError(id);
    const { bytes, revision } = await stableRead(path, signal);
    signal?.throwIfAborted();
    const decoded = decodeArtifact(bytes, this.config.compression, path);
    const headerId = decoded.headerRecord.id;
    if (headerId !== id) throw requestedIdMismatchError(path, id, String(headerId));
    await assertArtifactIdentity(this.config, path, decoded.headerRecord);
    signal?.throwIfAborted();
    const { meta, events } = validateStoredSession({
      requestedId: id,
      header: decoded.headerRecord,
      storedEvents: decoded.events,
      path,
    });
    return { path, revision, decoded, meta, events };
  }

  /**
   * Creates a session's artifact with its header and first batch (§9.16 rule 1). Refuses when a
   * log already exists for the id.
   */
  async create(header: SessionHeader, firstBatch: readonly SessionEvent[] = []): Promise<string> {
    const path = artifactPathFor(this.config, header.id, header.cwd);
    await this.serialized(path, () => materializeArtifact(path, header, firstBatch, this.config.compression, this.config.packChunks));
    return path;
  }

  /** Appends one durable batch to an existing session (§9.16 rule 2). */
  async append(header: SessionHeader, batch: readonly SessionEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const path = artifactPathFor(this.config, header.id, header.cwd);
    const bytes = await batchBytes(batch, this.config.compression, this.config.packChunks);
    await this.serialized(path, () => appendBatch(path, bytes));
  }

  /**
   * Durable crash repair (§9.12 rule 4): truncate to the torn-tail offset, then append the
   * recovered events and the synthetic closers as one batch. Returns the number of events written
   * by the repair (0 when the log needed none).
   */
  async repair(id: SessionId): Promise<number> {
    const inspection = await this.inspectArtifact(id);
    const stored = inspection.decoded.events.length;
    const closers = inspection.events.slice(stored);
    const tail = inspection.decoded.tornTail;
    if (tail === undefined && closers.length === 0) return 0;
    const recovered = tail === undefined ? [] : (inspection.decoded.events.slice(stored - tail.recoveredEvents) as SessionEvent[]);
    const batch = [...recovered, ...closers];
    const truncateTo = tail?.truncateTo;
    await this.serialized(inspection.path, async () => {
      if (truncateTo !== undefined) await truncateDurably(inspection.path, truncateTo);
      if (batch.length > 0) await appendBatch(inspection.path, await batchBytes(batch, this.config.compression, this.config.packChunks));
    });
    return batch.length;
  }

  /** Runs writes to one file one after another, in call order. */
  private async serialized(path: string, write: () => Promise<void>): Promise<void> {
    const previous = this.writeQueues.get(path) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(write);
    this.writeQueues.set(path, next);
    try {
      await next;
    } finally {
      if (this.writeQueues.get(path) === next) this.writeQueues.delete(path);
    }
  }
}

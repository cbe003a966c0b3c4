/**
 * The JSONL directory store: dsh's on-disk layout, read and written (SESSION-LOG.md §9). It lists
 * headers only, inspects whole logs through the unindexed definition (§9.15), answers title
 * observations through the persistent title index (§10.7), and appends batches.
 *
 * Listing is tolerant by default (one damaged artifact is skipped and reported, see `tolerant-listing.ts`);
 * `listing: 'strict'` keeps dsh's all-or-nothing listing. Every file-system failure leaves as a typed
 * `SessionLogError` (`SESSION_STORE_ACCESS_DENIED`, `SESSION_STORE_NOT_A_FILE`, `SESSION_STORE_IO_FAILED`).
 */
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { artifactFileName } from '../../../protocol/storage-paths.js';
import type { SessionEvent, SessionHeader, SessionId } from '../../../protocol/events.js';
import { validateStoredSession } from '../../../protocol/session-validation.js';
import { validateSessionHeader } from '../../../protocol/session-header.js';
import { decodeArtifact } from '../../../workers/decode/decode-artifact.js';
import type { DecodedArtifact } from '../../../workers/decode/decode-artifact.js';
import { codecReadyFor } from '../../../workers/decode/zstd-codec.js';
import type { SessionInspection, SessionStorage } from '../corpus/session-storage.js';
import { TitleIndex, type TitleIndexStats } from '../corpus/title-index/title-index.js';
import type { TitleIndexFs } from '../corpus/title-index/title-index-fs.js';
import { SessionLogError } from '../../../protocol/errors.js';
import { resolveTitleIndexLocation } from '../config/cache-location.js';
import { isMissingFile, storeIoError, withStoreIo } from '../../../io/regular-file.js';
import { makeDirectoryDurable, materializeArtifact } from './artifact-writer.js';
import type { CommittedFile } from './artifact-writer.js';
import { acquireSessionLock, lockedError, LOCK_FILE_NAME } from './session-lock.js';
import type { LockOwner, SessionLock } from './session-lock.js';
import { SessionWriter } from './session-writer.js';
import { assertNoLinksBelowRoot } from './write-path.js';
import { stableRead } from '../../../io/file-revision.js';
import type { FileRevision } from '../../../io/file-revision.js';
import { readListedHeader, type ListedHeaderOutcome } from './header-reader.js';
import { ListedHeaderCache } from './listed-header-cache.js';
import type { ListingReport } from '../../../protocol/listing-problem.js';
import { settleInOrder } from './ordered-settle.js';
import { ListingProgressCounter, type ListingProgressListener } from './listing-progress.js';
import {
  alreadyMaterializedError,
  encodingMismatchError,
  existsElsewhereError,
  sessionNotFoundError,
} from '../../../protocol/layout-errors.js';
import {
  assembleTolerantListing,
  listSessionDirectory,
  listedArtifactPath,
  listedHeader,
  walkTolerant,
  type ListedSegments,
} from './tolerant-listing.js';
import { resolveJsonlStoreConfig } from './store-config.js';
import type { JsonlStoreConfig, JsonlStoreOptions } from './store-config.js';
import { artifactPathFor } from '../../../io/artifact-path.js';
import { assertArtifactIdentity, assertRequestedArtifact } from '../../../io/artifact-identity.js';
import {
  DuplicateIdGuard,
  assertSingleEncoding,
  locateArtifact,
  oppositeArtifactName,
  pathExists,
  walkSessionDirectories,
} from './store-layout.js';
import { assertNever } from '../../../protocol/assert-never.js';

/** A full inspection plus what repair and indexing need to know about the bytes. */
export interface ArtifactInspection {
  readonly path: string;
  readonly revision: FileRevision;
  readonly decoded: DecodedArtifact;
  readonly meta: SessionHeader;
  /** The balanced events: stored events, then synthetic closers (frozen). */
  readonly events: readonly SessionEvent[];
}

/**
 * Options of {@link JsonlSessionStore.open}: the store configuration plus the title index (SESSION-LOG.md §9.1,
 * §10.7). The index file is `titleIndexPath` when given, else `<cacheDirectory>/title-index/<digest of the
 * root's real path>.v1`, with `cacheDirectory` defaulting to the user cache directory `env` names
 * (`src/main/engine/config/cache-location.ts`). The index never writes into the root unless `titleIndexPath` says so.
 */
export interface JsonlSessionStoreOptions extends JsonlStoreOptions {
  /** Serve title observations from the persistent title index (default `true`); `false` inspects every log fully. */
  readonly titleIndex?: boolean;
  /** An explicit index file (resolved against the root; it may lie inside the root); must be a plain file's path. */
  readonly titleIndexPath?: string;
  /** sessionctx's cache directory, holding `title-index/` (default: the user cache directory of `env`). */
  readonly cacheDirectory?: string;
  /** The environment the default cache directory is taken from (`XDG_CACHE_HOME`, `HOME`, `LOCALAPPDATA`; default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** The file-system layer of the title index (tests count and fail its operations through it). */
  readonly titleIndexFs?: TitleIndexFs;
  /**
   * Progress of every listing of this store (session directories checked of those found), unless a call names its
   * own: how a library caller or a terminal shows a cold listing of a large root advancing.
   */
  readonly onListingProgress?: ListingProgressListener;
}

/** How many session directories a listing checks at once (header reads of new or changed artifacts overlap). */
const LISTING_CONCURRENCY = 64;

/** Records that `sessionPath`'s segment has a session directory in `projectPath`. */
function addSegment(segments: Map<string, string[]>, sessionPath: string, projectPath: string): void {
  const projects = segments.get(basename(sessionPath));
  if (projects === undefined) segments.set(basename(sessionPath), [projectPath]);
  else projects.push(projectPath);
}

/** The JSONL directory store over one root and one encoding. */
export class JsonlSessionStore implements SessionStorage {
  /** The resolved configuration. */
  readonly config: JsonlStoreConfig;
  private encodingCheck: Promise<void> | undefined;
  private readonly writeQueues = new Map<string, Promise<void>>();
  /** The writers this store holds (acquired or created and not released), by artifact path. */
  private readonly writers = new Map<string, { readonly writer: SessionWriter; readonly owner: LockOwner }>();
  private readonly titleIndex: TitleIndex | undefined;
  private listedSegments: ListedSegments | undefined;
  /**
   * Where a listing this store did not make (the warm corpus view's) found its session directories, by the header array
   * a caller hands `inspectTitle` (see {@link vouchForListing}).
   */
  private readonly vouchedSegments = new WeakMap<readonly SessionHeader[], ListedSegments | undefined>();
  /** The artifact revisions each returned listing saw, for the title lookups of the same query call. */
  private readonly listingRevisions = new WeakMap<readonly SessionHeader[], ReadonlyMap<string, FileRevision>>();
  /** Listed headers by revision; kept with the title index (with it disabled every listing reads every header, as dsh). */
  private readonly headerCache: ListedHeaderCache | undefined;
  private readonly onListingProgress: ListingProgressListener | undefined;

  private constructor(
    config: JsonlStoreConfig,
    titleIndex: TitleIndex | undefined,
    onListingProgress: ListingProgressListener | undefined,
  ) {
    this.config = config;
    this.titleIndex = titleIndex;
    this.onListingProgress = onListingProgress;
    this.headerCache =
      titleIndex === undefined ? undefined : new ListedHeaderCache((path, revision) => titleIndex.headerLineAt(path, revision));
  }

  /**
   * Opens a store. The root may be missing (no sessions yet); an existing root must be a
   * directory.
   */
  static async open(options: JsonlSessionStoreOptions): Promise<JsonlSessionStore> {
    const config = resolveJsonlStoreConfig(options);
    if (options.titleIndex !== undefined && typeof options.titleIndex !== 'boolean') {
      throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', 'session store: titleIndex must be a boolean');
    }
    if (options.titleIndexPath !== undefined && (typeof options.titleIndexPath !== 'string' || options.titleIndexPath === '')) {
      throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', 'session store: titleIndexPath must be a non-empty path');
    }
    if (options.cacheDirectory !== undefined && (typeof options.cacheDirectory !== 'string' || options.cacheDirectory === '')) {
      throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', 'session store: cacheDirectory must be a non-empty path');
    }
    if (options.env !== undefined && (typeof options.env !== 'object' || options.env === null)) {
      throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', 'session store: env must be an object of environment variables');
    }
    if (options.onListingProgress !== undefined && typeof options.onListingProgress !== 'function') {
      throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', 'session store: onListingProgress must be a function');
    }
    const rootStats = await stat(config.root).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      throw storeIoError('stat', config.root, error);
    });
    if (rootStats !== undefined && !rootStats.isDirectory()) {
      throw new SessionLogError('SESSION_STORE_INVALID_CONFIG', `session store: root "${config.root}" is not a directory`);
    }
    let titleIndex: TitleIndex | undefined;
    if (options.titleIndex !== false) {
      // Resolved once, here: the same function `sessionctx index` asks, so both name the same file.
      const location = await resolveTitleIndexLocation(config.root, {
        ...(options.titleIndexPath === undefined ? {} : { titleIndexPath: options.titleIndexPath }),
        ...(options.cacheDirectory === undefined ? {} : { cacheDirectory: options.cacheDirectory }),
        ...(options.env === undefined ? {} : { env: options.env }),
      });
      titleIndex = new TitleIndex({
        indexPath: location.indexPath,
        root: config.root,
        realRoot: location.realRoot,
        createDirectory: location.createDirectory,
        compression: config.compression,
        ...(options.titleIndexFs === undefined ? {} : { fs: options.titleIndexFs }),
      });
    }
    return new JsonlSessionStore(config, titleIndex, options.onListingProgress);
  }

  /**
   * True when the root exists (as a directory). A missing root is "no sessions" for every read (dsh); this tells a
   * caller that wants to say so apart from an empty root.
   *
   * @throws a typed store I/O error when the root cannot be checked (EACCES on a parent, …).
   */
  async rootExists(): Promise<boolean> {
    try {
      return (await stat(this.config.root)).isDirectory();
    } catch (error) {
      if (isMissingFile(error)) return false;
      throw storeIoError('stat', this.config.root, error);
    }
  }

  /**
   * Every session header under the root, in directory-walk order (§9.13): the headers of {@link listReport}.
   * Tolerant mode (the default) never fails for one artifact; strict mode fails the whole listing on any layout
   * or header failure, as dsh does.
   */
  async list(signal?: AbortSignal): Promise<readonly SessionHeader[]> {
    return (await this.listReport(signal)).headers;
  }

  /**
   * The listing with what it skipped. Tolerant mode (the default): an artifact or directory that cannot be
   * listed — a corrupt, incomplete or non-header first line or frame, a non-regular or unreadable artifact, a
   * dangling link, an opposite-encoding artifact in its session directory, a misplaced or unnameable header, a
   * flat transcript file, an unreadable project directory, and every artifact of an id found more than once
   * (none of them is listed: which one is "first" depends on directory order, and a lookup of that id fails
   * anyway) — is skipped and reported once, problems sorted by path. Only an unreadable root fails the listing.
   * Strict mode: {@link listStrict}, with no problems.
   * @param onProgress - progress of this listing (default: the store's `onListingProgress`): once the walk has found
   *   the session directories, then about every 1% of their checks, and when the last is checked
   */
  async listReport(signal?: AbortSignal, onProgress: ListingProgressListener | undefined = this.onListingProgress): Promise<ListingReport> {
    signal?.throwIfAborted();
    if (this.config.listing === 'strict') return { headers: await this.listStrict(signal, onProgress), problems: [] };
    return this.listTolerant(signal, onProgress);
  }

  /**
   * dsh's listing (§9.13): any layout or header failure fails the whole listing. The encoding scan runs once per
   * store and is memoised.
   */
  private async listStrict(
    signal: AbortSignal | undefined,
    onProgress: ListingProgressListener | undefined,
  ): Promise<readonly SessionHeader[]> {
    this.encodingCheck ??= assertSingleEncoding(this.config);
    await this.encodingCheck;
    signal?.throwIfAborted();
    const headers: SessionHeader[] = [];
    const ids = new DuplicateIdGuard();
    const directories = await walkSessionDirectories(this.config.root, signal);
    const segments = new Map<string, string[]>();
    for (const dir of directories) addSegment(segments, dir.sessionPath, dir.projectPath);
    const revisions = new Map<string, FileRevision>();
    const progress = new ListingProgressCounter(directories.length, onProgress);
    // The per-directory checks run concurrently; their outcomes are then taken in walk order, so the listing
    // fails with the error (and the duplicate) a one-by-one walk would meet first.
    const outcomes = await settleInOrder(directories, LISTING_CONCURRENCY, async (dir) => {
      const artifact = join(dir.sessionPath, artifactFileName(this.config.compression));
      await this.assertNoOppositeArtifact(dir.sessionPath);
      const listed = await this.readHeader(artifact, revisions, signal);
      signal?.throwIfAborted();
      // dsh skips a missing artifact, an incomplete header and a first line that is not a header (§9.13 step 4–5).
      if (listed.kind !== 'header') {
        progress.tick();
        return undefined;
      }
      await assertArtifactIdentity(this.config, artifact, listed.header.record);
      progress.tick();
      return listed.header.record;
    });
    signal?.throwIfAborted();
    for (const outcome of outcomes) {
      // Unreachable: settleInOrder leaves gaps only after the first failure, which is thrown before them.
      if (outcome === undefined) throw new Error('listing outcome missing before the first failure');
      if (outcome.status === 'rejected') throw outcome.reason;
      const record = outcome.value;
      if (record === undefined) continue;
      const id = record['id'] as string;
      ids.add(id);
      headers.push(listedHeader(record));
    }
    this.listedSegments = segments;
    this.listingRevisions.set(headers, revisions);
    return headers;
  }

  /** The tolerant listing of {@link listReport}. */
  private async listTolerant(signal: AbortSignal | undefined, onProgress: ListingProgressListener | undefined): Promise<ListingReport> {
    const walk = await walkTolerant(this.config.root, signal);
    const revisions = new Map<string, FileRevision>();
    const progress = new ListingProgressCounter(walk.directories.length, onProgress);
    const outcomes = await settleInOrder(walk.directories, LISTING_CONCURRENCY, async (dir) => {
      const outcome = await listSessionDirectory(this.config, dir, (artifact) => this.readHeader(artifact, revisions, signal), signal);
      progress.tick();
      return outcome;
    });
    signal?.throwIfAborted();
    const checked = walk.directories.map((_, index) => {
      const outcome = outcomes[index];
      // Unreachable: a tolerant directory check only rejects with the signal's reason (thrown above) or a defect.
      if (outcome === undefined) throw new Error('listing outcome missing before the first failure');
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    });
    const { headers, problems, segments } = await assembleTolerantListing(walk, checked);
    this.listedSegments = segments;
    this.listingRevisions.set(headers, revisions);
    return { headers, problems };
  }

  /** The header read of one listed artifact, through the header cache when there is one; records its revision. */
  private async readHeader(artifact: string, revisions: Map<string, FileRevision>, signal?: AbortSignal): Promise<ListedHeaderOutcome> {
    const cache = this.headerCache;
    if (cache === undefined) return readListedHeader(artifact, this.config.compression, signal);
    const outcome = await cache.read(artifact, this.config.compression, signal);
    const revision = cache.listedRevision(artifact);
    if (revision !== undefined) revisions.set(artifact, revision);
    return outcome;
  }

  /** An opposite-encoding artifact in a session directory fails the listing (§9.13 step 4). */
  private async assertNoOppositeArtifact(sessionPath: string): Promise<void> {
    const name = oppositeArtifactName(this.config.compression);
    const opposite = join(sessionPath, name);
    // Almost always the opposite file is absent, and a `stat` that fails builds an ENOENT error on the main thread,
    // which costs twice a `readdir` of the session directory. A listing without the name settles it; a listing
    // with it, or one that fails, is decided by `stat` exactly as before (a dangling link, a permission error).
    const entries = await readdir(sessionPath).catch(() => undefined);
    if (entries !== undefined && !entries.includes(name)) return;
    const exists = await pathExists(opposite);
    if (exists) throw encodingMismatchError(opposite, this.config.compression);
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
    await codecReadyFor(this.config.compression);
    signal?.throwIfAborted();
    const decoded = decodeArtifact(bytes, this.config.compression, path);
    await assertRequestedArtifact(this.config, id, path, decoded.headerRecord);
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
   * A title observation of one persisted session (SESSION-LOG.md §10.5 step 5, §10.7): what {@link inspect}
   * gives, reduced to what the title fold reads — the validated header and the last `session/title` event (or
   * none) — and failing exactly as {@link inspect} fails. Served by the title index when it is enabled; when
   * the index cannot answer, or is disabled, this is a full inspection.
   */
  async inspectTitle(id: SessionId, signal?: AbortSignal, listing?: readonly SessionHeader[]): Promise<SessionInspection> {
    signal?.throwIfAborted();
    const index = this.titleIndex;
    if (index === undefined) return this.inspect(id, signal);
    // R1 (§9.15): the artifact the caller's listing or this store's last listing found, else a lookup by id — one per
    // id would cost a `stat` in every project directory for each title of a listing.
    // A vouched listing answers alone: this store's own last listing may be older than it.
    const segments = listing !== undefined && this.vouchedSegments.has(listing) ? this.vouchedSegments.get(listing) : this.listedSegments;
    const listed = listedArtifactPath(segments, id, artifactFileName(this.config.compression));
    const path = listed ?? (await locateArtifact(this.config, id, signal));
    if (path === undefined) throw sessionNotFoundError(id);
    // The revision the caller's own listing saw (§10.5 step 4) answers an unchanged artifact without another `stat`;
    // a listing this store did not return, or none, means a fresh `stat` as usual.
    return this.inspectTitleAt(id, path, signal, listing === undefined ? undefined : this.listingRevisions.get(listing)?.get(path));
  }

  /**
   * Tells {@link inspectTitle} where the listing `headers` — made by the caller, not returned by this store (the warm
   * corpus view's headers) — found its session directories (`undefined`: it cannot say, every id is looked up). An id
   * whose segment it saw in exactly one project is read there, as `locateArtifact` would find it; the revision is still
   * `stat`ed, so the read stays exact.
   */
  vouchForListing(headers: readonly SessionHeader[], segments: ListedSegments | undefined): void {
    this.vouchedSegments.set(headers, segments);
  }

  /**
   * {@link inspectTitle} for a caller that keeps its own listing (the corpus view): `listedPath` is the artifact
   * that listing found for `id` — exactly what `locateArtifact` would find, or `undefined` to look the id up — and
   * `listedRevision` the revision the listing saw it at (`undefined`: `stat` it). Fails exactly as
   * {@link inspect} fails.
   */
  async inspectTitleAt(
    id: SessionId,
    listedPath: string | undefined,
    signal?: AbortSignal,
    listedRevision?: FileRevision,
  ): Promise<SessionInspection> {
    signal?.throwIfAborted();
    const index = this.titleIndex;
    if (index === undefined) return this.inspect(id, signal);
    const path = listedPath ?? (await locateArtifact(this.config, id, signal));
    if (path === undefined) throw sessionNotFoundError(id);
    const observed = await index.observe(path, signal, listedPath === undefined ? undefined : listedRevision);
    signal?.throwIfAborted();
    if (observed === undefined) return this.inspect(id, signal);
    switch (observed.kind) {
      case 'read-failed':
        throw observed.error;
      case 'checked': {
        // R4 (§9.5) depends on the requested id and the file system, so it runs here on every observation.
        await assertRequestedArtifact(this.config, id, path, observed.headerRecord);
        signal?.throwIfAborted();
        if (observed.failure !== undefined) throw observed.failure;
        const meta = validateSessionHeader(observed.headerRecord, id);
        return { meta, events: observed.titleEvent === undefined ? [] : [observed.titleEvent as SessionEvent] };
      }
      default:
        assertNever(observed, 'unknown title observation');
    }
  }

  /** How many listed headers were answered from the header cache (`undefined` when the title index is disabled). */
  get listedHeaderCacheHits(): number | undefined {
    return this.headerCache?.hits;
  }

  /** How many listed headers were recalled from the title index instead of read (`undefined` without the index). */
  get listedHeaderIndexHits(): number | undefined {
    return this.headerCache?.indexHits;
  }

  /** Counters of the title index (`undefined` when it is disabled). */
  get titleIndexStats(): TitleIndexStats | undefined {
    return this.titleIndex?.stats;
  }

  /** The title index file (`undefined` when the index is disabled or kept in memory only). */
  get titleIndexPath(): string | undefined {
    return this.titleIndex?.indexPath;
  }

  /** Why the title index is not persisted, when it is not (a debug-level note; never printed by the store). */
  get titleIndexNote(): string | undefined {
    return this.titleIndex?.persistenceNote;
  }

  /**
   * Writes pending title index changes to its file (they are also written on their own, shortly after), pruning
   * the entries of artifacts that no longer exist.
   */
  async flushTitleIndex(): Promise<void> {
    await this.titleIndex?.flush();
  }

  /** Writes pending title index changes now, without pruning, and resolves when no write is pending (engine close). */
  async settleTitleIndex(): Promise<void> {
    await this.titleIndex?.settle();
  }

  /**
   * Creates a session's artifact with its header and first batch (§9.16 rule 1), holding the session's lock while
   * it writes. Refuses (`SESSION_STORE_EXISTS`) when a log of the id exists anywhere under the root,
   * `SESSION_STORE_LOCKED` when another writer holds the session, `SESSION_STORE_INVALID_PATH` for an over-long id or
   * cwd or a symbolic link under the root.
   */
  async create(header: SessionHeader, firstBatch: readonly SessionEvent[] = []): Promise<string> {
    const writer = await this.createWriter(header, firstBatch);
    await writer.release();
    return writer.path;
  }

  /**
   * {@link create}, keeping the session's writer (and its lock) for later appends: release it when done.
   *
   * @throws SessionLogError as {@link create}; `SESSION_LOG_INVALID_APPEND` when the first batch's seqs do not
   *   start at 0 or are not contiguous.
   */
  async createWriter(header: SessionHeader, firstBatch: readonly SessionEvent[] = []): Promise<SessionWriter> {
    const path = artifactPathFor(this.config, header.id, header.cwd);
    firstBatch.forEach((event, index) => {
      if (event.seq !== index) {
        throw new SessionLogError(
          'SESSION_LOG_INVALID_APPEND',
          `refusing to materialize "${header.id}": the first batch's seqs must be 0, 1, 2, … (event ${index} has seq ${String(event.seq)})`,
        );
      }
    });
    let writer: SessionWriter | undefined;
    await this.serialized(path, async () => {
      await this.assertNotExisting(header.id, path);
      await assertNoLinksBelowRoot(this.config.root, path);
      await withStoreIo('create', dirname(path), () => makeDirectoryDurable(dirname(path)));
      const lock = await this.lockFor(path, header.id);
      try {
        // Again under the lock: another writer may have created it meanwhile, here or under another cwd.
        await assertNoLinksBelowRoot(this.config.root, path);
        await this.assertNotExisting(header.id, path);
        const file = await withStoreIo('create', path, () =>
          materializeArtifact(path, header, firstBatch, this.config.compression, this.config.packChunks),
        );
        writer = this.newWriter(header.id, path, lock, { file, nextSeq: firstBatch.length });
      } catch (error) {
        await lock.release();
        throw error;
      }
    });
    // Unreachable: the serialized step either set the writer or threw.
    if (writer === undefined) throw new Error('createWriter finished without a writer');
    return writer;
  }

  /**
   * The writer of an existing session: takes its lock (breaking a stale one, §9.16 rule 4) and verifies the log
   * (its size, identity, next seq and whether it has a torn tail). Hold it for as long as the session is written
   * (a host session's life) and release it when done; readers never need it.
   *
   * @throws SessionLogError `SESSION_QUERY_SESSION_NOT_FOUND`; `SESSION_STORE_LOCKED` naming the holder (also when
   *   this store already holds the session's writer); `SESSION_STORE_INVALID_PATH` for a link under the root; the
   *   log's corruption or I/O error.
   */
  async acquireWriter(id: SessionId): Promise<SessionWriter> {
    const path = await locateArtifact(this.config, id);
    if (path === undefined) throw sessionNotFoundError(id);
    const held = this.writers.get(path);
    if (held !== undefined) throw lockedError(id, join(dirname(path), LOCK_FILE_NAME), held.owner);
    return this.openWriter(id, path, true);
  }

  /**
   * Appends one durable batch to an existing session (§9.16 rules 2, 5, 6): through this store's held writer of the
   * session when there is one, else under the session's lock for this call (which first reads the log to verify
   * it). Nothing is written when a check fails: `SESSION_STORE_LOCKED`, `SESSION_STORE_CONFLICT` (the batch's first
   * seq is not the log's next seq, or the file changed), `SESSION_STORE_TORN_TAIL` (repair first).
   */
  async append(header: SessionHeader, batch: readonly SessionEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const path = artifactPathFor(this.config, header.id, header.cwd);
    const held = this.writers.get(path);
    if (held !== undefined) {
      await held.writer.append(batch);
      return;
    }
    await this.serialized(path, async () => {
      // A missing log is the append's own I/O failure (ENOENT), not a lock that could not be placed beside it.
      await withStoreIo('append to', path, () => lstat(path));
      const writer = await this.openWriter(header.id, path, false);
      try {
        await writer.append(batch);
      } finally {
        await writer.release();
      }
    });
  }

  /**
   * Durable crash repair (§9.12 rule 4) under the session's lock: truncate to the torn-tail offset (verified under
   * the lock to be past the last complete record), then append the recovered events and the synthetic closers as
   * one batch. Returns the number of events written by the repair (0 when the log needed none).
   */
  async repair(id: SessionId): Promise<number> {
    const path = await locateArtifact(this.config, id);
    if (path === undefined) throw sessionNotFoundError(id);
    const held = this.writers.get(path);
    if (held !== undefined) return held.writer.repair();
    let written = 0;
    await this.serialized(path, async () => {
      const writer = await this.openWriter(id, path, false);
      try {
        written = await writer.repair();
      } finally {
        await writer.release();
      }
    });
    return written;
  }

  /** Fails when a log of `id` exists anywhere under the root (`path`: where this create would put it). */
  private async assertNotExisting(id: SessionId, path: string): Promise<void> {
    const existing = await locateArtifact(this.config, id);
    if (existing !== undefined) throw existing === path ? alreadyMaterializedError(id) : existsElsewhereError(id, existing);
  }

  private async lockFor(path: string, id: SessionId): Promise<SessionLock> {
    return acquireSessionLock(dirname(path), id);
  }

  /**
   * Takes the lock of an existing artifact and builds its writer. A `held` writer (from {@link acquireWriter}) is
   * verified now and serves this store's `append`/`repair` of the session until released; a per-call one verifies
   * the log at its first append (its repair inspects the log itself) and serves only its own call.
   */
  private async openWriter(id: SessionId, path: string, held: boolean): Promise<SessionWriter> {
    await assertNoLinksBelowRoot(this.config.root, path);
    const lock = await this.lockFor(path, id);
    const writer = this.newWriter(id, path, lock, undefined, held);
    if (held) {
      try {
        await writer.verify();
      } catch (error) {
        await writer.release();
        throw error;
      }
    }
    return writer;
  }

  /** A writer over a taken lock; `held` ones are registered so this store's per-call writes go through them. */
  private newWriter(
    id: SessionId,
    path: string,
    lock: SessionLock,
    created: { file: CommittedFile; nextSeq: number } | undefined,
    held = true,
  ): SessionWriter {
    const writer: SessionWriter = new SessionWriter({
      config: this.config,
      id,
      path,
      lock,
      ...(created === undefined ? {} : { created }),
      inspect: () => this.inspectArtifact(id),
      onRelease: () => {
        if (this.writers.get(path)?.writer === writer) this.writers.delete(path);
      },
    });
    if (held) this.writers.set(path, { writer, owner: lock.owner });
    return writer;
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

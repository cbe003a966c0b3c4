/**
 * The warm corpus view (issue 15, item 1): a long-lived engine's in-memory copy of the tolerant listing of one
 * JSONL root — every project directory, every session directory's check (SESSION-LOG.md §9.13 steps 3–6) and
 * the assembled listing — kept current from change notifications (`root-watcher.ts`) and re-validated by `stat`.
 *
 * Equality with a cold listing: the view runs the store's own steps (`walkProject`, `listSessionDirectory`,
 * `assembleTolerantListing`), only fewer of them — a directory is walked or checked again when a notification
 * or the sweep says it may have changed, and a snapshot is assembled from the per-directory results in walk
 * order, exactly as the store assembles its listing.
 *
 * Staleness bound (`revalidateMs`, validated in `corpus-view-config.ts`): a background sweep, every
 * `revalidateMs / 2`, `stat`s the root, every project and session directory and every read artifact, and marks
 * what differs from what the view last read (device, inode, size, mtime, ctime in nanoseconds). A snapshot is
 * served only while the last completed sweep *started* at most `revalidateMs` ago; otherwise the call sweeps
 * first. So a change made before time `t` whose notification was lost is in every snapshot served after
 * `t + revalidateMs`. Notifications make the common case immediate: a call first yields one event-loop turn so
 * that notifications already queued by the kernel are delivered, then re-reads what they named.
 *
 * The residual risk is the header cache's (`listed-header-cache.ts`): an in-place rewrite of the same size within
 * one timestamp tick, with its notification lost, is not seen.
 */
import { statPath } from '../../../io/callback-fs.js';
import { join } from 'node:path';
import type { SessionHeader } from '../../../protocol/events.js';
import { artifactFileName } from '../../../protocol/storage-paths.js';
import { revisionOf, sameRevision, type FileRevision } from '../../../io/file-revision.js';
import { assertNever } from '../../../protocol/assert-never.js';
import { ListedHeaderCache } from '../store/listed-header-cache.js';
import type { ListingProblem } from '../../../protocol/listing-problem.js';
import { settleInOrder } from '../store/ordered-settle.js';
import { ListingProgressCounter, type ListingProgressListener } from '../store/listing-progress.js';
import { readDirectory, type SessionDirectory } from '../store/store-layout.js';
import type { JsonlStoreConfig } from '../store/store-config.js';
import {
  assembleTolerantListing,
  listedArtifactPath,
  listedHeader,
  listSessionDirectory,
  walkProject,
  type DirectoryListing,
  type ListedSegments,
  type ProjectWalk,
} from '../store/tolerant-listing.js';
import { RootWatcher, type ChangedPath, type WatchStrategy } from './root-watcher.js';
import { CHEAP_STEP_CLOCK_EVERY, TimeSlice } from '../../../io/time-slice.js';
import { yieldToEventLoop } from '../../../io/yield-to-event-loop.js';
import { CorpusChangeLog } from './corpus-change-log.js';

/** How a call's persisted listing was obtained, from cheapest to dearest. */
export type DiscoveryServed = 'warm' | 'incremental' | 'revalidated' | 'cold';

const SERVED_RANK: Readonly<Record<DiscoveryServed, number>> = { warm: 0, incremental: 1, revalidated: 2, cold: 3 };

/** The dearer of two ways a call was served (a call that lists twice reports the dearer one). */
export function dearerServed(a: DiscoveryServed, b: DiscoveryServed): DiscoveryServed {
  return SERVED_RANK[a] >= SERVED_RANK[b] ? a : b;
}

/** One checked session directory. A new object whenever it is checked again, so its identity keys derived caches. */
export interface ViewSessionEntry {
  readonly dir: SessionDirectory;
  /** The directory's revision, taken before its check (`undefined`: it could not be stat'ed). */
  readonly stamp: FileRevision | undefined;
  readonly outcome: DirectoryListing;
  /** The artifact's revision when its header was read (`undefined`: not read, or not stat'able). */
  readonly artifactRevision: FileRevision | undefined;
  /** Whether the check read the artifact (its revision is then compared by the sweep). */
  readonly artifactRead: boolean;
}

interface ProjectEntry {
  readonly path: string;
  readonly stamp: FileRevision | undefined;
  readonly walk: ProjectWalk;
  /** By session directory name, in walk order. */
  readonly sessions: Map<string, ViewSessionEntry>;
}

/** An assembled listing with what discovery derives from it. Immutable; a new one after every change. */
export interface CorpusSnapshot {
  /** The listed headers in walk order (what the store's `list()` would return). */
  readonly headers: readonly SessionHeader[];
  /** The listing problems, sorted by path, frozen. */
  readonly problems: readonly ListingProblem[];
  /** Listed header by id. */
  readonly headerById: ReadonlyMap<string, SessionHeader>;
  /** The checked directory each listed id came from. */
  readonly entryById: ReadonlyMap<string, ViewSessionEntry>;
  /**
   * Where the listing found each segment (`undefined`: lookups may not answer from it). The same object from one
   * snapshot to the next while its content does not change.
   */
  readonly segments: ListedSegments | undefined;
}

/** Counters, for tests, benchmarks and a host's metrics. */
export interface CorpusViewStats {
  /** Full builds (the first call, a replaced or reappeared root). */
  readonly builds: number;
  /** Incremental refreshes, and the session directories they checked again. */
  readonly refreshes: number;
  readonly rechecked: number;
  /** Completed sweeps (background and inline). */
  readonly sweeps: number;
  /** Notifications received. */
  readonly notifications: number;
  /** Directories watched now, and watches that failed. */
  readonly watched: number;
  readonly watchFailures: number;
}

/** Construction options of {@link CorpusView}. */
export interface CorpusViewOptions {
  readonly config: JsonlStoreConfig;
  /** The staleness bound (validated by `resolveCorpusViewConfig`). */
  readonly revalidateMs: number;
  /** Default: the platform's (`defaultWatchStrategy`). */
  readonly watchStrategy?: WatchStrategy;
  /** Tests only: drop every notification (the sweep alone keeps the view correct). */
  readonly ignoreNotifications?: boolean;
  /**
   * Progress of each full build (the first call's cold listing, a replaced root): session directories checked of
   * those the walk found, as the store's listing reports them.
   */
  readonly onProgress?: ListingProgressListener;
  /** How many changed session ids {@link CorpusView.changesBetween} can answer for (default `DEFAULT_CHANGE_LOG_LIMIT`). */
  readonly changeLogLimit?: number;
}

/** How many directories a build or a sweep handles at once (the store's listing concurrency). */
const CONCURRENCY = 64;
/**
 * Notifications are coalesced: a background refresh runs once none has arrived for this long (a burst of appends,
 * one notification each, costs one refresh, not one per append) ...
 */
const REFRESH_QUIET_MS = 20;
/** ... or this long after the first of a burst that never pauses. A call never waits for it: it refreshes itself. */
const REFRESH_MAX_DELAY_MS = 200;

/** The revision of `path`, or `undefined` when it cannot be stat'ed (missing, refused: the check then says why). */
async function stampOf(path: string): Promise<FileRevision | undefined> {
  try {
    return revisionOf(await statPath(path, { bigint: true }));
  } catch {
    // Missing or unreachable: recorded as "no revision"; the directory's own check reports what is wrong.
    return undefined;
  }
}

/** True when two segment maps say the same (both absent, or the same segments in the same project directories). */
function sameSegments(a: ListedSegments | undefined, b: ListedSegments | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.size !== b.size) return false;
  for (const [segment, projects] of a) {
    const other = b.get(segment);
    if (other === undefined || other.length !== projects.length) return false;
    for (let index = 0; index < projects.length; index += 1) if (other[index] !== projects[index]) return false;
  }
  return true;
}

function sameStamp(a: FileRevision | undefined, b: FileRevision | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameRevision(a, b);
}

const EMPTY_SNAPSHOT: CorpusSnapshot = Object.freeze({
  headers: Object.freeze([]) as readonly SessionHeader[],
  problems: Object.freeze([]) as readonly ListingProblem[],
  headerById: new Map(),
  entryById: new Map(),
  segments: new Map(),
});

/** The warm listing of one root; see the module comment. */
export class CorpusView {
  readonly #config: JsonlStoreConfig;
  readonly #revalidateMs: number;
  readonly #artifactName: string;
  readonly #headers = new ListedHeaderCache();
  readonly #watcher: RootWatcher;
  readonly #ignoreNotifications: boolean;
  readonly #onProgress: ListingProgressListener | undefined;
  /** `undefined` while the root is missing (or before the first build). */
  #rootStamp: FileRevision | undefined;
  #projects = new Map<string, ProjectEntry | undefined>();
  #snapshot: CorpusSnapshot = EMPTY_SNAPSHOT;
  #full = true;
  #rootDirty = false;
  readonly #dirtyProjects = new Set<string>();
  /** `project\0session`. */
  readonly #dirtySessions = new Set<string>();
  /** Start time (performance.now) of the last completed validation (a build or a sweep). */
  #validatedAt = Number.NEGATIVE_INFINITY;
  #queue: Promise<unknown> = Promise.resolve();
  #sweepRun: Promise<void> | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;
  /**
   * The header of each listed record: an unchanged session's check keeps its record, so it keeps its header
   * object across refreshes, and what discovery caches per header (its lower-cased search keys) survives them.
   */
  readonly #headerObjects = new WeakMap<Record<string, unknown>, SessionHeader>();
  readonly #headerOf = (record: Record<string, unknown>): SessionHeader => {
    let header = this.#headerObjects.get(record);
    if (header === undefined) {
      header = listedHeader(record);
      this.#headerObjects.set(record, header);
    }
    return header;
  };
  /** When the first notification of the pending burst arrived (`performance.now()`). */
  #burstStartedAt = 0;
  #closed = false;
  #onBackgroundRefresh: ((snapshot: CorpusSnapshot) => void) | undefined;
  readonly #changeListeners = new Set<() => void>();
  #stats = { builds: 0, refreshes: 0, rechecked: 0, sweeps: 0, notifications: 0 };
  /** The ids each assembled snapshot may have changed, and each snapshot's revision in it. */
  readonly #changes: CorpusChangeLog;
  readonly #revisions = new WeakMap<object, number>();

  constructor(options: CorpusViewOptions) {
    this.#config = options.config;
    this.#revalidateMs = options.revalidateMs;
    this.#artifactName = artifactFileName(options.config.compression);
    this.#ignoreNotifications = options.ignoreNotifications ?? false;
    this.#onProgress = options.onProgress;
    this.#changes = new CorpusChangeLog(options.changeLogLimit);
    this.#watcher = new RootWatcher({
      root: options.config.root,
      ...(options.watchStrategy === undefined ? {} : { strategy: options.watchStrategy }),
      onChange: (changed) => this.#notified(changed),
    });
  }

  /** Counters since construction. */
  get stats(): CorpusViewStats {
    return { ...this.#stats, watched: this.#watcher.watched, watchFailures: this.#watcher.failures };
  }

  /** The artifact path a title lookup may use for `id` (what `locateArtifact` finds), or `undefined` when unsure. */
  static listedPath(snapshot: CorpusSnapshot, id: string, artifactName: string): string | undefined {
    return listedArtifactPath(snapshot.segments, id, artifactName);
  }

  /**
   * The session ids whose listed header or artifact may differ between two snapshots of this view — every id a
   * notification, the sweep or a re-listed root made the view check again, as it was listed before and after — or
   * `undefined` when that is unknown: a full build between them (the first one, a replaced root), more changes than
   * the change log keeps, `older` not a snapshot of this view, or not older. An id absent from `newer.headerById`
   * is no longer listed.
   */
  changesBetween(older: object, newer: CorpusSnapshot): ReadonlySet<string> | undefined {
    const from = this.#revisions.get(older);
    const to = this.#revisions.get(newer);
    return from === undefined || to === undefined ? undefined : this.#changes.between(from, to);
  }

  /** The artifact file name of this root's encoding. */
  get artifactName(): string {
    return this.#artifactName;
  }

  /**
   * A snapshot current up to the staleness bound, and how it was obtained. Rejects with the store's typed error
   * when the root cannot be read (the caller then runs the cold listing, which fails the same way); the next call
   * builds again.
   */
  async current(): Promise<{ readonly snapshot: CorpusSnapshot; readonly served: DiscoveryServed; readonly rechecked: number }> {
    if (this.#closed) throw new Error('corpus view is closed');
    // Deliver notifications the kernel has already queued (an append that finished just before this call).
    await yieldToEventLoop();
    return this.#serialized(async () => {
      if (this.#full) return { snapshot: await this.#build(), served: 'cold' as const, rechecked: 0 };
      let served: DiscoveryServed = 'warm';
      if (this.#rootStamp === undefined) {
        // A missing root cannot be watched: look for it on every call (one stat).
        if ((await stampOf(this.#config.root)) !== undefined)
          return { snapshot: await this.#build(), served: 'cold' as const, rechecked: 0 };
      }
      if (this.#revalidateMs === 0 || performance.now() - this.#validatedAt > this.#revalidateMs) {
        await this.#sweep();
        served = 'revalidated';
      }
      if (this.#full) return { snapshot: await this.#build(), served: 'cold' as const, rechecked: 0 };
      const rechecked = await this.#refresh();
      if (this.#full) return { snapshot: await this.#build(), served: 'cold' as const, rechecked: 0 };
      return { snapshot: this.#snapshot, served: rechecked > 0 ? dearerServed(served, 'incremental') : served, rechecked };
    });
  }

  /**
   * Registers what to call after a refresh that notifications started in the background (not one a call ran):
   * the title cache re-observes what changed, so the next keystroke does not have to.
   */
  setBackgroundRefreshListener(listener: ((snapshot: CorpusSnapshot) => void) | undefined): void {
    this.#onBackgroundRefresh = listener;
  }

  /**
   * Registers a listener for changes below the root that notifications reported (a new, removed or written session
   * or project), called once per coalesced burst, after the view has taken the changes in where it could. What an
   * MCP server needs to send `notifications/resources/list_changed`. Changes that only the `stat` sweep finds (a lost
   * notification) are not announced.
   * @param listener - called with no arguments; it must not throw
   * @returns a function that removes the listener
   */
  onChange(listener: () => void): () => void {
    this.#changeListeners.add(listener);
    return () => {
      this.#changeListeners.delete(listener);
    };
  }

  /** Stops the sweep and every watch, and waits for work in flight. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    if (this.#refreshTimer !== undefined) clearTimeout(this.#refreshTimer);
    this.#sweepTimer = undefined;
    this.#refreshTimer = undefined;
    await this.#watcher.close();
    await this.#queue.catch(() => undefined);
    await this.#sweepRun;
    await this.#watcher.close();
  }

  /** Runs view updates one after another (a failed one does not block the next). */
  #serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.catch(() => undefined).then(work);
    this.#queue = next;
    return next;
  }

  /** A notification: mark what it names; a coalesced background refresh follows. */
  #notified(changed: ChangedPath): void {
    if (this.#ignoreNotifications || this.#closed) return;
    this.#stats.notifications += 1;
    const [project, session] = changed;
    if (project === undefined) {
      this.#full = true;
    } else if (session === undefined) {
      this.#rootDirty = true;
      this.#dirtyProjects.add(project);
    } else {
      // A project directory the view does not hold yet: the root's own notification may still be on its way.
      if (!this.#projects.has(project)) this.#rootDirty = true;
      if (changed.length === 2 || !this.#projects.has(project)) this.#dirtyProjects.add(project);
      this.#dirtySessions.add(`${project}\u0000${session}`);
    }
    this.#scheduleRefresh();
  }

  /** Starts (or pushes back, within the burst's maximum delay) the coalesced background refresh of what is marked. */
  #scheduleRefresh(): void {
    const now = performance.now();
    if (this.#refreshTimer === undefined) this.#burstStartedAt = now;
    else clearTimeout(this.#refreshTimer);
    const delay = Math.max(0, Math.min(REFRESH_QUIET_MS, this.#burstStartedAt + REFRESH_MAX_DELAY_MS - now));
    this.#refreshTimer = setTimeout(() => this.#backgroundRefresh(), delay);
    this.#refreshTimer.unref();
  }

  /** The coalesced refresh after a burst of notifications, then the change listeners. */
  #backgroundRefresh(): void {
    this.#refreshTimer = undefined;
    if (this.#closed) return;
    void this.#serialized(async () => {
      if (this.#full || this.#closed) return;
      if ((await this.#refresh()) > 0 && !this.#full) this.#onBackgroundRefresh?.(this.#snapshot);
    })
      .catch(() => {
        // A background refresh that fails (the root became unreadable) leaves its marks: the next call retries
        // and reports the failure itself.
      })
      .finally(() => {
        if (this.#closed) return;
        for (const listener of this.#changeListeners) listener();
      });
  }

  /** Reads the whole root again (cold), replacing every watch. */
  async #build(): Promise<CorpusSnapshot> {
    const started = performance.now();
    // Whatever the view held is replaced: the next snapshot may differ in anything.
    this.#changes.touchAll();
    this.#full = false;
    this.#rootDirty = false;
    this.#dirtyProjects.clear();
    this.#dirtySessions.clear();
    this.#watcher.unwatch([]);
    this.#projects = new Map();
    try {
      this.#rootStamp = await stampOf(this.#config.root);
      if (this.#rootStamp !== undefined) this.#watcher.watch([], this.#rootStamp.ino);
      const names = (await readDirectory(this.#config.root)).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
      // Every project is walked before any session is checked, so the progress of the checks has its total.
      const walked = await settleInOrder(names, 4, (name) => this.#walkProject(name));
      const walks = walked.map((outcome) => {
        if (outcome === undefined || outcome.status === 'rejected') throw outcome?.reason;
        return outcome.value;
      });
      const progress = new ListingProgressCounter(
        walks.reduce((sum, walk) => sum + walk.walk.directories.length, 0),
        this.#onProgress,
      );
      const loaded = await settleInOrder(
        names.map((name, index) => ({ name, walked: walks[index] })),
        4,
        ({ name, walked: walk }) => this.#loadProject(name, undefined, walk, progress),
      );
      names.forEach((name, index) => {
        const outcome = loaded[index];
        if (outcome === undefined) return;
        if (outcome.status === 'rejected') throw outcome.reason;
        this.#projects.set(name, outcome.value);
      });
    } catch (error) {
      this.#full = true;
      throw error;
    }
    this.#stats.builds += 1;
    this.#validatedAt = started;
    this.#startSweeps();
    this.#snapshot = await this.#assemble();
    return this.#snapshot;
  }

  /** Stamps, watches and walks one project directory (its stamp taken before the walk, so the sweep sees later changes). */
  async #walkProject(name: string): Promise<{ readonly stamp: FileRevision | undefined; readonly walk: ProjectWalk }> {
    const path = join(this.#config.root, name);
    const stamp = await stampOf(path);
    if (stamp !== undefined) this.#watcher.watch([name], stamp.ino);
    return { stamp, walk: await walkProject(path) };
  }

  /** Walks one project directory (or takes its walk from `walked`), reusing the checks of `previous` that are not marked. */
  async #loadProject(
    name: string,
    previous: ProjectEntry | undefined,
    walked?: { readonly stamp: FileRevision | undefined; readonly walk: ProjectWalk },
    progress?: ListingProgressCounter,
  ): Promise<ProjectEntry> {
    const path = join(this.#config.root, name);
    const { stamp, walk } = walked ?? (await this.#walkProject(name));
    const sessions = new Map<string, ViewSessionEntry>();
    const names = walk.directories.map((dir) => dir.sessionPath.slice(path.length + 1));
    const checked = await settleInOrder(walk.directories, CONCURRENCY, async (dir) => {
      const session = dir.sessionPath.slice(path.length + 1);
      const key = `${name}\u0000${session}`;
      const kept = previous?.sessions.get(session);
      if (kept !== undefined && !this.#dirtySessions.has(key)) return kept;
      this.#dirtySessions.delete(key);
      const entry = await this.#checkSession(name, dir);
      this.#touchEntry(kept);
      this.#touchEntry(entry);
      progress?.tick();
      return entry;
    });
    names.forEach((session, index) => {
      const outcome = checked[index];
      if (outcome === undefined) return;
      if (outcome.status === 'rejected') throw outcome.reason;
      sessions.set(session, outcome.value);
    });
    if (previous !== undefined) {
      for (const [session, entry] of previous.sessions) {
        if (sessions.has(session)) continue;
        this.#watcher.unwatch([name, session]);
        this.#touchEntry(entry);
      }
    }
    return { path, stamp, walk, sessions };
  }

  /** Checks one session directory as the listing does, recording the revisions the sweep compares. */
  async #checkSession(project: string, dir: SessionDirectory): Promise<ViewSessionEntry> {
    this.#stats.rechecked += 1;
    const session = dir.sessionPath.slice(dir.projectPath.length + 1);
    const stamp = await stampOf(dir.sessionPath);
    if (stamp !== undefined) this.#watcher.watch([project, session], stamp.ino);
    let artifactRead = false;
    let artifactRevision: FileRevision | undefined;
    const outcome = await listSessionDirectory(
      this.#config,
      dir,
      async (artifact) => {
        artifactRead = true;
        const listed = await this.#headers.read(artifact, this.#config.compression);
        artifactRevision = this.#headers.listedRevision(artifact);
        return listed;
      },
      undefined,
    );
    return { dir, stamp, outcome, artifactRevision, artifactRead };
  }

  /** Re-reads what is marked; returns how many session directories were checked again. */
  async #refresh(): Promise<number> {
    if (!this.#rootDirty && this.#dirtyProjects.size === 0 && this.#dirtySessions.size === 0) return 0;
    const before = this.#stats.rechecked;
    if (this.#rootDirty) {
      this.#rootDirty = false;
      const stamp = await stampOf(this.#config.root);
      const previous = this.#rootStamp;
      if (stamp === undefined || previous === undefined || stamp.dev !== previous.dev || stamp.ino !== previous.ino) {
        // The root vanished, appeared or was replaced: its watches name the old directories.
        if (stamp === undefined && previous === undefined) return 0;
        this.#full = true;
        return 0;
      }
      this.#rootStamp = stamp;
      const names = (await readDirectory(this.#config.root)).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
      const projects = new Map<string, ProjectEntry>();
      for (const name of names) {
        const kept = this.#projects.get(name);
        if (kept === undefined) this.#dirtyProjects.add(name);
        else projects.set(name, kept);
      }
      for (const [name, project] of this.#projects) {
        if (projects.has(name)) continue;
        // A project gone from the root: every session it listed may be gone.
        for (const entry of project?.sessions.values() ?? []) this.#touchEntry(entry);
        if (!this.#dirtyProjects.has(name)) this.#watcher.unwatch([name]);
      }
      // Placeholders keep root order; marked projects are walked below.
      this.#projects = new Map(names.map((name) => [name, projects.get(name)]));
    }
    const dirtyProjects = [...this.#dirtyProjects];
    this.#dirtyProjects.clear();
    for (const name of dirtyProjects) {
      if (!this.#projects.has(name)) {
        // Not (or no longer) a project directory of the root.
        this.#watcher.unwatch([name]);
        continue;
      }
      this.#projects.set(name, await this.#loadProject(name, this.#projects.get(name)));
    }
    const dirtySessions = [...this.#dirtySessions];
    this.#dirtySessions.clear();
    for (const key of dirtySessions) {
      const [project, session] = key.split('\u0000') as [string, string];
      const entry = this.#projects.get(project);
      if (entry === undefined) continue;
      const kept = entry.sessions.get(session);
      if (kept === undefined) {
        // A session directory the project's walk did not list: the walk itself may be stale.
        this.#projects.set(project, await this.#loadProject(project, entry));
        continue;
      }
      const checked = await this.#checkSession(project, kept.dir);
      entry.sessions.set(session, checked);
      this.#touchEntry(kept);
      this.#touchEntry(checked);
    }
    this.#stats.refreshes += 1;
    this.#snapshot = await this.#assemble();
    return this.#stats.rechecked - before;
  }

  /** Notes in the change log the id a checked directory listed (nothing for one that listed no session). */
  #touchEntry(entry: ViewSessionEntry | undefined): void {
    if (entry?.outcome.kind === 'listed') this.#changes.touch(entry.outcome.record['id'] as string);
  }

  /** Puts the per-directory results together in walk order, as the store does, as the change log's next revision. */
  async #assemble(): Promise<CorpusSnapshot> {
    const snapshot = await this.#assembleListing();
    this.#revisions.set(snapshot, this.#changes.commit());
    return snapshot;
  }

  async #assembleListing(): Promise<CorpusSnapshot> {
    // In time slices (issue 27 item 6): every step below is one per session; the serialized chain holds other
    // operations on the view off meanwhile, so nothing it reads changes between two slices.
    const slice = new TimeSlice({ clockEvery: CHEAP_STEP_CLOCK_EVERY });
    const directories: SessionDirectory[] = [];
    const outcomes: DirectoryListing[] = [];
    const entries: ViewSessionEntry[] = [];
    const problems: ListingProblem[] = [];
    const flatSegments = new Set<string>();
    let complete = true;
    for (const project of this.#projects.values()) {
      if (project === undefined) continue;
      problems.push(...project.walk.problems);
      for (const segment of project.walk.flatSegments) flatSegments.add(segment);
      if (!project.walk.readable) complete = false;
      for (const entry of project.sessions.values()) {
        if (slice.due()) await slice.hop();
        directories.push(entry.dir);
        outcomes.push(entry.outcome);
        entries.push(entry);
      }
    }
    const assembled = await assembleTolerantListing({ directories, problems, flatSegments, complete }, outcomes, this.#headerOf, slice);
    const headerById = new Map<string, SessionHeader>();
    for (const header of assembled.headers) {
      if (slice.due()) await slice.hop();
      headerById.set(header.id, header);
    }
    const entryById = new Map<string, ViewSessionEntry>();
    for (const entry of entries) {
      if (slice.due()) await slice.hop();
      if (entry.outcome.kind !== 'listed') continue;
      const id = entry.outcome.record['id'] as string;
      if (headerById.has(id)) entryById.set(id, entry);
    }
    for (const problem of assembled.problems) Object.freeze(problem);
    return Object.freeze({
      headers: Object.freeze(assembled.headers),
      problems: Object.freeze(assembled.problems),
      headerById,
      entryById,
      // Kept as the same object while its content is unchanged, so its identity can key caches (title lookups
      // depend on where each segment was found).
      segments: sameSegments(this.#snapshot.segments, assembled.segments) ? this.#snapshot.segments : assembled.segments,
    });
  }

  /** Starts the background sweep (once), every `revalidateMs / 2`; never keeps the process alive. */
  #startSweeps(): void {
    if (this.#sweepTimer !== undefined || this.#revalidateMs === 0 || this.#closed) return;
    this.#sweepTimer = setInterval(
      () => {
        if (this.#sweepRun !== undefined || this.#closed) return;
        this.#sweepRun = this.#backgroundSweep()
          .catch(() => {
            // A sweep that fails leaves the validation time unchanged, so the next call sweeps (or builds) itself.
          })
          .finally(() => {
            this.#sweepRun = undefined;
          });
      },
      Math.max(1, Math.floor(this.#revalidateMs / 2)),
    );
    this.#sweepTimer.unref();
  }

  /** A sweep that holds the update queue only to plan and to apply, not while it stats (calls are not held up). */
  async #backgroundSweep(): Promise<void> {
    const plan = await this.#serialized(async () => this.#planSweep());
    if (plan === undefined) return;
    const stamps = await this.#statSweep(plan);
    if (this.#closed) return;
    const marked = await this.#serialized(async () => this.#applySweep(plan, stamps));
    // What the sweep found is taken in and reported as a notification's would be: a host that follows the change
    // listeners (MCP's list_changed, the Web's event stream) learns of a change no notification reported (a watch
    // placed after the write it missed, a watch the system refused) within the staleness bound, not at its next call.
    if (marked > 0 && !this.#closed) this.#scheduleRefresh();
  }

  /** The sweep of a call whose bound ran out; runs inside the update queue. */
  async #sweep(): Promise<void> {
    const plan = this.#planSweep();
    if (plan === undefined) return;
    this.#applySweep(plan, await this.#statSweep(plan));
  }

  /**
   * What a sweep compares: every recorded revision, with the object holding it. Taken inside the update queue,
   * so no check is half done; `started` is then no later than every `stat` of the sweep.
   */
  #planSweep(): SweepPlan | undefined {
    if (this.#full || this.#closed) return undefined;
    const started = performance.now();
    const items: SweepItem[] = [{ kind: 'root', path: this.#config.root, recorded: this.#rootStamp }];
    for (const [name, project] of this.#projects) {
      if (project === undefined) continue;
      items.push({ kind: 'project', name, project, path: project.path, recorded: project.stamp });
      for (const [session, entry] of project.sessions) {
        items.push({ kind: 'session', name, session, entry, path: entry.dir.sessionPath, recorded: entry.stamp });
        if (entry.artifactRead)
          items.push({
            kind: 'session',
            name,
            session,
            entry,
            path: join(entry.dir.sessionPath, this.#artifactName),
            recorded: entry.artifactRevision,
          });
      }
    }
    return { started, items };
  }

  async #statSweep(plan: SweepPlan): Promise<(FileRevision | undefined)[]> {
    const outcomes = await settleInOrder(plan.items, CONCURRENCY, (item) => stampOf(item.path));
    // stampOf never rejects.
    return outcomes.map((outcome) => (outcome?.status === 'fulfilled' ? outcome.value : undefined));
  }

  /**
   * Marks what differs; returns how many marks it made. An object the view has replaced since the plan was read again
   * after the plan was taken, so it is current as of `started` and needs no mark.
   */
  #applySweep(plan: SweepPlan, stamps: readonly (FileRevision | undefined)[]): number {
    if (this.#full) return 0;
    let marked = 0;
    plan.items.forEach((item, index) => {
      const now = stamps[index];
      if (sameStamp(now, item.recorded)) return;
      switch (item.kind) {
        case 'root':
          if (this.#rootStamp !== item.recorded) return;
          if (now === undefined || item.recorded === undefined || now.ino !== item.recorded.ino || now.dev !== item.recorded.dev)
            this.#full = true;
          else this.#rootDirty = true;
          marked += 1;
          return;
        case 'project':
          if (this.#projects.get(item.name) !== item.project) return;
          this.#rootDirty = true;
          this.#dirtyProjects.add(item.name);
          marked += 1;
          return;
        case 'session':
          if (this.#projects.get(item.name)?.sessions.get(item.session) !== item.entry) return;
          this.#dirtySessions.add(`${item.name}\u0000${item.session}`);
          marked += 1;
          return;
        default:
          assertNever(item, 'unknown sweep item');
      }
    });
    this.#stats.sweeps += 1;
    this.#validatedAt = Math.max(this.#validatedAt, plan.started);
    return marked;
  }
}

/** One recorded revision a sweep compares, with the view object that holds it. */
type SweepItem =
  | { readonly kind: 'root'; readonly path: string; readonly recorded: FileRevision | undefined }
  | {
      readonly kind: 'project';
      readonly name: string;
      readonly project: ProjectEntry;
      readonly path: string;
      readonly recorded: FileRevision | undefined;
    }
  | {
      readonly kind: 'session';
      readonly name: string;
      readonly session: string;
      readonly entry: ViewSessionEntry;
      readonly path: string;
      readonly recorded: FileRevision | undefined;
    };

interface SweepPlan {
  readonly started: number;
  readonly items: readonly SweepItem[];
}

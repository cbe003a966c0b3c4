/**
 * The persistent, incremental title index (SESSION-LOG.md §10.7, decision D6): title observations of
 * persisted artifacts answered from a per-file checkpoint, so an unchanged log costs one `stat` and a grown
 * one is read only from its last indexed offset, with results equal to a full inspection (§9.15) followed by
 * the title fold (§6.2).
 *
 * One instance keeps the in-memory copy of one index file. Every entry is re-verified against its file before
 * use (revision, or header and guard digests), so entries written by other processes or left stale can only
 * cost a rescan. Entries read from the index file are trusted only after their checksums (title-index-file.ts):
 * the answer part when the file is loaded, the checkpoint part when a continued scan first needs it; an entry that
 * fails is discarded (counted in {@link TitleIndexStats.discarded}) and recomputed from the log. The index is a
 * cache: when it cannot answer (an I/O failure) `observe` returns `undefined` and the caller runs the full
 * inspection instead; failing to persist it changes nothing but speed (the index then lives in memory only, and
 * says why in {@link TitleIndex.persistenceNote}).
 *
 * The file names the real path of its root; a file naming another root (a hash collision, a copied cache file)
 * is treated as empty and overwritten. Entries are keyed relative to the root in the file and by absolute
 * artifact path in memory.
 *
 * Entries of vanished artifacts are pruned whenever the file is written: every entry this process has not
 * verified against its artifact (observed, or stat'ed by an earlier write) is stat'ed once, and a missing file
 * (`ENOENT`/`ENOTDIR`) drops it. A process that only answers from unchanged entries never writes, so it prunes
 * nothing; `flush()` writes when there is something to prune, which is how `sessionctx index build` keeps the
 * file free of deleted sessions.
 */
import { dirname, join, relative } from 'node:path';
import { parseHeaderRecord } from '../../../../protocol/header-line.js';
import type { Compression } from '../../../../protocol/storage-paths.js';
import { rebuildError } from '../../../../workers/titles/serialized-error.js';
import type { TitleScanCheckpoint, TitleScanOutcome, TitleScanResult } from '../../../../workers/titles/title-scan.js';
import { codecReadyFor } from '../../../../workers/decode/zstd-codec.js';
import { scanTitleLogInSlices } from './sliced-title-scan.js';
import { STABLE_READ_ATTEMPTS, sameRevision, type FileRevision } from '../../../../io/file-revision.js';
import { isMissingFile } from '../../../../io/regular-file.js';
import { digestRange, guardStart, type FileSlice, type TitleIndexCheckpoint, type TitleIndexEntry } from './title-index-entry.js';
import {
  decodeTitleIndexInSlices,
  encodeTitleIndexInSlices,
  holdEntry,
  isEntryKey,
  isIndexablePath,
  openCheckpoint,
  sealedTwin,
  type HeldTitleIndexEntry,
} from './title-index-file.js';
import { nodeTitleIndexFs, type TitleIndexFs } from './title-index-fs.js';
import { assertNever } from '../../../../protocol/assert-never.js';
import { TimeSlice } from '../../../../io/time-slice.js';
import { foregroundCallActive } from '../../../../io/foreground-calls.js';
import { yieldToEventLoop } from '../../../../io/yield-to-event-loop.js';

/** Construction options of {@link TitleIndex}. */
export interface TitleIndexOptions {
  /** The index file (SESSION-LOG.md §9.1 `titleIndexPath`), or `undefined` to keep the index in memory only. */
  readonly indexPath: string | undefined;
  /** The session root as the store names its artifacts (they are keyed relative to it in the file). */
  readonly root: string;
  /** The root's real path: written into the file, and a file naming another root is treated as empty. */
  readonly realRoot: string;
  /** Create the index file's directory (and its parents) before writing (default `false`: a missing directory fails the write). */
  readonly createDirectory?: boolean;
  /** The encoding of the artifacts this index observes. */
  readonly compression: Compression;
  /** The file-system layer (default: `node:fs`). */
  readonly fs?: TitleIndexFs;
}

/**
 * What the index observed for one artifact, before stage R4 (requested id and identity rule), which the
 * store applies: a read failure (stage R3, to throw as is), or the header record with either the classified
 * S1–S6 failure or the last `session/title` event (`undefined` when the log has none).
 */
export type IndexedTitleObservation =
  | { readonly kind: 'read-failed'; readonly error: Error }
  | {
      readonly kind: 'checked';
      readonly headerRecord: Record<string, unknown>;
      readonly failure: Error | undefined;
      readonly titleEvent: unknown;
    };

/** How observations were answered, for tests and diagnostics. */
export interface TitleIndexStats {
  /** Answered from the entry after one `stat` (lookup rule 1). */
  readonly statOnly: number;
  /** Scanned from the entry's resume offset (rule 2). */
  readonly incremental: number;
  /** Scanned from offset 0 (rule 3). */
  readonly full: number;
  /** Could not answer; the caller fell back to a full inspection. */
  readonly unavailable: number;
  /**
   * Entries of the index file discarded because a checksum failed or they did not decode (their artifacts are
   * then scanned from offset 0): answer parts when the file is loaded, checkpoint parts when first used.
   */
  readonly discarded: number;
  /** Index files discarded whole on load (damaged framing, truncated, another format or version). */
  readonly discardedFiles: number;
}

/** The file changed while it was read: take a new `stat` and try again (§9.10). */
const CHANGED = Symbol('changed');
/** The entry's prefix no longer matches its digests: scan from offset 0 (rule 3). */
const RESCAN = Symbol('rescan');

/** How many artifacts a write's pruning pass stats at once. */
const PRUNE_CONCURRENCY = 32;

/** Same decoder as the storage reader: keeps a BOM, replaces invalid UTF-8. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * How long the entries must stay unchanged before a pending write starts: a burst of observations (one
 * `readTitleSnapshots` over thousands of sessions) then costs one read-merge-encode of the index file, not one
 * per event-loop turn.
 */
export const TITLE_INDEX_FLUSH_QUIET_MS = 50;
/** The longest a change waits for a quiet moment, so a never-ending stream of observations still persists. */
export const TITLE_INDEX_FLUSH_MAX_DELAY_MS = 2_000;
/**
 * After a write, the next one waits at least this many times as long as that write took (unless `flush()` asks): a
 * write re-encodes every entry, so a steady trickle of observations (a fleet publish reads titles batch by batch,
 * with quiet moments between) would otherwise rewrite the whole file after each batch — quadratic in the root's size.
 * Spaced so, writing takes at most a tenth of the time, whatever the index's size.
 */
export const TITLE_INDEX_WRITE_SPACING = 9;

function revisionFields(revision: FileRevision): FileRevision {
  return { dev: revision.dev, ino: revision.ino, size: revision.size, mtimeNs: revision.mtimeNs, ctimeNs: revision.ctimeNs };
}

/** The observation a stored outcome stands for; throws on a damaged outcome. */
function presentOutcome(outcome: TitleScanOutcome, artifactPath: string): IndexedTitleObservation {
  switch (outcome.kind) {
    case 'read-failed':
      return { kind: 'read-failed', error: rebuildError(outcome.error) };
    case 'invalid':
      return {
        kind: 'checked',
        headerRecord: parseHeaderRecord(utf8.decode(outcome.headerLine), artifactPath),
        failure: rebuildError(outcome.error),
        titleEvent: undefined,
      };
    case 'valid':
      return {
        kind: 'checked',
        headerRecord: parseHeaderRecord(utf8.decode(outcome.headerLine), artifactPath),
        failure: undefined,
        titleEvent: outcome.titleLine === null ? undefined : (JSON.parse(utf8.decode(outcome.titleLine)) as unknown),
      };
    default:
      assertNever(outcome, 'unknown title outcome');
  }
}

/** {@link presentOutcome}, or `undefined` for an entry too damaged to present (it is then rescanned). */
function present(entry: HeldTitleIndexEntry, artifactPath: string): IndexedTitleObservation | undefined {
  try {
    return presentOutcome(entry.outcome, artifactPath);
  } catch {
    // A damaged stored outcome (e.g. a corrupt index written by someone else) only costs a rescan.
    return undefined;
  }
}

/** An entry for `revision` from a scan result; `slices` cover the header (unless its digest is given) and the new guard window. */
function entryOf(
  revision: FileRevision,
  result: TitleScanResult,
  slices: readonly FileSlice[],
  headerDigest: string | undefined,
): TitleIndexEntry {
  const checkpoint = result.checkpoint;
  if (checkpoint === null) {
    return { ...revisionFields(revision), headerDigest: null, resumeOffset: 0, guard: null, state: null, outcome: result.outcome };
  }
  return {
    ...revisionFields(revision),
    headerDigest: headerDigest ?? digestRange(slices, 0, checkpoint.headerLength),
    resumeOffset: checkpoint.resumeOffset,
    guard: digestRange(slices, guardStart(checkpoint.resumeOffset), checkpoint.resumeOffset),
    state: checkpoint,
    outcome: result.outcome,
  };
}

/** The title index over one index file; see the module comment. */
export class TitleIndex {
  readonly #indexPath: string | undefined;
  readonly #root: string;
  readonly #realRoot: string;
  readonly #createDirectory: boolean;
  readonly #compression: Compression;
  readonly #fs: TitleIndexFs;
  readonly #entries = new Map<string, HeldTitleIndexEntry>();
  /** Paths whose artifact this process has seen exist (stat'ed, listed or read): never pruned by this process. */
  readonly #present = new Set<string>();
  /** `flush()` asked for a pruning pass (a write even when no entry changed). */
  #pruneRequested = false;
  /** Why the index is not persisted (no file, or the latest write failed); `undefined` while it is. */
  #persistenceNote: string | undefined;
  /** Paths whose entry changed (or was removed) since the last write. */
  #touched = new Set<string>();
  #loading: Promise<void> | undefined;
  /**
   * The index file's revision right after this process last replaced it: while the file still has it, nobody else
   * wrote it since, so the next write merges with memory instead of reading and decoding the file again.
   */
  #writtenRevision: FileRevision | undefined;
  #flushRun: Promise<void> | undefined;
  /** Counts entry changes, so the flush can tell whether the burst is still going on. */
  #changes = 0;
  /** `flush()` calls waiting: the pending write starts at once instead of waiting for a quiet moment. */
  #urgent = 0;
  /** Ends the current quiet-period wait early (set while one is running). */
  #wake: (() => void) | undefined;
  /** When the next write may start ({@link TITLE_INDEX_WRITE_SPACING}), in `Date.now()` time. */
  #nextWriteAt = 0;
  #stats: TitleIndexStats = { statOnly: 0, incremental: 0, full: 0, unavailable: 0, discarded: 0, discardedFiles: 0 };

  constructor(options: TitleIndexOptions) {
    this.#indexPath = options.indexPath;
    this.#root = options.root;
    this.#realRoot = options.realRoot;
    this.#createDirectory = options.createDirectory ?? false;
    this.#compression = options.compression;
    this.#fs = options.fs ?? nodeTitleIndexFs;
    if (options.indexPath === undefined) this.#persistenceNote = 'title index kept in memory only: no cache directory could be determined';
  }

  /** The index file this instance reads and writes (`undefined`: in memory only). */
  get indexPath(): string | undefined {
    return this.#indexPath;
  }

  /**
   * A debug-level note on why the index is not persisted (no cache directory, or the latest write failed, e.g. a
   * read-only cache directory); `undefined` when it is (or nothing was written yet). Never printed: answers are
   * unaffected.
   */
  get persistenceNote(): string | undefined {
    return this.#persistenceNote;
  }

  /** Counters of how observations were answered since construction. */
  get stats(): TitleIndexStats {
    return { ...this.#stats };
  }

  /**
   * Observes the artifact at `artifactPath` (lookup rules 1–5 of SESSION-LOG.md §10.7): its outcome as a full
   * inspection would give it (minus stage R4), or `undefined` when the index cannot answer and the caller must
   * inspect the file itself. The signal is checked before and after every awaited step.
   *
   * `listed` is the revision a listing of the same call has just seen: when the entry was made at exactly that
   * revision it answers without a `stat` of its own (lookup rule 1 against the listing's `stat`); any other case
   * stats the file as usual.
   *
   * @throws only `signal.reason`, once the signal has aborted.
   */
  async observe(artifactPath: string, signal?: AbortSignal, listed?: FileRevision): Promise<IndexedTitleObservation | undefined> {
    signal?.throwIfAborted();
    if (!isIndexablePath(artifactPath)) return this.#unavailable();
    await this.#load();
    signal?.throwIfAborted();
    const fromListing = listed === undefined ? undefined : this.#answerAt(artifactPath, listed);
    if (fromListing !== undefined) {
      // The caller's listing has just seen the artifact: it exists.
      this.#present.add(artifactPath);
      return fromListing;
    }
    for (let attempt = 0; attempt < STABLE_READ_ATTEMPTS; attempt += 1) {
      const before = await this.#stat(artifactPath, signal);
      if (before === undefined) return this.#unavailable();
      const answered = this.#answerAt(artifactPath, before);
      if (answered !== undefined) return answered;
      const entry = this.#entries.get(artifactPath);
      const scanned = await this.#scan(artifactPath, before, entry, signal);
      if (scanned === CHANGED) {
        await yieldToEventLoop();
        continue;
      }
      if (scanned === undefined) return this.#unavailable();
      this.#remember(artifactPath, scanned);
      return present(scanned, artifactPath) ?? this.#unavailable();
    }
    // The file kept changing; the full inspection retries on its own and reports what it finds.
    return this.#unavailable();
  }

  /**
   * The header line (LF included) the index recorded for `artifactPath` when its entry was made at exactly
   * `revision` (lookup rule 1's condition) and its stored outcome presents, or `undefined` (no such entry, its scan found
   * no header, or the stored outcome is damaged). The listing
   * takes an unchanged artifact's header from here instead of reading it.
   */
  async headerLineAt(artifactPath: string, revision: FileRevision): Promise<Uint8Array | undefined> {
    if (!isIndexablePath(artifactPath)) return undefined;
    await this.#load();
    const entry = this.#entries.get(artifactPath);
    if (entry === undefined || !sameRevision(entry, revision) || entry.outcome.kind === 'read-failed') return undefined;
    // Only an outcome the index would answer with itself (its header parses): a damaged one is read again.
    return present(entry, artifactPath) === undefined ? undefined : entry.outcome.headerLine;
  }

  /**
   * Writes every pending change to the index file now (without waiting for the quiet period) and resolves
   * when no write is pending. When the loaded index holds entries this process has not verified, it also runs
   * the pruning pass (one `stat` each) and rewrites the file if any entry's artifact is gone. Never rejects.
   */
  async flush(): Promise<void> {
    await this.#writePendingNow(true);
  }

  /**
   * Writes every pending change now and resolves when no write is pending, without the pruning pass (one `stat`
   * per unverified entry): what an engine's `close()` awaits, so no write of the index outlives the engine (a
   * caller that removes the cache directory after `close()` would otherwise see it written again). Never rejects.
   */
  async settle(): Promise<void> {
    await this.#writePendingNow(false);
  }

  /** The write loop started (or woken) at once and awaited until nothing is pending; `prune` as in {@link flush}. */
  async #writePendingNow(prune: boolean): Promise<void> {
    this.#urgent += 1;
    try {
      // Nothing to prune unless the file was loaded (the index was used) and holds entries not verified here.
      if (prune && this.#loading !== undefined) {
        await this.#loading;
        if ([...this.#entries.keys()].some((path) => !this.#present.has(path))) this.#pruneRequested = true;
      }
      while (this.#flushRun !== undefined || this.#touched.size > 0 || this.#pruneRequested) {
        if (this.#flushRun === undefined) this.#startFlushRun();
        this.#wake?.();
        await this.#flushRun;
      }
    } finally {
      this.#urgent -= 1;
    }
  }

  /** Lookup rule 1: the entry's stored observation when it was made at exactly `revision` (and is presentable). */
  #answerAt(artifactPath: string, revision: FileRevision): IndexedTitleObservation | undefined {
    const entry = this.#entries.get(artifactPath);
    if (entry === undefined || !sameRevision(entry, revision)) return undefined;
    const observation = present(entry, artifactPath);
    if (observation !== undefined) this.#count('statOnly');
    return observation;
  }

  #count(kind: keyof TitleIndexStats): void {
    this.#stats = { ...this.#stats, [kind]: this.#stats[kind] + 1 };
  }

  #unavailable(): undefined {
    this.#count('unavailable');
    return undefined;
  }

  /** The artifact's revision, or `undefined` when it cannot be stat'ed (a vanished file also loses its entry). */
  async #stat(artifactPath: string, signal: AbortSignal | undefined): Promise<FileRevision | undefined> {
    const revision = await this.#attempt(artifactPath, signal, () => this.#fs.statRevision(artifactPath));
    if (revision === undefined) return undefined;
    signal?.throwIfAborted();
    this.#present.add(artifactPath);
    return revision;
  }

  /**
   * One file-system step on an indexed artifact: its value, or `undefined` when it failed (the signal's reason wins;
   * a missing file also loses its entry). Other failures are left to the caller's full inspection to report.
   */
  async #attempt<T>(artifactPath: string, signal: AbortSignal | undefined, step: () => Promise<T>): Promise<T | undefined> {
    try {
      return await step();
    } catch (error) {
      signal?.throwIfAborted();
      if (isMissingFile(error)) this.#forget(artifactPath);
      return undefined;
    }
  }

  /** Rules 2 and 3: continue the entry's checkpoint when its prefix is intact, else scan the whole file. */
  async #scan(
    artifactPath: string,
    before: FileRevision,
    entry: HeldTitleIndexEntry | undefined,
    signal: AbortSignal | undefined,
  ): Promise<HeldTitleIndexEntry | typeof CHANGED | undefined> {
    const size = Number(before.size);
    if (entry !== undefined && entry.dev === before.dev && entry.ino === before.ino) {
      // The checkpoint is verified only now that it is needed; a failing one is discarded for good (rule 3).
      const checkpoint = this.#openCheckpoint(artifactPath, entry);
      const state = checkpoint?.state ?? null;
      if (checkpoint !== undefined && state !== null && state.compression === this.#compression && size >= state.resumeOffset) {
        const continued = await this.#continue(artifactPath, before, checkpoint, state, signal);
        if (continued !== RESCAN) return continued;
      }
    }
    return this.#scanWhole(artifactPath, before, signal);
  }

  /** Rule 2: verify header and guard digests, then scan only `[resumeOffset, size)` from the checkpoint. */
  async #continue(
    artifactPath: string,
    before: FileRevision,
    entry: TitleIndexCheckpoint,
    state: TitleScanCheckpoint,
    signal: AbortSignal | undefined,
  ): Promise<HeldTitleIndexEntry | typeof CHANGED | typeof RESCAN | undefined> {
    const size = Number(before.size);
    const resume = state.resumeOffset;
    const windowStart = guardStart(resume);
    const ranges = [
      { position: 0, length: state.headerLength },
      { position: windowStart, length: resume - windowStart },
      { position: resume, length: size - resume },
    ];
    const parts = await this.#readUnchanged(
      artifactPath,
      before,
      signal,
      () => this.#fs.readRanges(artifactPath, ranges),
      (read) => read.every((part, index) => part.length === ranges[index]?.length),
    );
    if (parts === undefined || parts === CHANGED) return parts;
    const [header, guard, appended] = parts as [Uint8Array, Uint8Array, Uint8Array];
    const slices = [
      { offset: windowStart, bytes: guard },
      { offset: resume, bytes: appended },
    ];
    if (
      digestRange([{ offset: 0, bytes: header }], 0, header.length) !== entry.headerDigest ||
      digestRange(slices, windowStart, resume) !== entry.guard
    ) {
      return RESCAN;
    }
    await codecReadyFor(this.#compression);
    let result: TitleScanResult;
    try {
      result = await scanTitleLogInSlices({ compression: this.#compression, path: artifactPath, bytes: appended, checkpoint: state });
    } catch {
      // A checkpoint that cannot be continued (damaged, or from an incompatible writer) is rebuilt from offset 0.
      return RESCAN;
    }
    this.#count('incremental');
    return holdEntry(entryOf(before, result, slices, entry.headerDigest ?? undefined));
  }

  /** Rule 3: a stable read of the whole file and a scan from offset 0. */
  async #scanWhole(
    artifactPath: string,
    before: FileRevision,
    signal: AbortSignal | undefined,
  ): Promise<HeldTitleIndexEntry | typeof CHANGED | undefined> {
    const bytes = await this.#readUnchanged(
      artifactPath,
      before,
      signal,
      () => this.#fs.readFile(artifactPath, signal),
      (read) => read.length === Number(before.size),
    );
    if (bytes === undefined || bytes === CHANGED) return bytes;
    await codecReadyFor(this.#compression);
    let result: TitleScanResult;
    try {
      result = await scanTitleLogInSlices({ compression: this.#compression, path: artifactPath, bytes });
    } catch {
      // Not a log-content failure (those are outcomes): the caller's full inspection gives the answer.
      return undefined;
    }
    this.#count('full');
    return holdEntry(entryOf(before, result, [{ offset: 0, bytes }], undefined));
  }

  /**
   * One read of an indexed artifact that must belong to the revision `before`: what `read` returned, `CHANGED` when
   * the file's revision moved meanwhile or `complete` finds the bytes short, `undefined` when the read or the
   * `stat` after it failed (a missing file is forgotten; the caller's full inspection gives the answer).
   */
  async #readUnchanged<T extends object>(
    artifactPath: string,
    before: FileRevision,
    signal: AbortSignal | undefined,
    read: () => Promise<T>,
    complete: (value: T) => boolean,
  ): Promise<T | typeof CHANGED | undefined> {
    const value = await this.#attempt(artifactPath, signal, read);
    if (value === undefined) return undefined;
    signal?.throwIfAborted();
    const after = await this.#stat(artifactPath, signal);
    if (after === undefined) return undefined;
    return sameRevision(before, after) && complete(value) ? value : CHANGED;
  }

  /**
   * The entry's checkpoint, verified on first use; when its checksum fails (or it does not decode) the whole entry
   * is counted as discarded and dropped, so it is neither retried nor written back.
   */
  #openCheckpoint(artifactPath: string, entry: HeldTitleIndexEntry): TitleIndexCheckpoint | undefined {
    const checkpoint = openCheckpoint(entry);
    if (entry.checkpoint.kind === 'open') return checkpoint;
    if (checkpoint === undefined) {
      this.#count('discarded');
      // The answer part passed its own checksum, but an entry is written as a unit: a damaged half discards it.
      this.#forget(artifactPath);
      return undefined;
    }
    // Verified once per process (openCheckpoint remembers it); the entry keeps its sealed bytes for the next write.
    return checkpoint;
  }

  #remember(artifactPath: string, entry: HeldTitleIndexEntry): void {
    this.#entries.set(artifactPath, entry);
    this.#touched.add(artifactPath);
    this.#scheduleFlush();
  }

  #forget(artifactPath: string): void {
    this.#present.delete(artifactPath);
    if (!this.#entries.delete(artifactPath)) return;
    this.#touched.add(artifactPath);
    this.#scheduleFlush();
  }

  /** Loads the index file once; a missing, unreadable, corrupt, other-version or other-root file leaves the index empty. */
  #load(): Promise<void> {
    this.#loading ??= this.#readIndexFile(true).then((entries) => {
      for (const [path, entry] of entries ?? []) {
        if (!this.#entries.has(path)) this.#entries.set(path, entry);
      }
    });
    return this.#loading;
  }

  /**
   * The index file's entries by absolute artifact path, or `undefined` when there is no file, it is missing,
   * unreadable, must be discarded, or describes another root. `count` adds the discarded entries and files to the
   * stats (the first load only: the re-reads before each write would count the same damage again).
   */
  async #readIndexFile(count = false): Promise<Map<string, HeldTitleIndexEntry> | undefined> {
    if (this.#indexPath === undefined) return undefined;
    let bytes: Uint8Array;
    try {
      bytes = await this.#fs.readFile(this.#indexPath);
    } catch {
      // Missing or unreadable: start empty; the next write rebuilds the file.
      return undefined;
    }
    const content = await decodeTitleIndexInSlices(bytes);
    if (content === undefined) {
      if (count) this.#count('discardedFiles');
      return undefined;
    }
    // Another root's file (a collision of the name's digest, a cache file copied from elsewhere): not ours to use.
    if (content.root !== this.#realRoot) return undefined;
    if (count) this.#stats = { ...this.#stats, discarded: this.#stats.discarded + content.discarded };
    const out = new Map<string, HeldTitleIndexEntry>();
    for (const [key, entry] of content.entries) out.set(join(this.#root, key), entry);
    return out;
  }

  /** True when the index file still has the revision this process's last replace left (see {@link #writtenRevision}). */
  async #stillOurFile(indexPath: string): Promise<boolean> {
    const written = this.#writtenRevision;
    if (written === undefined) return false;
    const now = await this.#fs.statRevision(indexPath).catch(() => undefined);
    return now !== undefined && sameRevision(now, written);
  }

  /**
   * After a write: every entry it wrote that memory still holds is replaced by its sealed twin ({@link sealedTwin}),
   * so memory keeps each entry's bytes once instead of its decoded checkpoint beside them. In time slices with a hop
   * between them; an entry replaced meanwhile (a new observation) is left alone.
   */
  async #holdSealed(written: ReadonlyMap<string, HeldTitleIndexEntry>, touched: ReadonlySet<string>): Promise<void> {
    const slice = new TimeSlice();
    // Only an entry this process observed is open, and every observation touches its path: the rest are sealed.
    for (const path of touched) {
      const entry = written.get(path);
      if (entry === undefined || entry.checkpoint.kind === 'sealed' || this.#entries.get(path) !== entry) continue;
      if (slice.due()) {
        await slice.hop();
        if (this.#entries.get(path) !== entry) continue;
      }
      this.#entries.set(path, sealedTwin(entry));
    }
  }

  /**
   * Drops from `merged` (and memory) every entry whose artifact is missing, stat'ing each entry this process has
   * not seen exist, once per process. Returns how many were dropped; a stat that fails otherwise keeps the entry.
   */
  async #prune(merged: Map<string, HeldTitleIndexEntry>): Promise<number> {
    const unverified = [...merged.keys()].filter((path) => !this.#present.has(path));
    let dropped = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < unverified.length) {
        const path = unverified[next] as string;
        next += 1;
        try {
          await this.#fs.statRevision(path);
          this.#present.add(path);
        } catch (error) {
          // Only a missing file proves the entry stale; any other failure (EACCES, EIO) keeps it for later.
          if (!isMissingFile(error)) continue;
          merged.delete(path);
          // An observation that found the artifact again meanwhile keeps its fresh entry (it is written next time).
          if (!this.#present.has(path)) this.#entries.delete(path);
          dropped += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PRUNE_CONCURRENCY, unverified.length) }, worker));
    return dropped;
  }

  /**
   * Notes a change and starts a deferred write unless one is pending. The write waits until no entry changed
   * for {@link TITLE_INDEX_FLUSH_QUIET_MS} (at most {@link TITLE_INDEX_FLUSH_MAX_DELAY_MS}), then loops until
   * nothing is pending. Its timer keeps the process alive, so a command that ends without `flush()` still
   * persists what it observed.
   */
  #scheduleFlush(): void {
    this.#changes += 1;
    this.#startFlushRun();
  }

  /** Starts the deferred write loop unless it is running (an index without a file has nothing to write). */
  #startFlushRun(): void {
    if (this.#indexPath === undefined) {
      this.#touched.clear();
      this.#pruneRequested = false;
      return;
    }
    if (this.#flushRun !== undefined) return;
    this.#flushRun = (async () => {
      while (this.#touched.size > 0 || this.#pruneRequested) {
        await this.#quietPeriod();
        await this.#writeOnce();
      }
    })().finally(() => {
      this.#flushRun = undefined;
    });
  }

  /** Resolves once the entries stopped changing for a quiet period, the maximum delay passed, or `flush()` asks. */
  async #quietPeriod(): Promise<void> {
    // The spacing after the previous write first (what changes meanwhile joins this write).
    const spacing = this.#nextWriteAt - Date.now();
    if (spacing > 0 && this.#urgent === 0) await this.#sleep(spacing);
    const started = Date.now();
    for (;;) {
      if (this.#urgent > 0) return;
      const seen = this.#changes;
      await this.#sleep(TITLE_INDEX_FLUSH_QUIET_MS);
      if (this.#urgent > 0 || Date.now() - started >= TITLE_INDEX_FLUSH_MAX_DELAY_MS) return;
      // Nobody waits for the write: while a call is in progress on this thread it waits too (within the same maximum
      // delay), so a call right after changes does not share the thread with it (`io/foreground-calls.ts`).
      if (this.#changes === seen && !foregroundCallActive()) return;
    }
  }

  /** Waits `ms`, or less when `flush()` wakes the write loop. */
  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /**
   * One atomic replace of the index file: the file's current entries (another process may have written some),
   * overlaid with the entries this process changed and completed with every other entry it holds, minus the
   * entries of vanished artifacts ({@link #prune}). Entries of paths this process has not seen are adopted into
   * memory. Nothing is written when nothing changed and nothing was pruned. A failed write is dropped (the
   * index is a cache) and noted in {@link persistenceNote}.
   */
  async #writeOnce(): Promise<void> {
    const touched = this.#touched;
    this.#touched = new Set();
    this.#pruneRequested = false;
    const indexPath = this.#indexPath;
    if (indexPath === undefined) return;
    // Every entry of a file this process wrote is in memory (adopted or its own) unless deleted since, and a deleted
    // path is touched: the file's own entries add nothing then.
    const ours = await this.#stillOurFile(indexPath);
    const merged = ours ? new Map(this.#entries) : ((await this.#readIndexFile()) ?? new Map<string, HeldTitleIndexEntry>());
    for (const [path, entry] of merged) {
      if (!this.#entries.has(path) && !touched.has(path)) this.#entries.set(path, entry);
    }
    for (const path of touched) {
      if (!this.#entries.has(path)) merged.delete(path);
    }
    for (const [path, entry] of this.#entries) {
      // An entry another process wrote for a path this process did not change may be the newer one: keep it.
      if (touched.has(path) || !merged.has(path)) merged.set(path, entry);
    }
    const pruned = await this.#prune(merged);
    if (touched.size === 0 && pruned === 0) return;
    const writeStarted = Date.now();
    try {
      if (this.#createDirectory) await this.#fs.ensureDirectory(dirname(indexPath));
      this.#writtenRevision = undefined;
      const root = this.#root;
      const blocks = await encodeTitleIndexInSlices(this.#realRoot, merged, (path) => {
        const key = relative(root, path);
        return isEntryKey(key) ? key : undefined;
      });
      await this.#fs.replaceFile(indexPath, blocks);
      this.#writtenRevision = await this.#fs.statRevision(indexPath).catch(() => undefined);
      this.#persistenceNote = undefined;
      await this.#holdSealed(merged, touched);
    } catch (error) {
      // Not persisted (read-only cache or root, missing directory, full disk): answers are unaffected, later ones
      // may rescan. Kept as the one diagnostic note (the latest failure), never printed.
      this.#persistenceNote = `title index not written to ${indexPath}: ${error instanceof Error ? error.message : String(error)}`;
    }
    const finished = Date.now();
    this.#nextWriteAt = finished + TITLE_INDEX_WRITE_SPACING * (finished - writeStarted);
  }
}

/**
 * The incremental source cache of `prepare()` (issue 15 item 2). Per persisted artifact it keeps what preparation
 * needs — the projected conversation with its checkpoint markers (as surface nodes), the capture point
 * (`capturedThroughSeq`) and the title scan's resumable validator checkpoint — keyed by the artifact (encoding,
 * root, path, requested id) and its revision (dev, ino, size, ctime, and a digest of the last 4 KiB):
 *
 * - unchanged (same revision, same tail digest): answered from the entry; costs a `stat` (the capture's), a 4 KiB
 *   read, and the caller's retention and serialisation;
 * - appended (same file, longer): a `readSource` scan task continues the checkpoint over the new bytes only (after
 *   checking the header and the 4 KiB before the resume offset) and extends the kept fold, in the worker;
 * - anything else (no entry; rewritten, shrunk, replaced; an entry that fails a check): a miss — one scan task
 *   reads the source once, renders the answer and builds the entry with its file bytes (`readCold`, issue 27).
 *
 * The main thread never folds a scan or encodes an entry: workers send the entry's file bytes, which are written
 * after the answer (atomically); until then, and after, the entry in memory answers warm.
 *
 * Entries are held in memory in an LRU bounded by estimated bytes and written, one checksummed file per artifact
 * (source-cache-file.ts), to the cache directory so one-shot CLI calls start warm. Cache files are never trusted:
 * a foreign or damaged one is ignored and rewritten; a directory that cannot be written leaves the cache in memory.
 * No failure of the cache fails a preparation: the caller falls back to the uncached read.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { replaceFileAtomically } from '../../../io/atomic-file.js';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionHeader } from '../../../protocol/events.js';
import type { ArtifactRef, CapturedRevision, ReadSourceValue, SourceRender } from '../../../protocol/wire/task-shapes.js';
import type { ProjectedItem } from '../../../workers/reference/project-surface.js';
import { ProjectionFold } from '../../../workers/reference/projection-fold.js';
import { estimateEntryBytes, itemsOfRecord, type SourceCacheRecord } from '../../../workers/tasks/source-cache-record.js';
import type { TaskRunner } from '../pool/task-runner.js';
import { decodeSourceCacheRecord } from './source-cache-file.js';
import type { SourceCacheConfig } from './source-cache-config.js';

/** How a source was served: from an unchanged entry, by continuing an entry over appended bytes, or read whole. */
export type SourceServed = 'warm' | 'appended' | 'cold';

/** What preparation needs of one persisted source, as the cache answers it. */
export interface CachedSource {
  readonly served: SourceServed;
  /** The validated stored header of the observation. */
  readonly header: SessionHeader;
  /** The last balanced event's seq, or `null` for a log without events. */
  readonly capturedThroughSeq: number | null;
  /** The projected conversation in surface order (shared with the cache: do not mutate). */
  readonly items: readonly ProjectedItem[];
}

/** Counters for tests, benchmarks and a host's metrics. */
export interface SourceCacheStats {
  /** Entries held in memory and their estimated bytes. */
  readonly entries: number;
  readonly bytes: number;
  /** Observations answered from an unchanged entry, by continuing one, or missed (read uncached, entry built after). */
  readonly warm: number;
  readonly appended: number;
  readonly cold: number;
  /** Scans whose observation could not be cached (not a valid session). */
  readonly uncached: number;
  /** Cache files ignored because they were foreign or damaged. */
  readonly discardedFiles: number;
  /** Entries dropped from memory by the byte bound. */
  readonly evicted: number;
}

/** Bytes of the tail window whose digest guards an unchanged revision. */
const TAIL_BYTES = 4096;

/** An entry in memory: the record plus its current answer. */
interface HeldEntry {
  readonly record: SourceCacheRecord;
  readonly items: readonly ProjectedItem[];
  readonly bytes: number;
}

/** The scan-task capability the cache needs (the engine's runner). */
export type ScanRunner = Pick<TaskRunner, 'run'>;

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The cache key of an artifact read for `sessionId`. */
function keyOf(artifact: ArtifactRef): string {
  return [artifact.compression, artifact.root, artifact.path, artifact.sessionId].join('\u0000');
}

/** The incremental source cache; one per engine. */
export class SourceCache {
  readonly #config: SourceCacheConfig;
  readonly #memory = new Map<string, HeldEntry>();
  #bytes = 0;
  #counts = { warm: 0, appended: 0, cold: 0, uncached: 0, discardedFiles: 0, evicted: 0 };
  readonly #writes = new Set<Promise<void>>();
  #persistenceNote: string | undefined;

  /** A cache with a resolved configuration (`resolveSourceCacheConfig`). */
  constructor(config: SourceCacheConfig) {
    this.#config = config;
  }

  /** The configuration in force. */
  get config(): SourceCacheConfig {
    return this.#config;
  }

  /** Why entries are not persisted (the last write failure), or `undefined`. */
  get persistenceNote(): string | undefined {
    return this.#persistenceNote;
  }

  /** Current counters. */
  get stats(): SourceCacheStats {
    return { entries: this.#memory.size, bytes: this.#bytes, ...this.#counts };
  }

  /**
   * What preparation needs of `artifact` as of its capture when the cache can answer it — `warm` from an unchanged
   * entry, `appended` by continuing an entry over the new bytes in a scan task — or `undefined` on a miss. On a miss
   * the caller reads the source the uncached way (the fastest whole read) and then calls {@link build}, so a cold
   * preparation is never slower for the cache. A build of the same artifact still running is awaited first. Rejects
   * only with what the scan task rejects with (the read's I/O failure, the abort).
   *
   * @param artifact - the captured artifact (lookup and `stat` done by the caller).
   * @param ctimeNs - the capture's status-change time (decimal nanoseconds): every write, and every `utimes` that
   *   puts a modification time back, moves it, so a rewrite that restores its mtime is still seen.
   */
  async observe(
    artifact: ArtifactRef & { readonly capture: CapturedRevision },
    ctimeNs: string,
    runner: ScanRunner,
    signal: AbortSignal,
  ): Promise<CachedSource | undefined> {
    const key = keyOf(artifact);
    const held = this.#memory.get(key) ?? (await this.#load(key));
    signal.throwIfAborted();
    if (held !== undefined) {
      const { revision } = held.record;
      const sameFile = revision.dev === artifact.capture.dev && revision.ino === artifact.capture.ino;
      if (
        sameFile &&
        revision.size === artifact.capture.size &&
        revision.ctimeNs === ctimeNs &&
        (await this.#tailMatches(artifact.path, held.record))
      ) {
        this.#touch(key, held);
        this.#counts.warm += 1;
        return this.#answer('warm', held);
      }
      if (sameFile && BigInt(artifact.capture.size) > BigInt(revision.size)) {
        const base = { nodes: held.record.nodes, committedEvents: held.record.committedEvents };
        const entry = { key, base, render: null };
        const value = await runner.run('readSource', { source: 'scan', artifact, ctimeNs, resume: held.record.resume, entry }, { signal });
        const built = this.#accept(key, value);
        if (built !== undefined) {
          this.#counts[built.served] += 1;
          return this.#answer(built.served, built.held);
        }
      }
    }
    this.#counts.cold += 1;
    return undefined;
  }

  /**
   * The cold read of a miss (issue 27): one scan task reads, validates, folds and renders the source within
   * `render`'s budget and builds the cache entry's file bytes in the same pass, on its worker. The entry is held in
   * memory before this resolves (so the next preparation is warm at once) and its file is written after the answer,
   * from the worker's bytes. `undefined` when the source is not a valid session (or the task failed but for the
   * abort): the caller then reads it the uncached way, which reports what it finds.
   */
  async readCold(
    artifact: ArtifactRef & { readonly capture: CapturedRevision },
    ctimeNs: string,
    runner: ScanRunner,
    render: { readonly label: string; readonly maxBytes: number },
    signal: AbortSignal,
  ): Promise<{ readonly header: SessionHeader; readonly render: SourceRender } | undefined> {
    const key = keyOf(artifact);
    let value: ReadSourceValue;
    try {
      value = await runner.run(
        'readSource',
        { source: 'scan', artifact, ctimeNs, resume: null, entry: { key, base: null, render } },
        { signal },
      );
    } catch {
      signal.throwIfAborted();
      // A read failure: the uncached read reports it with its usual texts.
      return undefined;
    }
    const built = this.#accept(key, value);
    if (built === undefined || value.status !== 'entry' || value.render === null) return undefined;
    return { header: built.held.record.header, render: value.render };
  }

  /** Keeps the entry a worker built (and schedules its file), or forgets the key when the observation could not be cached. */
  #accept(key: string, value: ReadSourceValue): { served: 'cold' | 'appended'; held: HeldEntry } | undefined {
    if (value.status === 'entry') {
      const record = value.record as SourceCacheRecord;
      const held: HeldEntry = { record, items: value.items as ProjectedItem[], bytes: value.estimatedBytes };
      this.#hold(key, held);
      // After the answer: the write never delays the preparation that produced it.
      const bytes = value.bytes;
      this.#track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#persist(key, bytes)));
      return { served: value.served, held };
    }
    this.#forget(key);
    this.#counts.uncached += 1;
    return undefined;
  }

  /** Waits for every entry write (the engine's `close`, so a one-shot process leaves its entries behind). */
  async flush(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes]);
  }

  /** Drops every entry from memory (files stay). */
  clearMemory(): void {
    this.#memory.clear();
    this.#bytes = 0;
  }

  #answer(served: SourceServed, held: HeldEntry): CachedSource {
    const { header, balancedEvents } = held.record;
    return { served, header, capturedThroughSeq: balancedEvents === 0 ? null : balancedEvents - 1, items: held.items };
  }

  /** True when the file's last bytes before the entry's size hash as they did (a rewrite of equal size fails this). */
  async #tailMatches(path: string, record: SourceCacheRecord): Promise<boolean> {
    const size = Number(record.revision.size);
    const from = Math.max(0, size - TAIL_BYTES);
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch {
      // Unreadable now: not warm; the scan task reads it and reports what it finds.
      return false;
    }
    try {
      const stats = await handle.stat({ bigint: true });
      if (stats.dev.toString() !== record.revision.dev || stats.ino.toString() !== record.revision.ino || !stats.isFile()) return false;
      const buffer = new Uint8Array(size - from);
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, from + filled);
        if (bytesRead === 0) return false;
        filled += bytesRead;
      }
      return sha256Hex(buffer) === record.tailDigest;
    } catch {
      // A failed read is a miss, never an answer.
      return false;
    } finally {
      await handle.close().catch(() => {
        // A read-only handle loses nothing by a failed close.
      });
    }
  }

  #touch(key: string, held: HeldEntry): void {
    if (!this.#memory.has(key)) return;
    this.#memory.delete(key);
    this.#memory.set(key, held);
  }

  /** Keeps `held` in memory within the byte bound, evicting the least recently used entries. */
  #hold(key: string, held: HeldEntry): void {
    const previous = this.#memory.get(key);
    if (previous !== undefined) {
      this.#memory.delete(key);
      this.#bytes -= previous.bytes;
    }
    if (held.bytes > this.#config.maxBytes) return;
    this.#memory.set(key, held);
    this.#bytes += held.bytes;
    for (const [oldest, entry] of this.#memory) {
      if (this.#bytes <= this.#config.maxBytes) break;
      this.#memory.delete(oldest);
      this.#bytes -= entry.bytes;
      this.#counts.evicted += 1;
    }
  }

  #forget(key: string): void {
    const previous = this.#memory.get(key);
    if (previous !== undefined) {
      this.#memory.delete(key);
      this.#bytes -= previous.bytes;
    }
    const file = this.#fileOf(key);
    if (file !== undefined) {
      this.#track(
        unlink(file).catch(() => {
          // No file, or not removable: a stale file is verified before use anyway.
        }),
      );
    }
  }

  #fileOf(key: string): string | undefined {
    const directory = this.#config.directory;
    return directory === null ? undefined : join(directory, `${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}.v2`);
  }

  /** The entry file of `key` when it is intact and names `key`; a foreign or damaged file counts as discarded. */
  async #load(key: string): Promise<HeldEntry | undefined> {
    const file = this.#fileOf(key);
    if (file === undefined) return undefined;
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch {
      // No entry file (or unreadable): a miss.
      return undefined;
    }
    const record = decodeSourceCacheRecord(bytes, key);
    if (record !== undefined) {
      try {
        const fold = ProjectionFold.of(record.nodes);
        const items = itemsOfRecord(record, fold);
        const held = { record, items, bytes: estimateEntryBytes(record, items) };
        this.#hold(key, held);
        return held;
      } catch {
        // Nodes or steps that do not fold: damaged despite its checksum; discarded below.
      }
    }
    this.#counts.discardedFiles += 1;
    return undefined;
  }

  /** Writes the entry file of `key` from the bytes its worker encoded (atomically; a failure keeps the cache in memory). */
  async #persist(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.#fileOf(key);
    const directory = this.#config.directory;
    if (file === undefined || directory === null) return;
    try {
      await mkdir(directory, { recursive: true });
      await replaceFileAtomically(file, bytes);
    } catch (error) {
      this.#persistenceNote = `source cache kept in memory only: ${(error as Error).message}`;
    }
  }

  #track(work: Promise<void>): void {
    const tracked = work.finally(() => this.#writes.delete(tracked));
    this.#writes.add(tracked);
  }
}

/**
 * Shared helpers of the title index tests: a store pair over one root (title index on / off), the
 * observation comparison the equivalence items use (status, title snapshot, error name/code/message), raw and
 * zstd batch writers that bypass the store (so lines can be hand-made), a counting file-system layer, and the
 * per-file cache directory the indexed stores keep their index files in.
 */
import { appendFile, chmod, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { SessionEvent } from '../../../../../src/protocol/events.js';
import { asSessionId } from '../../../../../src/protocol/events.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import { encodeStorageBatch } from '../../../../../src/protocol/storage-rows.js';
import { InMemoryLiveRegistry } from '../../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery, type SessionTitleObservation } from '../../../../../src/main/engine/corpus/session-query.js';
import { nodeTitleIndexFs, type ByteRange, type TitleIndexFs } from '../../../../../src/main/engine/corpus/title-index/title-index-fs.js';
import { decodeTitleIndex, type HeldTitleIndexEntry } from '../../../../../src/main/engine/corpus/title-index/title-index-file.js';
import { resolveTitleIndexLocation } from '../../../../../src/main/engine/config/cache-location.js';
import { JsonlSessionStore, type JsonlSessionStoreOptions } from '../../../../../src/main/engine/store/jsonl-store.js';
import { compressFrame, initZstd } from '../../../../../src/workers/decode/zstd-codec.js';

const encoder = new TextEncoder();

const createdDirs: string[] = [];
/** Indexed stores opened by {@link openPair}: their pending index writes are flushed before the directories go. */
const openedStores: JsonlSessionStore[] = [];

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export async function tempDir(prefix = 'sessionctx-title-index-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  createdDirs.push(dir);
  return dir;
}

/**
 * Removes every directory {@link tempDir} created in this test file (call from `afterAll`). The title index writes
 * its file after a quiet period, so a store's pending write is flushed first; otherwise it could land inside a
 * directory while it is being removed (`ENOTEMPTY`). Stores opened elsewhere are covered by rm's retries.
 */
export async function removeTempDirs(): Promise<void> {
  for (const store of openedStores.splice(0)) await store.flushTitleIndex();
  for (const dir of createdDirs.splice(0)) await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  cacheHomeDir = undefined;
}

let cacheHomeDir: Promise<string> | undefined;

/**
 * This test file's `XDG_CACHE_HOME`: a temporary directory (removed by {@link removeTempDirs}) that the indexed
 * stores of {@link openPair} keep their index files in, so no test writes into the real user cache.
 */
export function cacheHome(): Promise<string> {
  cacheHomeDir ??= tempDir('sessionctx-title-cache-');
  return cacheHomeDir;
}

/** The environment {@link openPair} gives its indexed stores: `XDG_CACHE_HOME` = {@link cacheHome}. */
export async function cacheEnv(): Promise<NodeJS.ProcessEnv> {
  return { XDG_CACHE_HOME: await cacheHome() };
}

/** The index file {@link openPair}'s indexed stores use for `root` (in {@link cacheHome}). */
export async function indexPathOf(root: string): Promise<string> {
  const { indexPath } = await resolveTitleIndexLocation(root, { env: await cacheEnv() });
  if (indexPath === undefined) throw new Error('the test cache directory gives no index path');
  return indexPath;
}

/**
 * The entries (keyed relative to the root; answers verified, checkpoints still sealed) of `root`'s index file, or
 * `undefined` when it does not decode.
 */
export async function readIndexEntries(root: string): Promise<Map<string, HeldTitleIndexEntry> | undefined> {
  return decodeTitleIndex(await readFile(await indexPathOf(root)))?.entries;
}

/**
 * Copies a read-only fixture root into a fresh temporary root and makes the copy writable (tests then append
 * to or damage the copy, never the fixture).
 */
export async function copyRoot(source: string): Promise<string> {
  const root = join(await tempDir(), 'sessions');
  await cp(source, root, { recursive: true });
  await chmod(root, 0o755);
  return root;
}

/** A store with the title index and one without, over the same root, each behind a query layer. */
export interface StorePair {
  readonly indexed: JsonlSessionStore;
  readonly full: JsonlSessionStore;
  readonly indexedQuery: SessionQuery;
  readonly fullQuery: SessionQuery;
}

/** Opens the pair; `indexOptions` go to the indexed store only (its index file defaults to {@link indexPathOf} `root`). */
export async function openPair(
  root: string,
  compression: Compression,
  indexOptions: Partial<JsonlSessionStoreOptions> = {},
): Promise<StorePair> {
  const indexed = await JsonlSessionStore.open({ root, compression, env: await cacheEnv(), ...indexOptions });
  openedStores.push(indexed);
  const full = await JsonlSessionStore.open({ root, compression, titleIndex: false });
  return {
    indexed,
    full,
    indexedQuery: new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: indexed }),
    fullQuery: new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: full }),
  };
}

/** What the equivalence items compare of one observation: status and value, or the reason's (and its cause's) name, code, message. */
export function comparable(observation: SessionTitleObservation): unknown {
  if (observation.status === 'fulfilled') return observation;
  const reason = observation.reason as Error & { code?: unknown };
  const cause = reason.cause as (Error & { code?: unknown }) | undefined;
  return {
    sessionId: observation.sessionId,
    status: 'rejected',
    reason: {
      name: reason.name,
      code: reason.code,
      message: reason.message,
      cause: cause === undefined ? undefined : { name: cause.name, code: cause.code, message: cause.message },
    },
  };
}

/**
 * Observes `ids` through both stores and expects identical results: `toEqual` (which tells `-0` from `0`) and
 * the same JSON text (key order). Returns the indexed observations.
 */
export async function expectSameTitles(pair: StorePair, ids: readonly string[], label: string): Promise<SessionTitleObservation[]> {
  const sessionIds = ids.map(asSessionId);
  const indexed = await pair.indexedQuery.readTitleSnapshots(sessionIds);
  const full = await pair.fullQuery.readTitleSnapshots(sessionIds);
  const indexedView = indexed.map(comparable);
  const fullView = full.map(comparable);
  expect(indexedView, label).toEqual(fullView);
  expect(JSON.stringify(indexedView), label).toBe(JSON.stringify(fullView));
  return indexed;
}

/** The bytes of one storage batch as written to disk: raw text, or one checksummed zstd frame. */
export async function batchFileBytes(text: string, compression: Compression): Promise<Uint8Array> {
  const bytes = encoder.encode(text);
  if (compression === 'none') return bytes;
  await initZstd();
  return compressFrame(bytes);
}

/** Appends events as one batch (chunk runs packed), bypassing the store. */
export async function appendEvents(path: string, events: readonly SessionEvent[], compression: Compression): Promise<void> {
  await appendFile(path, await batchFileBytes(encodeStorageBatch(events, true), compression));
}

/** Appends hand-made lines (each gets its LF) as one batch. */
export async function appendLines(path: string, lines: readonly string[], compression: Compression): Promise<void> {
  await appendFile(path, await batchFileBytes(lines.map((line) => `${line}\n`).join(''), compression));
}

/** File-system calls the title index made, per path. */
export interface FsCounts {
  stats: number;
  reads: number;
  bytesRead: number;
}

/** A {@link TitleIndexFs} that counts calls and bytes per path and can be told to fail. */
export class CountingFs implements TitleIndexFs {
  readonly counts = new Map<string, FsCounts>();
  /** Paths whose reads (and stats, when listed in `failStats`) reject with EIO. */
  readonly failReads = new Set<string>();
  readonly failStats = new Set<string>();

  constructor(private readonly inner: TitleIndexFs = nodeTitleIndexFs) {}

  /** The counts of `path` (zeros when untouched). */
  of(path: string): FsCounts {
    return this.counts.get(path) ?? { stats: 0, reads: 0, bytesRead: 0 };
  }

  /** Forgets all counts. */
  reset(): void {
    this.counts.clear();
  }

  private bump(path: string, change: Partial<FsCounts>): void {
    const current = this.of(path);
    this.counts.set(path, {
      stats: current.stats + (change.stats ?? 0),
      reads: current.reads + (change.reads ?? 0),
      bytesRead: current.bytesRead + (change.bytesRead ?? 0),
    });
  }

  private failIf(set: ReadonlySet<string>, path: string): void {
    if (set.has(path)) throw Object.assign(new Error(`EIO: injected failure, ${path}`), { code: 'EIO' });
  }

  async statRevision(path: string): ReturnType<TitleIndexFs['statRevision']> {
    this.bump(path, { stats: 1 });
    this.failIf(this.failStats, path);
    return this.inner.statRevision(path);
  }

  async readRanges(path: string, ranges: readonly ByteRange[]): Promise<Uint8Array[]> {
    this.failIf(this.failReads, path);
    const parts = await this.inner.readRanges(path, ranges);
    this.bump(path, { reads: 1, bytesRead: parts.reduce((sum, part) => sum + part.length, 0) });
    return parts;
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Uint8Array> {
    this.failIf(this.failReads, path);
    const bytes = await this.inner.readFile(path, signal);
    this.bump(path, { reads: 1, bytesRead: bytes.length });
    return bytes;
  }

  replaceFile(path: string, content: Uint8Array | readonly Uint8Array[]): Promise<void> {
    return this.inner.replaceFile(path, content);
  }

  ensureDirectory(path: string): Promise<void> {
    return this.inner.ensureDirectory(path);
  }
}

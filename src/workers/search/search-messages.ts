/**
 * The message protocol between the search service (main or engine thread) and its search worker (issue 17): one
 * request at a time, each answered by one reply with its id (progress messages may come before it). Both ends
 * validate what they receive — the worker its requests, the service the replies and their values — so a mismatched
 * build or a bug fails one request with a typed error instead of handing malformed data on. Checks are structural.
 */
import type { Compression } from '../../protocol/storage-paths.js';
import { isRecord } from '../../protocol/record-guard.js';
import { SEARCH_ROLES, type HighlightRange, type SearchRole } from '../../protocol/search-types.js';
import { isWireError, type WireError } from '../../protocol/wire/wire-error.js';
import { isLiveLogCapture, type LiveLogCapture } from '../../protocol/wire/live-log-codec.js';
import { isPackedListing, type PackedListing } from './packed-listing.js';

/** What the worker is started with (`workerData`). */
export interface SearchWorkerData {
  /** The database file, or `null` for an in-memory index (lost when the worker ends). */
  readonly databasePath: string | null;
  /** The native module's name (`better-sqlite3`; tests name a missing one to simulate a failed load). */
  readonly moduleName: string;
  /** How long a statement waits for another connection's lock before failing with `SEARCH_INDEX_BUSY`. */
  readonly busyTimeoutMs: number;
  /** One `Int32`: the id of the request the caller abandoned; the worker polls it between bounded steps. */
  readonly cancel: SharedArrayBuffer;
}

/** The first message to a prestarted search thread (`workerData` `{prestarted: true}`): its configuration. */
export interface SearchWorkerInit {
  readonly type: 'init';
  readonly data: SearchWorkerData;
}

/** True when `message` is a {@link SearchWorkerInit}. */
export function isSearchWorkerInit(message: unknown): message is SearchWorkerInit {
  if (typeof message !== 'object' || message === null) return false;
  const { type, data } = message as { type?: unknown; data?: unknown };
  return type === 'init' && isSearchWorkerData(data);
}

/** True when `value` has the shape of {@link SearchWorkerData}. */
function isSearchWorkerData(value: unknown): value is SearchWorkerData {
  if (typeof value !== 'object' || value === null) return false;
  const data = value as Record<string, unknown>;
  return (
    (data['databasePath'] === null || typeof data['databasePath'] === 'string') &&
    typeof data['moduleName'] === 'string' &&
    typeof data['busyTimeoutMs'] === 'number' &&
    data['cancel'] instanceof SharedArrayBuffer
  );
}

/** One listed session of the root, as the index needs it (the worker derives its artifact path: SESSION-LOG.md §9.2–§9.4). */
export interface SyncArtifact {
  readonly sessionId: string;
  readonly cwd: string | null;
  readonly createdAt: number;
}

/**
 * One live session (SESSION-LOG.md §10: its in-memory log wins over any persisted copy), indexed from a capture of
 * its byte log (`main/engine/live/live-byte-log.ts`): the worker decodes only the entries after the position it stored
 * for the same `logId`.
 */
export interface SyncLive {
  readonly sessionId: string;
  readonly cwd: string | null;
  readonly createdAt: number;
  /** The byte log's id; another id (a rebuilt log, another process) means the session is indexed whole. */
  readonly logId: string;
  readonly log: LiveLogCapture;
}

/** A listed persisted session as the caller hands it to the index: the fields of its header the index needs. */
export interface ListedSession {
  readonly id: string;
  readonly cwd?: string | undefined;
  readonly createdAt: number;
}

/** What a backend's `sync` is given: a {@link SyncRequest} whose listing is the store's headers as they are. */
export interface SyncInput extends Omit<SyncRequest, 'type' | 'id' | 'artifacts' | 'removed'> {
  /** The persisted sessions that are not live (their headers; nothing copied), or `null` as in {@link SyncRequest}. */
  readonly artifacts: readonly ListedSession[] | null;
}

/**
 * What a backend's `syncChanges` is given: only the persisted sessions that may have changed since the caller's last
 * sync of the root (not live; their headers as they are) and the ids no longer listed, as in {@link SyncRequest}.
 */
export interface SyncChangesInput extends Omit<SyncInput, 'artifacts'> {
  readonly artifacts: readonly ListedSession[];
  readonly removed: readonly string[];
}

/** Bring the index of one root up to date with its listing. */
export interface SyncRequest {
  readonly type: 'sync';
  readonly id: number;
  /** The root's real path: the key of its sessions in the database. */
  readonly root: string;
  /** The store's root as configured: the artifacts' paths lie under it (the identity rule of SESSION-LOG.md §9.5). */
  readonly storeRoot: string;
  readonly compression: Compression;
  readonly includeTools: boolean;
  /**
   * The persisted sessions that are not live, or `null` to leave every persisted session's entry as it is and bring
   * only the live sessions up to date (the service knows that nothing below the root changed).
   */
  readonly artifacts: readonly SyncArtifact[] | null;
  /**
   * Absent: `artifacts` is the whole listing (or `null`, above). Present (with `artifacts` not `null`): `artifacts` are
   * only the sessions that may have changed since the caller's last sync of this root and these are the ids no longer
   * listed; the caller vouches that every other row is as that sync left it. The worker answers `null` instead of a
   * summary, doing nothing, when it cannot vouch that its rows are those that sync left (a new worker, another
   * connection committed since): the caller then sends the whole listing.
   */
  readonly removed?: readonly string[];
  /** The live sessions; their ids are not among `artifacts` (nor `removed`). */
  readonly live: readonly SyncLive[];
}

/** A resolved query (defaults applied, validated by the service). */
export interface QueryPlan {
  /** The FTS5 string literal of the phrase (already quoted). */
  readonly match: string;
  /** Query the trigram table (the phrase has CJK characters). */
  readonly cjk: boolean;
  readonly cwd: string | null;
  readonly since: number | null;
  readonly until: number | null;
  readonly roles: readonly SearchRole[];
  readonly offset: number;
  readonly limit: number;
  readonly hitsPerSession: number;
  readonly snippetLength: number;
}

/** Run one query over one root's sessions. */
export interface QueryRequest {
  readonly type: 'query';
  readonly id: number;
  readonly root: string;
  readonly plan: QueryPlan;
}

/** Report the index file and what it holds of one root (`sessionctx index status --search`); never creates the file. */
export interface StatusRequest {
  readonly type: 'status';
  readonly id: number;
  readonly root: string;
}

/**
 * Remove the index file (every root's documents: it is one file) once no other connection writes to it; the next
 * request recreates it. A file that is not ours is refused, never removed.
 */
export interface ClearRequest {
  readonly type: 'clear';
  readonly id: number;
  readonly root: string;
}

/** What a status request answers. */
export interface IndexFileStatus {
  /** The file exists (always `false` for an in-memory index). */
  readonly exists: boolean;
  /** Bytes of the file and its write-ahead log. */
  readonly bytes: number;
  /** The schema version the file carries (`null`: no file); another than this build's is rebuilt on the next search. */
  readonly schemaVersion: number | null;
  /** Sessions of the asked root the index holds (0 for a file of another version). */
  readonly sessions: number;
  /** Documents (messages, compaction summaries) of those sessions. */
  readonly documents: number;
  /** Roots the file holds documents of (it is one file for every root). */
  readonly roots: number;
}

/** What a clear request answers. */
export interface IndexClearResult {
  /** A file was there and is gone. */
  readonly removed: boolean;
}

/** A sync request as it crosses to the worker: its listing packed (packed-listing.ts), else the same. */
export interface SyncMessage extends Omit<SyncRequest, 'artifacts'> {
  readonly artifacts: PackedListing | null;
}

/** A sync request of changes only: `removed` present, so `artifacts` is never `null`. */
export type SyncChangesRequest = SyncRequest & { readonly artifacts: readonly SyncArtifact[]; readonly removed: readonly string[] };

/** What the worker is asked. */
export type SearchRequest = SyncMessage | QueryRequest | StatusRequest | ClearRequest;

/** What a sync did. */
export interface SyncSummary {
  /** Sessions of the root the index knows after the sync (persisted and live). */
  readonly sessions: number;
  /** Of them, live sessions (indexed from their byte logs). */
  readonly live: number;
  readonly unchanged: number;
  readonly appended: number;
  readonly rebuilt: number;
  readonly removed: number;
  readonly unindexable: number;
  /** Decoded bytes scanned (appended bytes only for an appended log). */
  readonly scannedBytes: number;
  /** Documents in this root's index after the sync. */
  readonly documents: number;
}

/** One hit as the worker answers it. */
export interface WorkerHit {
  readonly seq: number;
  readonly role: SearchRole;
  readonly time: number;
  readonly snippet: string;
  readonly highlights: readonly HighlightRange[];
}

/** One matching session as the worker answers it (label and mention are added by the service). */
export interface WorkerSessionResult {
  readonly sessionId: string;
  readonly cwd: string | null;
  readonly createdAt: number;
  readonly score: number;
  readonly hits: readonly WorkerHit[];
}

/** A query's answer. */
export interface WorkerPage {
  readonly results: readonly WorkerSessionResult[];
  /** Whether sessions rank after this page (the ranking statement found a row past its limit). */
  readonly more: boolean;
}

/** The values of each request type. */
export interface SearchValues {
  readonly sync: SyncSummary;
  /** A `sync` message with `removed` (changes only): `null` when the worker asks for the whole listing. */
  readonly syncChanges: SyncSummary | null;
  readonly query: WorkerPage;
  readonly status: IndexFileStatus;
  readonly clear: IndexClearResult;
}

/** What the worker sends. */
export type SearchReply =
  | { readonly type: 'progress'; readonly id: number; readonly done: number; readonly total: number }
  | { readonly type: 'result'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly type: 'result'; readonly id: number; readonly ok: false; readonly error: WireError };

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isTime(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function isRole(value: unknown): value is SearchRole {
  return typeof value === 'string' && (SEARCH_ROLES as readonly string[]).includes(value);
}

function isArtifact(value: unknown): value is SyncArtifact {
  return (
    isRecord(value) &&
    typeof value['sessionId'] === 'string' &&
    (value['cwd'] === null || typeof value['cwd'] === 'string') &&
    isTime(value['createdAt'])
  );
}

function isLive(value: unknown): value is SyncLive {
  return isRecord(value) && isArtifact(value) && typeof value['logId'] === 'string' && isLiveLogCapture(value['log']);
}

function isPlan(value: unknown): value is QueryPlan {
  if (!isRecord(value)) return false;
  const nullableTime = (key: string): boolean => value[key] === null || isTime(value[key]);
  return (
    typeof value['match'] === 'string' &&
    typeof value['cjk'] === 'boolean' &&
    (value['cwd'] === null || typeof value['cwd'] === 'string') &&
    nullableTime('since') &&
    nullableTime('until') &&
    Array.isArray(value['roles']) &&
    value['roles'].every(isRole) &&
    isCount(value['offset']) &&
    isCount(value['limit']) &&
    isCount(value['hitsPerSession']) &&
    isCount(value['snippetLength'])
  );
}

/** True when `value` is a well-formed {@link SearchRequest} (the worker's check of what it is asked). */
export function isSearchRequest(value: unknown): value is SearchRequest {
  if (!isRecord(value) || !isCount(value['id']) || typeof value['root'] !== 'string') return false;
  switch (value['type']) {
    case 'sync':
      return (
        typeof value['storeRoot'] === 'string' &&
        (value['compression'] === 'none' || value['compression'] === 'zstd') &&
        typeof value['includeTools'] === 'boolean' &&
        (value['artifacts'] === null || isPackedListing(value['artifacts'])) &&
        (value['removed'] === undefined ||
          (value['artifacts'] !== null && Array.isArray(value['removed']) && value['removed'].every((id) => typeof id === 'string'))) &&
        Array.isArray(value['live']) &&
        value['live'].every(isLive)
      );
    case 'query':
      return isPlan(value['plan']);
    case 'status':
    case 'clear':
      return true;
    default:
      return false;
  }
}

/** True when `value` is a well-formed {@link SearchReply} envelope. */
export function isSearchReply(value: unknown): value is SearchReply {
  if (!isRecord(value) || !isCount(value['id'])) return false;
  if (value['type'] === 'progress') return isCount(value['done']) && isCount(value['total']);
  if (value['type'] !== 'result') return false;
  return value['ok'] === true ? 'value' in value : value['ok'] === false && isWireError(value['error']);
}

const SUMMARY_KEYS = [
  'sessions',
  'live',
  'unchanged',
  'appended',
  'rebuilt',
  'removed',
  'unindexable',
  'scannedBytes',
  'documents',
] as const;

const STATUS_KEYS = ['bytes', 'sessions', 'documents', 'roots'] as const;

function isHit(value: unknown): value is WorkerHit {
  if (!isRecord(value) || !isCount(value['seq']) || !isRole(value['role']) || !isTime(value['time'])) return false;
  const snippet = value['snippet'];
  const highlights = value['highlights'];
  return (
    typeof snippet === 'string' &&
    Array.isArray(highlights) &&
    highlights.every(
      (range: unknown) =>
        Array.isArray(range) &&
        range.length === 2 &&
        isCount(range[0]) &&
        isCount(range[1]) &&
        range[0] < range[1] &&
        range[1] <= snippet.length,
    )
  );
}

function isSessionResult(value: unknown): value is WorkerSessionResult {
  return (
    isRecord(value) &&
    typeof value['sessionId'] === 'string' &&
    (value['cwd'] === null || typeof value['cwd'] === 'string') &&
    isTime(value['createdAt']) &&
    isTime(value['score']) &&
    Array.isArray(value['hits']) &&
    value['hits'].every(isHit)
  );
}

function isSummary(value: unknown): value is SyncSummary {
  return isRecord(value) && SUMMARY_KEYS.every((key) => isCount(value[key]));
}

/** The value checks of each request type (the service's check of what a result carries). */
export const SEARCH_VALUE_CHECKS: { readonly [K in keyof SearchValues]: (value: unknown) => value is SearchValues[K] } = {
  sync: isSummary,
  syncChanges: (value): value is SyncSummary | null => value === null || isSummary(value),
  query: (value): value is WorkerPage =>
    isRecord(value) && typeof value['more'] === 'boolean' && Array.isArray(value['results']) && value['results'].every(isSessionResult),
  status: (value): value is IndexFileStatus =>
    isRecord(value) &&
    typeof value['exists'] === 'boolean' &&
    (value['schemaVersion'] === null || isCount(value['schemaVersion'])) &&
    STATUS_KEYS.every((key) => isCount(value[key])),
  clear: (value): value is IndexClearResult => isRecord(value) && typeof value['removed'] === 'boolean',
};

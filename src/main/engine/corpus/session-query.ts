/**
 * The session query layer (SESSION-LOG.md §10.1–§10.5): live-preferred listing, surface reads and
 * batched title reads over the host's live registry and an optional storage backend.
 *
 * Signal semantics are dsh's: a pre-aborted signal rejects with exactly `signal.reason` before any
 * storage call; an abort during a storage call rejects with the reason only after that call settles;
 * the signal is checked again after every await.
 */
import { SessionQueryError, errorMessage, type SessionQueryErrorCode } from '../../../protocol/errors.js';
import {
  isRecord,
  isSurfaceType,
  type SessionEvent,
  type SessionHeader,
  type SessionId,
  type SessionSurfaceSnapshot,
  type SessionTitleSnapshot,
  type SurfaceEvent,
} from '../../../protocol/events.js';
import { deepFreeze } from '../../../protocol/deep-freeze.js';
import { assertEventDepth } from '../../../protocol/json-depth.js';
import { assertCompatibleHeaders } from '../../../protocol/session-header.js';
import { foldSurface } from '../../../protocol/surface-fold.js';
import type { ListingProblem, ListingReport } from '../../../protocol/listing-problem.js';
import type { LiveRegistry } from './live-registry.js';
import { resolveSessionQueryConfig, type DamagedLogErrors, type SessionQueryConfig, type SessionQueryConfigInput } from './query-config.js';
import type { SessionInspection, SessionStorage } from './session-storage.js';
import { inspectionFailure, listingFailure, sessionNotFound } from './storage-error-mapping.js';
import { assertNever } from '../../../protocol/assert-never.js';
import { observeLiveFirst, observeTitle, rejectedTitle } from './title-observation.js';

/** One `listSessions` record (§10.3), keys exactly `header, live, persisted`. The header is a detached, unfrozen clone. */
export interface SessionRecord {
  readonly header: SessionHeader;
  readonly live: boolean;
  readonly persisted: boolean;
}

/** What `listSessionsReport` returns: the records of `listSessions` and what the storage listing skipped. */
export interface SessionListReport {
  readonly records: SessionRecord[];
  /** The storage's listing problems (SESSION-LOG.md §9.13, tolerant mode); empty without storage or in strict mode. */
  readonly problems: readonly ListingProblem[];
}

/** The value of a fulfilled title observation: the detached header, and `title` only when the log has one. */
export interface SessionTitleValue {
  readonly session: SessionHeader;
  readonly title?: SessionTitleSnapshot;
}

/** A successful title observation of one id (§10.5). */
export interface FulfilledTitleObservation {
  readonly sessionId: SessionId;
  readonly status: 'fulfilled';
  readonly value: SessionTitleValue;
}

/** A failed title observation of one id; `reason` is what the observation threw (mapped per §10.1). */
export interface RejectedTitleObservation {
  readonly sessionId: SessionId;
  readonly status: 'rejected';
  readonly reason: unknown;
}

/** The per-id outcome of `readTitleSnapshots`. */
export type SessionTitleObservation = FulfilledTitleObservation | RejectedTitleObservation;

/** Construction options of `SessionQuery`. */
export interface SessionQueryOptions {
  /** The host's live sessions; they win over persisted copies. */
  readonly registry: LiveRegistry;
  /** The persisted sessions, if the host mounts a backend. */
  readonly storage?: SessionStorage;
  /** Configuration (§10.2); validated once at construction. */
  readonly config?: SessionQueryConfigInput;
  /**
   * Whether an id is listed, from a listing the host keeps current (the warm corpus view): its header; `'unlisted'` when
   * no listing can list it (the lookup, §9.14, finds no artifact of it); `undefined` when undecided. `readSurface`
   * takes a decided answer instead of listing the root (§10.4 step 2), and lists for an undecided one.
   */
  readonly keptListing?: (sessionId: SessionId, signal?: AbortSignal) => Promise<KeptVerdict>;
}

/** What a kept listing says of one id (see {@link SessionQueryOptions.keptListing}). */
export type KeptVerdict = SessionHeader | 'unlisted' | undefined;

/** True when `error` is a `SessionQueryError`, and, when `code` is given, carries that code. */
export function isSessionQueryError(error: unknown, code?: SessionQueryErrorCode): error is SessionQueryError {
  return error instanceof SessionQueryError && (code === undefined || error.code === code);
}

/**
 * Reads sessions for cross-session features: live sessions from the registry, persisted ones from
 * the storage backend, the live copy preferred. Every returned header and event is detached from
 * its source; returned messages are deep-frozen, headers are not.
 */
export class SessionQuery {
  /** The resolved configuration. */
  readonly config: SessionQueryConfig;
  readonly #registry: LiveRegistry;
  #storage: SessionStorage | undefined;
  readonly #keptListing: SessionQueryOptions['keptListing'];

  /** Validates the configuration (throws `SESSION_QUERY_INVALID_CONFIG`) and binds the sources. */
  constructor(options: SessionQueryOptions) {
    this.config = resolveSessionQueryConfig(options.config);
    this.#registry = options.registry;
    this.#storage = options.storage;
    this.#keptListing = options.keptListing;
  }

  /** The storage backend currently mounted, if any. */
  get storage(): SessionStorage | undefined {
    return this.#storage;
  }

  /**
   * Mounts (or, with `undefined`, unmounts) the storage backend. A call already running keeps the
   * backend it started with.
   */
  setStorage(storage: SessionStorage | undefined): void {
    this.#storage = storage;
  }

  /**
   * Every known session (§10.3): persisted headers overlaid by live sessions, sorted by
   * `createdAt` descending, ties by id `localeCompare`. A live header incompatible with its
   * persisted header fails the whole call with `SESSION_QUERY_SOURCE_CONFLICT`.
   */
  async listSessions(signal?: AbortSignal): Promise<SessionRecord[]> {
    signal?.throwIfAborted();
    const storage = this.#storage;
    const persisted = storage === undefined ? [] : await listPersisted(storage, signal);
    signal?.throwIfAborted();
    return this.#records(persisted);
  }

  /**
   * {@link listSessions} with what the storage listing skipped: the same records (same order, same failures),
   * plus the storage's listing problems — an artifact or directory that could not be listed, each once with its
   * path and a stable code. A storage without `listReport` reports none.
   */
  async listSessionsReport(signal?: AbortSignal): Promise<SessionListReport> {
    signal?.throwIfAborted();
    const storage = this.#storage;
    const report: ListingReport = storage === undefined ? { headers: [], problems: [] } : await listPersistedReport(storage, signal);
    signal?.throwIfAborted();
    return { records: this.#records(report.headers), problems: report.problems };
  }

  /** Persisted headers overlaid by live sessions, sorted (§10.3 steps after the listing). */
  #records(persisted: readonly SessionHeader[]): SessionRecord[] {
    const persistedById = new Map<string, SessionHeader>();
    const records = new Map<string, SessionRecord>();
    for (const header of persisted) {
      persistedById.set(header.id, header);
      records.set(header.id, sessionRecord(structuredClone(header), false, true));
    }
    for (const live of this.#registry.list()) {
      const durable = persistedById.get(live.header.id);
      if (durable !== undefined) assertCompatibleHeaders(live.header, durable);
      records.set(live.header.id, sessionRecord(structuredClone(live.header), true, durable !== undefined));
    }
    return [...records.values()].sort(compareRecords);
  }

  /** The kept listing's verdict on `sessionId`, `undefined` when it cannot answer. */
  async #kept(sessionId: SessionId, signal: AbortSignal | undefined): Promise<KeptVerdict> {
    try {
      return await (this.#keptListing as NonNullable<SessionQueryOptions['keptListing']>)(sessionId, signal);
    } catch {
      // A kept listing that cannot answer (its root unreadable): the fresh listing decides and reports.
      signal?.throwIfAborted();
      return undefined;
    }
  }

  /**
   * The current surface of one session (§10.4): the live log if the session is live, else the
   * persisted log after a listing and an inspection. Rejects with `SESSION_QUERY_SESSION_NOT_FOUND`,
   * the storage mapping of §10.1, `SESSION_QUERY_SOURCE_CONFLICT` or `SESSION_QUERY_INVALID_SURFACE`.
   */
  async readSurface(sessionId: SessionId, signal?: AbortSignal): Promise<SessionSurfaceSnapshot> {
    signal?.throwIfAborted();
    const live = this.#registry.get(sessionId);
    if (live !== undefined) return liveSurfaceSnapshot(live.header, live.events);
    const storage = this.#storage;
    if (storage === undefined) throw notFound(sessionId);
    // No extra turn without a kept listing: the storage calls are where an abort is observed (§10.1).
    const kept = this.#keptListing === undefined ? undefined : await this.#kept(sessionId, signal);
    if (kept === 'unlisted') {
      signal?.throwIfAborted();
      throw notFound(sessionId);
    }
    const listed = kept ?? (await listPersisted(storage, signal)).find((header) => header.id === sessionId);
    signal?.throwIfAborted();
    if (listed === undefined) throw notFound(sessionId);
    const inspection = await inspectPersisted(storage, sessionId, signal, this.config.damagedLogErrors);
    signal?.throwIfAborted();
    // A session attached while storage was being read is newer than what storage returned.
    const attached = this.#registry.get(sessionId);
    if (attached !== undefined) return liveSurfaceSnapshot(attached.header, attached.events);
    assertCompatibleHeaders(inspection.meta, listed);
    return surfaceSnapshot(inspection.meta, inspection.events);
  }

  /**
   * Title observations for many ids (§10.5): one result per unique id in first-occurrence order.
   * Live ids are folded at once; the rest share one listing and at most
   * `persistedInspectConcurrency` simultaneous inspections, each folded before its worker takes
   * the next id. A failure rejects only its id; an abort rejects the whole call with `signal.reason`
   * once started inspections have settled.
   *
   * `listing`: the persisted headers of a listing the caller made itself (a publisher walking its own listing in
   * batches), used instead of listing the root again — one listing per batch would make a pass over N sessions cost
   * N/batch listings. An id it does not hold is treated as unlisted (step 5), exactly as a fresh listing missing it.
   */
  async readTitleSnapshots(
    ids: Iterable<SessionId>,
    signal?: AbortSignal,
    listing?: readonly SessionHeader[],
  ): Promise<SessionTitleObservation[]> {
    const { uniqueIds, results, unresolved } = observeLiveFirst(ids, this.#registry, signal);
    if (unresolved.length === 0) return orderedResults(uniqueIds, results);

    const storage = this.#storage;
    if (storage === undefined) {
      for (const id of unresolved) results.set(id, rejectedTitle(id, notFound(id)));
      return orderedResults(uniqueIds, results);
    }

    let listed: readonly SessionHeader[];
    try {
      listed = listing ?? (await listPersisted(storage, signal));
    } catch (error: unknown) {
      // A listing that failed under abort fails the whole call with signal.reason (step 4).
      signal?.throwIfAborted();
      for (const id of unresolved) results.set(id, rejectedTitle(id, error));
      return orderedResults(uniqueIds, results);
    }
    signal?.throwIfAborted();
    const listedById = headersById(listed);

    let cursor = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        signal?.throwIfAborted();
        const id = unresolved[cursor];
        if (id === undefined) return;
        cursor += 1;
        results.set(id, await this.#observePersistedTitle(storage, id, listedById.get(id), listed, signal));
      }
    };
    const workerCount = Math.min(this.config.persistedInspectConcurrency, unresolved.length);
    // allSettled, not all: on abort every started inspection must settle before the call rejects.
    const settlements = await Promise.allSettled(Array.from({ length: workerCount }, () => worker()));
    signal?.throwIfAborted();
    for (const settlement of settlements) {
      if (settlement.status === 'rejected') throw settlement.reason;
    }
    return orderedResults(uniqueIds, results);
  }

  /** The title observation of one id (§10.5): its value, or a rejection with its reason. */
  async readTitleSnapshot(sessionId: SessionId, signal?: AbortSignal): Promise<SessionTitleValue> {
    const [observation] = await this.readTitleSnapshots([sessionId], signal);
    if (observation === undefined) throw new Error('readTitleSnapshots returned no result for one id');
    switch (observation.status) {
      case 'fulfilled':
        return observation.value;
      case 'rejected':
        throw observation.reason;
      default:
        return assertNever(observation, 'unexpected title observation');
    }
  }

  /** The folded title of one session, or `undefined` when its log has none. */
  async readTitle(sessionId: SessionId, signal?: AbortSignal): Promise<SessionTitleSnapshot | undefined> {
    return (await this.readTitleSnapshot(sessionId, signal)).title;
  }

  /**
   * Step 5 of §10.5 for one id. Throws only `signal.reason` (when aborted); every other failure
   * becomes this id's rejection.
   */
  async #observePersistedTitle(
    storage: SessionStorage,
    id: SessionId,
    listed: SessionHeader | undefined,
    listing: readonly SessionHeader[],
    signal: AbortSignal | undefined,
  ): Promise<SessionTitleObservation> {
    if (listed === undefined) {
      const attached = this.#registry.get(id);
      return attached === undefined ? rejectedTitle(id, notFound(id)) : observeTitle(id, attached.header, attached.events, signal);
    }
    let inspection: SessionInspection;
    try {
      inspection = await inspectPersistedTitle(storage, id, listing, signal, this.config.damagedLogErrors);
    } catch (error: unknown) {
      // inspectPersistedTitle already mapped the failure, or turned it into signal.reason under abort.
      signal?.throwIfAborted();
      return rejectedTitle(id, error);
    }
    signal?.throwIfAborted();
    const attached = this.#registry.get(id);
    if (attached !== undefined) return observeTitle(id, attached.header, attached.events, signal);
    try {
      assertCompatibleHeaders(inspection.meta, listed);
    } catch (error: unknown) {
      return rejectedTitle(id, error);
    }
    return observeTitle(id, inspection.meta, inspection.events, signal);
  }
}

/**
 * A listing's headers by id, made once per listing: a caller reading titles batch by batch against its own listing
 * (a fleet publish) would otherwise index all N headers again for each batch.
 */
const listingsById = new WeakMap<readonly SessionHeader[], ReadonlyMap<string, SessionHeader>>();

/** The headers of `listing` by id (filled in order, as before: a later header of the same id replaces an earlier one). */
export function headersById(listing: readonly SessionHeader[]): ReadonlyMap<string, SessionHeader> {
  let byId = listingsById.get(listing);
  if (byId === undefined) {
    const made = new Map<string, SessionHeader>();
    for (const header of listing) made.set(header.id, header);
    byId = made;
    listingsById.set(listing, byId);
  }
  return byId;
}

/** Storage listing with its problems, with the §10.1 mapping. */
async function listPersistedReport(storage: SessionStorage, signal: AbortSignal | undefined): Promise<ListingReport> {
  try {
    if (storage.listReport !== undefined) return await storage.listReport(signal);
    return { headers: await storage.list(signal), problems: [] };
  } catch (error: unknown) {
    signal?.throwIfAborted();
    throw listingFailure(error);
  }
}

/** Storage listing with the §10.1 mapping. */
async function listPersisted(storage: SessionStorage, signal: AbortSignal | undefined): Promise<readonly SessionHeader[]> {
  try {
    return await storage.list(signal);
  } catch (error: unknown) {
    signal?.throwIfAborted();
    throw listingFailure(error);
  }
}

/** Storage inspection with the §10.1 mapping (corruption recognised by error name, as dsh does). */
async function inspectPersisted(
  storage: SessionStorage,
  sessionId: SessionId,
  signal: AbortSignal | undefined,
  damaged: DamagedLogErrors,
): Promise<SessionInspection> {
  try {
    return await storage.inspect(sessionId, signal);
  } catch (error: unknown) {
    signal?.throwIfAborted();
    throw inspectionFailure(sessionId, error, damaged);
  }
}

/**
 * The observation of step 5 of §10.5: the backend's title observation when it offers one (the title index,
 * §10.7; it gets the call's own `listing`), else a full inspection; failures mapped like an inspection's (§10.1).
 */
async function inspectPersistedTitle(
  storage: SessionStorage,
  sessionId: SessionId,
  listing: readonly SessionHeader[],
  signal: AbortSignal | undefined,
  damaged: DamagedLogErrors,
): Promise<SessionInspection> {
  if (storage.inspectTitle === undefined) return inspectPersisted(storage, sessionId, signal, damaged);
  try {
    return await storage.inspectTitle(sessionId, signal, listing);
  } catch (error: unknown) {
    signal?.throwIfAborted();
    throw inspectionFailure(sessionId, error, damaged);
  }
}

/**
 * `SESSION_QUERY_INVALID_SURFACE`, `invalid session surface: <m>`, cause kept: step 6 of §10.4, and what a live log
 * with an event beyond the nesting limit of SESSION-LOG.md §9.15a gives on every path (here and in the pool renderer).
 */
export function invalidSurfaceError(cause: unknown): SessionQueryError {
  return new SessionQueryError('SESSION_QUERY_INVALID_SURFACE', `invalid session surface: ${errorMessage(cause)}`, { cause });
}

/**
 * Live events already found within the nesting limit. Only frozen events are remembered (a host's events are
 * deep-frozen, SESSION-LOG.md §2.4 rule 7), so a later read of a long live log checks only what it has not seen.
 */
const checkedLiveEvents = new WeakSet<object>();

/**
 * Steps 6–8 of §10.4 over a live observation, after the nesting limit of SESSION-LOG.md §9.15a: persisted logs are
 * checked when decoded, live logs here, so that no event is cloned that would overflow `structuredClone`; an event
 * beyond the limit fails the read with {@link invalidSurfaceError} (its cause `SESSION_LOG_TOO_DEEP`), as the pool
 * renderer's capture of the same log does.
 */
function liveSurfaceSnapshot(header: SessionHeader, events: readonly SessionEvent[]): SessionSurfaceSnapshot {
  try {
    for (const event of events) {
      if (checkedLiveEvents.has(event)) continue;
      assertEventDepth(event);
      if (Object.isFrozen(event) && Object.isFrozen(event.data)) checkedLiveEvents.add(event);
    }
  } catch (error: unknown) {
    throw invalidSurfaceError(error);
  }
  return surfaceSnapshot(header, events);
}

/**
 * Steps 6–8 of §10.4 over one observation. Called synchronously right after the observation is
 * taken, so folding the source events in place and cloning only the current surface events gives
 * the same result as cloning the whole log first, without copying logs of tens of MB.
 */
function surfaceSnapshot(header: SessionHeader, events: readonly SessionEvent[]): SessionSurfaceSnapshot {
  let surfaceSeqs: readonly number[];
  try {
    surfaceSeqs = foldSurface(events).surfaceSeqs();
  } catch (error: unknown) {
    throw invalidSurfaceError(error);
  }
  const surfaceEvents = surfaceSeqs.map((seq) => detachSurfaceEvent(surfaceEventAt(events, seq)));
  const last = events.at(-1);
  return {
    session: structuredClone(header),
    capturedThroughSeq: last === undefined ? null : last.seq,
    events: surfaceEvents,
  };
}

/** The event a folded surface node names; the fold guarantees contiguity, so seq is the index. */
function surfaceEventAt(events: readonly SessionEvent[], seq: number): SurfaceEvent {
  const event = events[seq];
  if (event === undefined || event.seq !== seq || !isSurfaceType(event.type)) {
    // Unreachable after a successful fold; kept so a fold bug cannot return a wrong event silently.
    throw new SessionQueryError('SESSION_QUERY_INVALID_SURFACE', `invalid session surface: current node ${seq} is not a surface event`);
  }
  return event as SurfaceEvent;
}

/** A structured clone of a surface event with its message deep-frozen (the envelope stays unfrozen). */
function detachSurfaceEvent(event: SurfaceEvent): SurfaceEvent {
  const copy = structuredClone(event) as SurfaceEvent;
  switch (copy.type) {
    case 'user/message':
      deepFreeze(copy.data);
      break;
    case 'assistant/message':
    case 'tool/result':
      // Folding does not validate message shapes, so a non-validating storage may omit the payload record.
      if (isRecord(copy.data)) deepFreeze(copy.data['message']);
      break;
    default:
      assertNever(copy.type, 'unexpected surface event type');
  }
  return copy;
}

function orderedResults(ids: readonly SessionId[], results: ReadonlyMap<SessionId, SessionTitleObservation>): SessionTitleObservation[] {
  return ids.map((id) => {
    const result = results.get(id);
    if (result === undefined) throw new Error(`title observation of session "${id}" was never settled`);
    return result;
  });
}

function sessionRecord(header: SessionHeader, live: boolean, persisted: boolean): SessionRecord {
  return { header, live, persisted };
}

/**
 * The order of `listSessions` (§10.3): `createdAt` descending, ties by id `localeCompare` in the host default
 * locale, as dsh. Shared with the warm corpus view, which must order exactly as this layer does.
 */
export function compareRecords(a: SessionRecord, b: SessionRecord): number {
  return b.header.createdAt - a.header.createdAt || a.header.id.localeCompare(b.header.id);
}

function notFound(sessionId: SessionId): SessionQueryError {
  return sessionNotFound(sessionId);
}

/**
 * Discovery answered from the warm corpus view (issue 15, item 1): `listSessions`, `listSessionsReport` and the
 * title observations discovery asks for, computed over a {@link CorpusView} snapshot instead of a fresh listing.
 *
 * Equality with the cold query layer (`session-query.ts`): the persisted part is the store's tolerant listing as
 * the view holds it; live sessions are overlaid on every call exactly as `SessionQuery` overlays them (live
 * preferred, the same header check, the same order); a title observation the view has not seen for the
 * artifact's current check is computed by a `SessionQuery` over that snapshot, so mapping, checks and failures are
 * the query layer's own; only fulfilled observations are kept, keyed by the check they were made at. Whenever the
 * view cannot answer (the root cannot be read), the call runs the cold path instead, which fails as it always did.
 *
 * Exact reads never come here: `readSurface`, `prepare` and the engine's `readTitleSnapshots` read and validate
 * their artifact as before (`prepare` and `readSurface` ask the view itself only whether an id is listed:
 * `engine-discovery.ts`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SessionHeader, SessionId } from '../../../protocol/events.js';
import { assertCompatibleHeaders } from '../../../protocol/session-header.js';
import { join } from 'node:path';
import type { JsonlSessionStore } from '../store/jsonl-store.js';
import type { ListingProblem } from '../../../protocol/listing-problem.js';
import { CorpusView, dearerServed, type CorpusSnapshot, type DiscoveryServed, type ViewSessionEntry } from './corpus-view.js';
import { InMemoryLiveRegistry, type LiveRegistry, type LiveSession } from './live-registry.js';
import type { SessionQueryConfigInput } from './query-config.js';
import { compareRecords, SessionQuery, type SessionListReport, type SessionRecord, type SessionTitleObservation } from './session-query.js';
import type { SessionStorage } from './session-storage.js';
import { sessionNotFound } from './storage-error-mapping.js';
import { observeTitle, rejectedTitle } from './title-observation.js';
import type { FileRevision } from '../../../io/file-revision.js';
import { sortInSlices } from '../../../io/sliced-sort.js';
import { CHEAP_STEP_CLOCK_EVERY, TimeSlice } from '../../../io/time-slice.js';
import { yieldToEventLoop } from '../../../io/yield-to-event-loop.js';

/** The engine calls whose discovery is reported. */
export type DiscoveryOperation = 'listCandidates' | 'candidates' | 'listSessions' | 'listSessionsReport';

/**
 * How one discovery call was served (issue 15, item 4), reported through the engine's `onDiscovery` option. The
 * call's result is the same whichever way it was served.
 *
 * - `served`: `warm` — from memory, nothing had changed; `incremental` — only what notifications or the sweep
 *   marked was read again; `revalidated` — the staleness bound had run out, so the call stat'ed everything first;
 *   `cold` — a full scan (the first call, a replaced or reappeared root, the view switched off or unable to
 *   answer).
 * - `rechecked`: session directories read again for this call.
 * - `titleMisses`: title observations computed for this call (not answered from memory).
 */
export interface DiscoveryReport {
  readonly operation: DiscoveryOperation;
  readonly served: DiscoveryServed;
  readonly rechecked: number;
  readonly titleMisses: number;
}

interface CallRecord {
  served: DiscoveryServed | undefined;
  rechecked: number;
  titleMisses: number;
}

const calls = new AsyncLocalStorage<CallRecord>();

/**
 * Runs one engine call and reports how its discovery was served. Without `report` the call runs as is. A call
 * that never reached the warm view (switched off, no root) is `cold`.
 */
export async function recordDiscovery<T>(
  operation: DiscoveryOperation,
  work: () => Promise<T>,
  report: ((report: DiscoveryReport) => void) | undefined,
): Promise<T> {
  if (report === undefined) return work();
  const record: CallRecord = { served: undefined, rechecked: 0, titleMisses: 0 };
  const result = await calls.run(record, work);
  report({ operation, served: record.served ?? 'cold', rechecked: record.rechecked, titleMisses: record.titleMisses });
  return result;
}

function note(served: DiscoveryServed, rechecked = 0): void {
  const record = calls.getStore();
  if (record === undefined) return;
  record.served = record.served === undefined ? served : dearerServed(record.served, served);
  record.rechecked += rechecked;
}

function noteMisses(count: number): void {
  const record = calls.getStore();
  if (record !== undefined) record.titleMisses += count;
}

/**
 * The warm view's version and what changed since an earlier one ({@link WarmDiscovery.corpusChanges}).
 */
export interface CorpusChangeReport {
  /** The view's current snapshot, as an opaque version. */
  readonly version: object;
  /**
   * The persisted sessions that may have changed since the earlier version: those still listed (the view's own
   * frozen headers; callers must not mutate them) and the ids no longer listed. `undefined`: unknown (no earlier
   * version, a full build, more changes than the view keeps): anything may have changed.
   */
  readonly changed: { readonly listed: readonly SessionHeader[]; readonly removed: readonly string[] } | undefined;
}

/** The cold paths the warm one falls back to (the engine's query layers over the store). */
export interface ColdDiscovery {
  listSessionsReport(signal?: AbortSignal): Promise<SessionListReport>;
  readTitleSnapshots(ids: Iterable<SessionId>, signal?: AbortSignal): Promise<SessionTitleObservation[]>;
}

/** Construction options of {@link WarmDiscovery}. */
export interface WarmDiscoveryOptions {
  readonly store: JsonlSessionStore;
  readonly registry: LiveRegistry;
  readonly view: CorpusView;
  readonly cold: ColdDiscovery;
  /** The query layer's configuration (its `persistedInspectConcurrency` bounds title misses). */
  readonly queryConfig?: SessionQueryConfigInput;
}

/**
 * A fulfilled title observation and what it depended on: the artifact's check (a new object when the directory is
 * checked again) and where the listing found the segments (the lookup path of the id follows from it).
 */
interface CachedTitle {
  readonly entry: ViewSessionEntry;
  readonly segments: CorpusSnapshot['segments'];
  readonly observation: SessionTitleObservation;
}

/** Persisted records sorted once per snapshot, and the snapshot they belong to. */
interface SortedRecords {
  readonly snapshot: CorpusSnapshot;
  /** The sort, settled or still running in slices. */
  readonly records: Promise<readonly SessionRecord[]>;
}

/**
 * A live session a memoized title answer held, the index of its observation there (-1: not asked), and how many
 * events its log had when observed (a live log only grows, SESSION-LOG.md §1: the same length is the same log).
 */
interface LiveSlot {
  readonly session: LiveSession;
  index: number;
  length: number;
}

/** True when two fulfilled observations carry the same header and title (a live log folded again). */
function sameTitleValue(observed: SessionTitleObservation, previous: SessionTitleObservation): boolean {
  return (
    previous.status === 'fulfilled' && observed.status === 'fulfilled' && JSON.stringify(observed.value) === JSON.stringify(previous.value)
  );
}

/** `slots` with the index of each one's observation in `answer` (the answer is in first-occurrence order of the ids). */
function placeLiveSlots(slots: LiveSlot[], answer: readonly SessionTitleObservation[]): LiveSlot[] {
  if (slots.length === 0) return slots;
  const wanted = new Map(slots.map((slot) => [slot.session.header.id as string, slot]));
  for (let index = 0; index < answer.length; index += 1) {
    const slot = wanted.get((answer[index] as SessionTitleObservation).sessionId);
    if (slot !== undefined) slot.index = index;
  }
  return slots;
}

const NO_LIVE_SESSIONS = new InMemoryLiveRegistry();

/** Records detached between two hops of a listing (about a millisecond of `structuredClone`). */
const DETACH_SLICE_RECORDS = 500;

/** Discovery over the warm view; see the module comment. */
export class WarmDiscovery {
  readonly #store: JsonlSessionStore;
  readonly #registry: LiveRegistry;
  readonly #view: CorpusView;
  readonly #cold: ColdDiscovery;
  readonly #queryConfig: SessionQueryConfigInput | undefined;
  readonly #titles = new Map<string, CachedTitle>();
  #sorted: SortedRecords | undefined;
  /** Counts every change of {@link #titles}: an answer read at one generation holds at that generation only. */
  #titleGeneration = 0;
  /** The last answer of {@link readTitleSnapshots} that may be given again (see `#repeatedAnswer`). */
  #lastAnswer:
    | {
        readonly snapshot: CorpusSnapshot;
        readonly generation: number;
        readonly asked: readonly SessionId[];
        answer: SessionTitleObservation[];
        /** The live sessions when it was read, in the registry's order, and where each one's observation is. */
        readonly live: readonly LiveSlot[];
      }
    | undefined;
  /** The last overlay of live sessions on a snapshot's records (see `#overlay`). */
  #lastOverlay:
    | {
        readonly persisted: readonly SessionRecord[];
        readonly live: readonly LiveSession[];
        readonly headers: readonly SessionHeader[];
        readonly records: readonly SessionRecord[];
      }
    | undefined;

  /** The snapshot the latest call was answered from (what {@link listedArtifactRevision} reads). */
  #lastSnapshot: CorpusSnapshot | undefined;
  #prefetching = false;
  #prefetchWanted: CorpusSnapshot | undefined;

  constructor(options: WarmDiscoveryOptions) {
    this.#store = options.store;
    this.#registry = options.registry;
    this.#view = options.view;
    this.#cold = options.cold;
    this.#queryConfig = options.queryConfig;
    this.#view.setBackgroundRefreshListener((snapshot) => this.#prefetch(snapshot));
    // ICU loads its collator on the first `localeCompare` of the process (≈ 6 ms in one stretch): loaded with the
    // engine, not inside the first listing's sort, a background job (issue 27 item 6).
    'a'.localeCompare('b');
    // Validated now, as the cold layers validate theirs at construction.
    new SessionQuery({ registry: NO_LIVE_SESSIONS, ...(options.queryConfig === undefined ? {} : { config: options.queryConfig }) });
  }

  /** The view's snapshot, or `undefined` when it cannot answer (the caller runs the cold path). */
  async #snapshot(): Promise<CorpusSnapshot | undefined> {
    try {
      const { snapshot, served, rechecked } = await this.#view.current();
      note(served, rechecked);
      this.#lastSnapshot = snapshot;
      return snapshot;
    } catch {
      // The root could not be read (or the view is closed): the cold path meets the same failure and reports it
      // with the query layer's mapping.
      note('cold');
      return undefined;
    }
  }

  /**
   * The view's current snapshot as an opaque version (after taking in what notifications marked) and what changed
   * since `since`, an earlier version: the same object while nothing below the root changed as far as the view knows
   * — within its staleness bound, as for discovery — a new one after any change; `undefined` when the view cannot
   * answer. What lets a derived index (full-text search) skip its own `stat` pass over an unchanged corpus, and look
   * only at the sessions that changed otherwise.
   */
  async corpusChanges(since: object | undefined, signal?: AbortSignal): Promise<CorpusChangeReport | undefined> {
    signal?.throwIfAborted();
    const snapshot = await this.#snapshot();
    signal?.throwIfAborted();
    if (snapshot === undefined) return undefined;
    if (since === snapshot) return { version: snapshot, changed: { listed: [], removed: [] } };
    const ids = since === undefined ? undefined : this.#view.changesBetween(since, snapshot);
    if (ids === undefined) return { version: snapshot, changed: undefined };
    const listed: SessionHeader[] = [];
    const removed: string[] = [];
    for (const id of ids) {
      const header = snapshot.headerById.get(id);
      if (header === undefined) removed.push(id);
      else listed.push(header);
    }
    return { version: snapshot, changed: { listed, removed } };
  }

  /**
   * The revision the view recorded for the log of listed session `id` when it last checked it, in the snapshot the
   * latest call was answered from (`undefined`: not listed there, its log not read, or no call yet). Current within
   * the view's staleness bound, as the listing itself: what lets a caller that shows each session's size and keys its
   * memo on the log's revision (the Web's listing) skip a `stat` per session after every listing.
   */
  listedArtifactRevision(id: string): FileRevision | undefined {
    return this.#lastSnapshot?.entryById.get(id)?.artifactRevision;
  }

  /**
   * The persisted sessions' headers as the view holds them (its own frozen listing objects, in walk order, live
   * sessions not overlaid), or `undefined` when the view cannot answer. For a derived index that needs each
   * session's id, cwd and time only (full-text search): no copy, no sort, so a search over 10,000 sessions does not
   * stall the thread for the tens of milliseconds detaching them costs. Callers must not mutate them.
   */
  async persistedHeaders(signal?: AbortSignal): Promise<readonly SessionHeader[] | undefined> {
    signal?.throwIfAborted();
    const snapshot = await this.#snapshot();
    signal?.throwIfAborted();
    return snapshot?.headers;
  }

  /**
   * `SessionQuery.listSessionsReport` over the view: detached records, the listing's problems. The records are
   * detached {@link DETACH_SLICE_RECORDS} at a time with a macrotask hop between (issue 27 item 6: cloning 5,000
   * headers held the host's thread in one stretch); they are copies of one snapshot, whatever changes meanwhile.
   */
  async listSessionsReport(signal?: AbortSignal): Promise<SessionListReport> {
    const shared = await this.discoveryReport(signal);
    const records: SessionRecord[] = [];
    for (const record of shared.records) {
      if (records.length > 0 && records.length % DETACH_SLICE_RECORDS === 0) {
        await yieldToEventLoop();
        signal?.throwIfAborted();
      }
      records.push({ header: structuredClone(record.header), live: record.live, persisted: record.persisted });
    }
    return { records, problems: [...shared.problems] };
  }

  /** `SessionQuery.listSessions` over the view. */
  async listSessions(signal?: AbortSignal): Promise<SessionRecord[]> {
    return (await this.listSessionsReport(signal)).records;
  }

  /**
   * The records and problems of {@link listSessionsReport} without detaching them: persisted headers are the
   * view's own (frozen listing objects), for discovery, which only reads them. Callers must not mutate them.
   */
  async discoveryReport(
    signal?: AbortSignal,
  ): Promise<{ readonly records: readonly SessionRecord[]; readonly problems: readonly ListingProblem[] }> {
    signal?.throwIfAborted();
    const snapshot = await this.#snapshot();
    signal?.throwIfAborted();
    if (snapshot === undefined) return this.#cold.listSessionsReport(signal);
    const persisted = await this.#persistedRecords(snapshot);
    signal?.throwIfAborted();
    return { records: this.#overlay(snapshot, persisted), problems: snapshot.problems };
  }

  /** Persisted records of `snapshot` (`persisted`, sorted) overlaid by live sessions, in `SessionQuery`'s order. */
  #overlay(snapshot: CorpusSnapshot, persisted: readonly SessionRecord[]): readonly SessionRecord[] {
    const live = [...this.#registry.list()];
    // The snapshot's own frozen records, the same array while nothing changed: its readers never mutate it, and a
    // caller that keys work on it (discovery's order per keystroke) finds it again.
    if (live.length === 0) return persisted;
    // Likewise the previous overlay while the snapshot, the live sessions and their headers are the same.
    const last = this.#lastOverlay;
    if (
      last !== undefined &&
      last.persisted === persisted &&
      last.live.length === live.length &&
      live.every((session, index) => last.live[index] === session && last.headers[index] === session.header)
    ) {
      return last.records;
    }
    const records = Object.freeze(this.#overlayOnce(snapshot, persisted, live));
    this.#lastOverlay = { persisted, live, headers: live.map((session) => session.header), records };
    return records;
  }

  /** {@link #overlay} made afresh. */
  #overlayOnce(snapshot: CorpusSnapshot, persisted: readonly SessionRecord[], live: readonly LiveSession[]): SessionRecord[] {
    const liveRecords: SessionRecord[] = [];
    const liveIds = new Set<string>();
    for (const session of live) {
      const durable = snapshot.headerById.get(session.header.id);
      if (durable !== undefined) assertCompatibleHeaders(session.header, durable);
      liveIds.add(session.header.id);
      liveRecords.push({ header: structuredClone(session.header), live: true, persisted: durable !== undefined });
    }
    liveRecords.sort(compareRecords);
    // Merge the two sorted runs. A tie (two ids that compare equal) would make the order depend on the input order
    // the query layer sorts from, so the rare tie falls back to exactly that sort.
    for (let index = 1; index < liveRecords.length; index += 1) {
      if (compareRecords(liveRecords[index - 1] as SessionRecord, liveRecords[index] as SessionRecord) === 0)
        return this.#overlayBySort(snapshot, live);
    }
    const merged: SessionRecord[] = [];
    let next = 0;
    for (const record of persisted) {
      if (liveIds.has(record.header.id)) continue;
      for (let candidate = liveRecords[next]; candidate !== undefined; candidate = liveRecords[next]) {
        const order = compareRecords(candidate, record);
        if (order === 0) return this.#overlayBySort(snapshot, live);
        if (order > 0) break;
        merged.push(candidate);
        next += 1;
      }
      merged.push(record);
    }
    for (let index = next; index < liveRecords.length; index += 1) merged.push(liveRecords[index] as SessionRecord);
    return merged;
  }

  /** `SessionQuery`'s own overlay: persisted in walk order, live replacing or appended, one sort. */
  #overlayBySort(snapshot: CorpusSnapshot, live: readonly { readonly header: SessionHeader }[]): SessionRecord[] {
    const records = new Map<string, SessionRecord>();
    for (const header of snapshot.headers) records.set(header.id, { header, live: false, persisted: true });
    for (const session of live) {
      const durable = snapshot.headerById.get(session.header.id);
      records.set(session.header.id, { header: structuredClone(session.header), live: true, persisted: durable !== undefined });
    }
    return [...records.values()].sort(compareRecords);
  }

  /**
   * The snapshot's persisted records, sorted once per snapshot (stable: ties keep walk order, as the query layer's
   * sort), in time slices (issue 27 item 6: one sort of 5,000 records held the thread 11 ms). Concurrent callers for
   * the same snapshot share the one sort.
   */
  #persistedRecords(snapshot: CorpusSnapshot): Promise<readonly SessionRecord[]> {
    if (this.#sorted?.snapshot === snapshot) return this.#sorted.records;
    const records = (async () => {
      const slice = new TimeSlice({ clockEvery: CHEAP_STEP_CLOCK_EVERY });
      const unsorted: SessionRecord[] = [];
      for (const header of snapshot.headers) {
        if (slice.due()) await slice.hop();
        unsorted.push(Object.freeze({ header, live: false, persisted: true }));
      }
      return Object.freeze(await sortInSlices(unsorted, compareRecords, slice));
    })();
    this.#sorted = { snapshot, records };
    // A failed sort (none is expected: the comparator only reads frozen headers) is not kept for the next call.
    records.catch(() => {
      if (this.#sorted?.records === records) this.#sorted = undefined;
    });
    return records;
  }

  /**
   * `SessionQuery.readTitleSnapshots` over the view: live ids first, then each listed id from memory when its
   * artifact's check has not changed since it was observed, the rest observed now. The returned observations may
   * be shared with other calls: read them, do not mutate them.
   */
  async readTitleSnapshots(ids: Iterable<SessionId>, signal?: AbortSignal): Promise<SessionTitleObservation[]> {
    // A copy: what the memo below compares the next question with must not change under it.
    const asked: readonly SessionId[] = [...ids];
    const repeated = await this.#repeatedAnswer(asked, signal);
    if (repeated !== undefined) return repeated;
    const generation = this.#titleGeneration;
    // Taken before the read: a live log that grows during it is folded again by the next repeated question.
    const live = this.#liveBefore();
    const { answer, from } = await this.#readTitleSnapshots(asked, signal);
    // Kept only when the view answered, no title was kept meanwhile (the generation names the title cache's state the
    // answer was read from), and every title was read (a failed read is tried again by the next call, as before). A
    // live session's title changes with no new snapshot: where each live observation sits is kept, to observe again.
    if (from !== undefined && generation === this.#titleGeneration && answer.every((observation) => observation.status === 'fulfilled')) {
      this.#lastAnswer = { snapshot: from, generation, asked, answer, live: placeLiveSlots(live, answer) };
    }
    return answer;
  }

  /** The attached sessions in the registry's order, with their logs as they are now (no index yet). */
  #liveBefore(): LiveSlot[] {
    const slots: LiveSlot[] = [];
    for (const session of this.#registry.list()) slots.push({ session, index: -1, length: session.events.length });
    return slots;
  }

  /**
   * The previous answer, when the question is the same ids in the same order, the view's snapshot is the same, no
   * title was kept since and the same live sessions are attached: every observation would be the one that answer holds,
   * but for a live log that grew since, folded again (discovery asks this of every listed session on each keystroke;
   * issue 27 item 3, 100,000 sessions).
   */
  async #repeatedAnswer(asked: readonly SessionId[], signal?: AbortSignal): Promise<SessionTitleObservation[] | undefined> {
    const last = this.#lastAnswer;
    if (last === undefined || last.generation !== this.#titleGeneration || last.asked.length !== asked.length) return undefined;
    if (!this.#sameLiveSessions(last.live)) return undefined;
    const snapshot = await this.#snapshot();
    signal?.throwIfAborted();
    if (snapshot !== last.snapshot || last.generation !== this.#titleGeneration || !this.#sameLiveSessions(last.live)) return undefined;
    for (let index = 0; index < asked.length; index += 1) if (asked[index] !== last.asked[index]) return undefined;
    // A live log that grew since is folded again (its title may have changed: no snapshot says so); an unchanged one is
    // not (a fold is a pass over the whole log, per keystroke). The same answer while each title equals what it was, so
    // what callers key on it (discovery's labels and match keys) is kept.
    let answer = last.answer;
    for (const slot of last.live) {
      const { session, index } = slot;
      if (index < 0 || session.events.length === slot.length) continue;
      const observed = observeTitle(session.header.id, session.header, session.events, signal);
      if (observed.status !== 'fulfilled') return undefined;
      slot.length = session.events.length;
      if (sameTitleValue(observed, answer[index] as SessionTitleObservation)) continue;
      if (answer === last.answer) answer = [...answer];
      answer[index] = observed;
    }
    last.answer = answer;
    return answer;
  }

  /** True when the registry holds exactly `slots`' sessions, in the same order. */
  #sameLiveSessions(slots: readonly LiveSlot[]): boolean {
    let index = 0;
    for (const session of this.#registry.list()) {
      if (slots[index]?.session !== session) return false;
      index += 1;
    }
    return index === slots.length;
  }

  /** The answer of {@link readTitleSnapshots}, and the snapshot it comes from (`undefined`: all live, or cold). */
  async #readTitleSnapshots(
    ids: readonly SessionId[],
    signal?: AbortSignal,
  ): Promise<{ readonly answer: SessionTitleObservation[]; readonly from: CorpusSnapshot | undefined }> {
    // One pass builds the answer in first-occurrence order (this runs per keystroke over every listed session).
    const uniqueIds: SessionId[] = [];
    const out: (SessionTitleObservation | undefined)[] = [];
    const seen = new Set<SessionId>();
    let unresolved = 0;
    signal?.throwIfAborted();
    for (const id of ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      uniqueIds.push(id);
      const live = this.#registry.get(id);
      if (live === undefined) {
        unresolved += 1;
        out.push(undefined);
      } else {
        out.push(observeTitle(id, live.header, live.events, signal));
      }
    }
    if (unresolved === 0) return { answer: out as SessionTitleObservation[], from: undefined };
    const snapshot = await this.#snapshot();
    signal?.throwIfAborted();
    if (snapshot === undefined) return { answer: await this.#cold.readTitleSnapshots(uniqueIds, signal), from: undefined };
    const misses: SessionId[] = [];
    const missAt: number[] = [];
    for (let index = 0; index < uniqueIds.length; index += 1) {
      if (out[index] !== undefined) continue;
      const id = uniqueIds[index] as SessionId;
      const cached = this.#titles.get(id);
      if (cached !== undefined && cached.entry === snapshot.entryById.get(id) && cached.segments === snapshot.segments) {
        out[index] = cached.observation;
      } else if (!snapshot.headerById.has(id)) {
        // Not listed: a session attached meanwhile is observed live (as the query layer does), else not found.
        const attached = this.#registry.get(id);
        out[index] =
          attached === undefined ? rejectedTitle(id, sessionNotFound(id)) : observeTitle(id, attached.header, attached.events, signal);
      } else {
        misses.push(id);
        missAt.push(index);
      }
    }
    if (misses.length > 0) {
      noteMisses(misses.length);
      const observed = await this.#observe(snapshot, misses, signal);
      signal?.throwIfAborted();
      observed.forEach((observation, at) => {
        const id = observation.sessionId;
        const attached = this.#registry.get(id);
        const index = missAt[at] as number;
        if (attached !== undefined) {
          out[index] = observeTitle(id, attached.header, attached.events, signal);
          return;
        }
        out[index] = observation;
        this.#keep(snapshot, id, observation);
      });
    }
    const answer = out.map((observation, index) => {
      if (observation === undefined) throw new Error(`title observation of session "${uniqueIds[index] as string}" was never settled`);
      return observation;
    });
    return { answer, from: snapshot };
  }

  /** Observes `ids` with the query layer over `snapshot`: the store's title lookup at the listed artifact and revision. */
  #observe(snapshot: CorpusSnapshot, ids: readonly SessionId[], signal: AbortSignal | undefined): Promise<SessionTitleObservation[]> {
    const store = this.#store;
    const artifactName = this.#view.artifactName;
    const storage: SessionStorage = {
      list: async () => snapshot.headers,
      inspect: (id, inner) => store.inspect(id, inner),
      inspectTitle: (id, inner) => {
        const path = CorpusView.listedPath(snapshot, id, artifactName);
        const entry = snapshot.entryById.get(id);
        const revision =
          path !== undefined && entry !== undefined && join(entry.dir.sessionPath, artifactName) === path
            ? entry.artifactRevision
            : undefined;
        return store.inspectTitleAt(id, path, inner, revision);
      },
    };
    const query = new SessionQuery({
      registry: NO_LIVE_SESSIONS,
      storage,
      ...(this.#queryConfig === undefined ? {} : { config: this.#queryConfig }),
    });
    return query.readTitleSnapshots(ids, signal);
  }

  /**
   * After a background refresh: observes again, off any call, the titles whose check changed — only once
   * discovery has observed titles at all (an engine that only lists never reads logs for titles). One run at a
   * time; a refresh during a run is taken up by the next.
   */
  #prefetch(snapshot: CorpusSnapshot): void {
    if (this.#titles.size === 0) return;
    this.#prefetchWanted = snapshot;
    if (this.#prefetching) return;
    this.#prefetching = true;
    void (async () => {
      try {
        for (let wanted = this.#prefetchWanted; wanted !== undefined; wanted = this.#prefetchWanted) {
          this.#prefetchWanted = undefined;
          const stale = wanted.headers
            .map((header) => header.id)
            .filter((id) => {
              const cached = this.#titles.get(id);
              return cached === undefined || cached.entry !== wanted.entryById.get(id) || cached.segments !== wanted.segments;
            });
          if (stale.length === 0) continue;
          const observed = await this.#observe(wanted, stale, undefined);
          for (const observation of observed) this.#keep(wanted, observation.sessionId, observation);
        }
      } catch {
        // A prefetch is only a head start: whatever it could not observe, the next call observes itself.
      } finally {
        this.#prefetching = false;
      }
    })();
  }

  /** Keeps a fulfilled observation for the check it was made at (failures are observed again, as cold). */
  #keep(snapshot: CorpusSnapshot, id: SessionId, observation: SessionTitleObservation): void {
    if (observation.status !== 'fulfilled') return;
    const entry = snapshot.entryById.get(id);
    const path = CorpusView.listedPath(snapshot, id, this.#view.artifactName);
    if (entry === undefined || path === undefined) return;
    // Entries of sessions gone from the listing are dropped when the cache outgrows it.
    if (this.#titles.size > 2 * snapshot.headers.length + 64) {
      for (const key of this.#titles.keys()) if (!snapshot.headerById.has(key)) this.#titles.delete(key);
    }
    this.#titles.set(id, { entry, segments: snapshot.segments, observation });
    this.#titleGeneration += 1;
  }
}

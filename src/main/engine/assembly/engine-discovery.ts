/**
 * The engine's reading side (ARCHITECTURE.md §5): the exact query layer over live sessions and the store, the title
 * path (the persistent index, or pool batches), the warm corpus view with its discovery when the engine keeps one,
 * and the session queries the reference service and the faces read through — each listing problem and title failure
 * reported once.
 */
import type { SessionHeader, SessionId } from '../../../protocol/events.js';
import type { ListingProblem } from '../../../protocol/listing-problem.js';
import { CorpusView, type CorpusSnapshot } from '../corpus/corpus-view.js';
import type { CorpusViewConfig } from '../corpus/corpus-view-config.js';
import type { InMemoryLiveRegistry } from '../corpus/live-registry.js';
import { ReportingSessionQuery } from '../corpus/reporting-session-query.js';
import { type KeptVerdict, SessionQuery } from '../corpus/session-query.js';
import type { SessionListReport, SessionRecord } from '../corpus/session-query.js';
import { WarmDiscovery } from '../corpus/warm-discovery.js';
import { PoolTitleSnapshots } from '../pool/pool-title-snapshots.js';
import { PooledSessionStorage } from '../pool/pooled-storage.js';
import type { TaskRunner } from '../pool/task-runner.js';
import type { ReferenceSessionQuery } from '../reference/reference-types.js';
import type { JsonlSessionStore } from '../store/jsonl-store.js';
import type { LocalSessionEngineOptions } from './local-engine-types.js';

/** What the reading side is built from. */
export interface EngineDiscoveryInput {
  readonly options: LocalSessionEngineOptions;
  readonly corpus: CorpusViewConfig;
  readonly runner: TaskRunner;
  readonly registry: InMemoryLiveRegistry;
  readonly store: JsonlSessionStore | undefined;
}

/** The reading side of one engine. */
export interface EngineDiscovery {
  /** The exact query layer (surfaces inspected on the pool). */
  readonly query: SessionQuery;
  /** Where titles are observed: the store's title index (`titles: 'index'`) or pool batches (`'pool'`). */
  readonly titles: Pick<SessionQuery, 'readTitleSnapshots'>;
  /** The warm corpus view, when the engine keeps one (`corpus.watch`, a tolerant store, the title index). */
  readonly view: CorpusView | undefined;
  /** Discovery from the warm view's memory, when there is one. */
  readonly warm: WarmDiscovery | undefined;
  /**
   * The listed header of an id from the warm view (`undefined`: the view does not list it), when the engine keeps one:
   * what `readSurface` and `prepare` take instead of a listing of the root per read (README "Warm discovery").
   */
  readonly keptListing: ((sessionId: string) => Promise<SessionHeader | undefined>) | undefined;
  /** The listing with its problems, each problem reported once to `onListingProblem`. */
  listSessionsReport(signal?: AbortSignal): Promise<SessionListReport>;
  /** The listing's records. */
  listSessions(signal?: AbortSignal): Promise<SessionRecord[]>;
  /** Exact reads with each title failure reported once (`readTitleSnapshots` of the engine). */
  readonly titleQuery: ReferenceSessionQuery;
  /** What the reference service discovers through: the warm records and titles when there are some. */
  readonly discoveryQuery: ReferenceSessionQuery;
  /** Titles as discovery gives them, unreported (the search labels its hits with them). */
  readonly warmQuery: ReferenceSessionQuery;
}

/** Remembers the keys it has seen so a report is made once per key. */
function once<K>(): (key: K) => boolean {
  const seen = new Set<K>();
  return (key) => {
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/** Whether the store's lookup (§9.14) finds no artifact of `id` (a lookup that fails decides nothing: `false`). */
async function absentFromStore(store: JsonlSessionStore, id: SessionId, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    return (await store.locate(id, signal)) === undefined;
  } catch {
    signal?.throwIfAborted();
    return false;
  }
}

/** Builds the engine's reading side. */
export function buildEngineDiscovery(input: EngineDiscoveryInput): EngineDiscovery {
  const { options, corpus, runner, registry, store } = input;
  const storage = store === undefined ? undefined : new PooledSessionStorage(store, runner);
  const queryConfig = options.query === undefined ? {} : { config: options.query };
  // Whether an id is listed, from the warm view (created below) when there is one.
  const keptListing = async (sessionId: string): Promise<SessionHeader | undefined> =>
    view === undefined ? undefined : (await view.current()).snapshot.headerById.get(sessionId);
  /** The view's header of an id, else `'unlisted'` when the lookup finds no artifact of it; only beside a view. */
  const keptVerdict = async (sessionId: SessionId, signal?: AbortSignal): Promise<KeptVerdict> => {
    if (view === undefined || store === undefined) return undefined; // no view: every read lists, as dsh does
    const header = await keptListing(sessionId);
    if (header !== undefined) return header;
    return (await absentFromStore(store, sessionId, signal)) ? 'unlisted' : undefined;
  };
  const query = new SessionQuery({ registry, ...(storage === undefined ? {} : { storage }), ...queryConfig, keptListing: keptVerdict });
  const titles =
    (options.titles ?? 'index') === 'index'
      ? new SessionQuery({ registry, ...(store === undefined ? {} : { storage: store }), ...queryConfig })
      : new PoolTitleSnapshots({
          runner,
          registry,
          ...(store === undefined ? {} : { storage: store }),
          ...(options.titleBatchSize === undefined ? {} : { batchSize: options.titleBatchSize }),
        });
  // Discovery from memory in a long-lived engine (issue 15); exact reads below never use it.
  const view =
    corpus.watch && store !== undefined && store.config.listing === 'tolerant' && titles instanceof SessionQuery
      ? new CorpusView({
          config: store.config,
          revalidateMs: corpus.revalidateMs,
          // The warm view's first build walks the root as a listing does: the same progress.
          ...(options.store?.onListingProgress === undefined ? {} : { onProgress: options.store.onListingProgress }),
        })
      : undefined;
  const warm =
    view === undefined || store === undefined
      ? undefined
      : new WarmDiscovery({
          store,
          registry,
          view,
          cold: {
            listSessionsReport: (signal) => query.listSessionsReport(signal),
            readTitleSnapshots: (ids, signal) => titles.readTitleSnapshots(ids, signal),
          },
          ...(options.query === undefined ? {} : { queryConfig: options.query }),
        });

  const newProblem = once<string>();
  const reportProblems = (problems: readonly ListingProblem[]): void => {
    for (const problem of problems) if (newProblem(`${problem.code}\u0000${problem.path}`)) options.onListingProblem?.(problem);
  };
  async function listSessionsReport(signal?: AbortSignal): Promise<SessionListReport> {
    const report = warm === undefined ? await query.listSessionsReport(signal) : await warm.listSessionsReport(signal);
    reportProblems(report.problems);
    return report;
  }
  const listSessions = async (signal?: AbortSignal): Promise<SessionRecord[]> => (await listSessionsReport(signal)).records;

  // One report per session across both title paths below.
  const newTitleFailure = once<SessionId>();
  const onTitleFailure =
    options.onTitleFailure === undefined
      ? undefined
      : (sessionId: SessionId, reason: unknown): void => {
          if (newTitleFailure(sessionId)) options.onTitleFailure?.(sessionId, reason);
        };
  /**
   * The view's headers of `ids` when it decides every one that is not live (an exact title read then needs no listing
   * of the root, as `readSurface` needs none: `show` and the Web's conversation read both), else `undefined`. An id the
   * view does not list is decided when the lookup (§9.14) finds no artifact of it: no tolerant listing lists it then
   * (a session another host owns, labelled from the fleet).
   */
  const keptHeaders = async (ids: Iterable<SessionId>, signal?: AbortSignal): Promise<SessionHeader[] | undefined> => {
    if (view === undefined || store === undefined) return undefined;
    let snapshot: CorpusSnapshot;
    try {
      snapshot = (await view.current()).snapshot;
    } catch {
      return undefined; // the view cannot answer: the fresh listing decides and reports
    }
    const { headerById } = snapshot;
    const headers: SessionHeader[] = [];
    for (const id of ids) {
      const header = headerById.get(id);
      if (header !== undefined) headers.push(header);
      // Live ids are answered live; any other must be decided by the lookup (as `keptVerdict` decides it).
      else if (registry.get(id) === undefined && !(await absentFromStore(store, id, signal))) return undefined;
    }
    // Where the view found each one (what the lookup would find): no lookup by id per title.
    store.vouchForListing(headers, snapshot.segments);
    return headers;
  };
  const sessionQuery: ReferenceSessionQuery = {
    listSessions,
    readSurface: (id, signal) => query.readSurface(id, signal),
    readTitleSnapshots: async (ids, signal) => {
      const wanted = [...ids];
      return titles.readTitleSnapshots(wanted, signal, await keptHeaders(wanted, signal));
    },
  };
  // Discovery reads the shared (undetached) warm records and titles; the service only reads them.
  const warmQuery: ReferenceSessionQuery =
    warm === undefined
      ? sessionQuery
      : {
          listSessions: async (signal) => {
            const report = await warm.discoveryReport(signal);
            reportProblems(report.problems);
            return report.records;
          },
          readSurface: sessionQuery.readSurface,
          readTitleSnapshots: (ids, signal) => warm.readTitleSnapshots(ids, signal),
        };
  const reporting = (inner: ReferenceSessionQuery): ReferenceSessionQuery =>
    onTitleFailure === undefined ? inner : new ReportingSessionQuery(inner, onTitleFailure);
  return {
    query,
    titles,
    view,
    warm,
    keptListing: view === undefined ? undefined : keptListing,
    listSessionsReport,
    listSessions,
    titleQuery: reporting(sessionQuery),
    discoveryQuery: reporting(warmQuery),
    warmQuery,
  };
}

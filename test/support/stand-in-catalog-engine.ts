/**
 * A stand-in for the engine under a `SessionCatalog`, for tests of the catalog and the faces that need no real root:
 * every method a test does not give refuses with `not used` (or answers as an engine without a fleet, a warm view
 * or sessions would), so a test names exactly what its engine does.
 */
import type { CatalogEngine } from '../../src/main/catalog/session-catalog.js';

const notUsed = (): Promise<never> => Promise.reject(new Error('not used'));

/** A catalog engine with `given` over the defaults; `readListedTitleSnapshots` follows `readTitleSnapshots`. */
export function standInCatalogEngine(given: Partial<CatalogEngine>): CatalogEngine {
  const engine: CatalogEngine = {
    listSessions: () => Promise.resolve([]),
    listSessionsReport: () => Promise.resolve({ records: [], problems: [] }),
    listCandidates: () => Promise.resolve([]),
    candidates: () => Promise.resolve([]),
    searchSessions: () => Promise.resolve({ results: [] }),
    buildSearchIndex: notUsed,
    searchIndexStatus: notUsed,
    clearSearchIndex: notUsed,
    fleetStatus: notUsed,
    publishToFleet: notUsed,
    // Not shared: no session is published anywhere else.
    publishedSession: () => Promise.resolve(undefined),
    publishedSessionIds: () => Promise.resolve({ ids: [], total: 0 }),
    // No warm corpus view: no change is ever reported, and its titles are the exact ones.
    onCorpusChange: () => undefined,
    readListedTitleSnapshots: (ids, signal) => engine.readTitleSnapshots(ids, signal),
    // No warm view: every size is a `stat` of the artifact.
    listedArtifactRevision: () => undefined,
    readTitleSnapshots: () => Promise.resolve([]),
    readSurface: notUsed,
    prepare: notUsed,
    prepareSized: notUsed,
    store: undefined,
    runner: undefined as never,
    ...given,
  };
  return engine;
}

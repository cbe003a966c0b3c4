/**
 * The shared corpus index as the engine reaches it (issue 29): one interface over the backend the configuration
 * chooses. `sqlite` is the embedded default and shares nothing, so it opens no shared index (the engine keeps its own
 * title index and search file, untouched); `postgres` offers publishing of this engine's root, discovery over every
 * published corpus and the index's status, over one connection opened on first use ({@link FleetConnection}).
 */
import type { StoreLayout } from '../../../io/artifact-path.js';
import type { Candidate, ReferenceTarget } from '../reference/reference-types.js';
import type { CorpusIndexConfig, PostgresCorpusIndexConfig } from './corpus-index-config.js';
import type { SessionHeader, SessionId } from '../../../protocol/events.js';
import {
  CorpusPublisher,
  corpusIdOf,
  type PublishedSourceRecord,
  type PublishProgress,
  type PublishSource,
  type PublishSummary,
} from './corpus-publisher.js';
import { FleetConnection } from './fleet-connection.js';
import { fleetCandidates, type LabelledRecord } from './fleet-discovery.js';
import { fleetSearch, type FleetSearchPage, type FleetSearchRequest } from './fleet-search.js';
import { FLEET_SCHEMA } from './fleet-schema.js';
import { fleetStatus, type FleetStatus } from './fleet-status.js';
import { publishedIdsByPrefix, type PublishedPrefixMatches } from './published-id-prefix.js';

/** What the engine asks of a shared index. */
export interface SharedCorpusIndex {
  /** The id this engine's root is published under (host + root). */
  readonly corpusId: string;
  /** Publishes what changed in this engine's root since the last publish. */
  publish(signal?: AbortSignal, onProgress?: PublishProgress, onDiscoverable?: () => void): Promise<PublishSummary>;
  /**
   * Discovery over every published corpus (the local `listCandidates` contract), with the asking engine's live
   * sessions (`live`, which no database holds) merged in.
   */
  listCandidates(
    target: ReferenceTarget,
    query?: string,
    limit?: number,
    signal?: AbortSignal,
    live?: readonly LabelledRecord[],
  ): Promise<Candidate[]>;
  /** Full-text search over every published corpus (or `request.corpora`), with the asking engine's live sessions. */
  search(request: FleetSearchRequest, signal?: AbortSignal): Promise<FleetSearchPage>;
  /**
   * The latest source entry another corpus published for `sessionId` at its current revision, or `undefined` when no
   * other corpus has a citable one.
   */
  readRemoteSource(sessionId: SessionId, signal?: AbortSignal): Promise<PublishedSourceRecord | undefined>;
  /** The header and latest title another corpus published for `sessionId` (its newest publication), or `undefined`. */
  readPublishedSession(sessionId: SessionId, signal?: AbortSignal): Promise<PublishedSession | undefined>;
  /** The ids other corpora published that `typed` is a prefix of (`published-id-prefix.ts`): the first 11, and how many. */
  publishedIdsByPrefix(typed: string, signal?: AbortSignal): Promise<PublishedPrefixMatches>;
  /** Corpora, hosts, lag and size of the index. */
  status(signal?: AbortSignal): Promise<FleetStatus>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/** What opening a shared index needs of the engine. */
export interface SharedCorpusIndexOptions {
  /** The engine's listing and titles. */
  readonly source: PublishSource;
  /** The engine's root and encoding. */
  readonly layout: StoreLayout;
  /** How long one connection attempt may take; default 10 000 ms. */
  readonly connectTimeoutMs?: number;
}

/** The newest publication of a session by another corpus, with its source at the artifact's current revision. */
const REMOTE_SOURCE_SQL = `
SELECT s.record_key, s.record FROM ${FLEET_SCHEMA}.sources s
JOIN ${FLEET_SCHEMA}.artifacts a ON a.corpus_id = s.corpus_id AND a.session_id = s.session_id AND a.revision = s.revision
WHERE s.session_id = $1 AND s.corpus_id <> $2
ORDER BY a.published_at DESC LIMIT 1`;

/** The newest publication of a session by another corpus: its header and latest title. */
const PUBLISHED_SESSION_SQL = `
SELECT header_json, title_json FROM ${FLEET_SCHEMA}.artifacts WHERE session_id = $1 AND corpus_id <> $2
ORDER BY published_at DESC LIMIT 1`;

/** A session another host published, as discovery labels it. */
export interface PublishedSession {
  readonly header: SessionHeader;
  /** Its latest folded title, when it has one. */
  readonly title?: string;
}

/**
 * The shared index of a postgres configuration, connecting on first use: building it never fails for a server that
 * is down; each operation does, typed.
 */
export function createSharedCorpusIndex(config: PostgresCorpusIndexConfig, options: SharedCorpusIndexOptions): SharedCorpusIndex {
  const connection = new FleetConnection({
    url: config.databaseUrl,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  });
  const identity = { host: config.host, root: options.layout.root };
  return {
    corpusId: corpusIdOf(identity),
    publish: async (signal, onProgress, onDiscoverable) => {
      const database = await connection.database();
      return new CorpusPublisher({ database, identity, layout: options.layout }).publish(
        options.source,
        signal,
        onProgress,
        onDiscoverable,
      );
    },
    listCandidates: async (target, query, limit, signal, live) =>
      fleetCandidates(await connection.database(), target, query, limit, signal, live),
    search: async (request, signal) => fleetSearch(await connection.database(), request, signal),
    readRemoteSource: async (sessionId, signal) => {
      const database = await connection.database();
      signal?.throwIfAborted();
      const [row] = await database.query<{ record_key: string | null; record: Buffer | null }>(
        REMOTE_SOURCE_SQL,
        [sessionId, corpusIdOf(identity)],
        signal,
      );
      return row?.record_key == null || row.record == null ? undefined : { key: JSON.parse(row.record_key) as string, bytes: row.record };
    },
    readPublishedSession: async (sessionId, signal) => {
      const database = await connection.database();
      signal?.throwIfAborted();
      const [row] = await database.query<{ header_json: string; title_json: string | null }>(
        PUBLISHED_SESSION_SQL,
        [sessionId, corpusIdOf(identity)],
        signal,
      );
      if (row === undefined) return undefined;
      const header = JSON.parse(row.header_json) as SessionHeader;
      return row.title_json === null ? { header } : { header, title: JSON.parse(row.title_json) as string };
    },
    publishedIdsByPrefix: async (typed, signal) => {
      const database = await connection.database();
      signal?.throwIfAborted();
      return publishedIdsByPrefix(database, corpusIdOf(identity), typed, signal);
    },
    status: async (signal) => fleetStatus(await connection.database(), signal),
    close: () => connection.close(),
  };
}

/**
 * The shared index `config` names, connected now, or `undefined` for the embedded `sqlite` backend.
 * @throws FleetError `FLEET_UNREACHABLE`, `FLEET_AUTH_FAILED`, `FLEET_SCHEMA_UNKNOWN_VERSION`, `FLEET_SCHEMA_FOREIGN_TABLES`
 */
export async function openSharedCorpusIndex(
  config: CorpusIndexConfig,
  options: SharedCorpusIndexOptions,
): Promise<SharedCorpusIndex | undefined> {
  if (config.backend === 'sqlite') return undefined;
  const index = createSharedCorpusIndex(config, options);
  try {
    await index.status();
  } catch (error) {
    await index.close();
    throw error;
  }
  return index;
}

/**
 * The shared corpus index as the engine reaches it (issue 29): one interface over the backend the configuration
 * chooses. `sqlite` is the embedded default and shares nothing, so it opens no shared index (the engine keeps its own
 * title index and search file, untouched); `postgres` connects, migrates the schema, and offers publishing of this
 * engine's root and discovery over every published corpus.
 */
import type { StoreLayout } from '../../../io/artifact-path.js';
import type { Candidate, ReferenceTarget } from '../reference/reference-types.js';
import type { CorpusIndexConfig } from './corpus-index-config.js';
import { CorpusPublisher, type PublishSource, type PublishSummary } from './corpus-publisher.js';
import { FleetDatabase } from './fleet-database.js';
import { fleetCandidates } from './fleet-discovery.js';

/** What the engine asks of a shared index. */
export interface SharedCorpusIndex {
  /** The id this engine's root is published under (host + root). */
  readonly corpusId: string;
  /** Publishes what changed in this engine's root since the last publish. */
  publish(signal?: AbortSignal): Promise<PublishSummary>;
  /** Discovery over every published corpus (the local `listCandidates` contract). */
  listCandidates(target: ReferenceTarget, query?: string, limit?: number, signal?: AbortSignal): Promise<Candidate[]>;
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

/**
 * The shared index `config` names, or `undefined` for the embedded `sqlite` backend.
 * @throws FleetError `FLEET_UNREACHABLE`, `FLEET_AUTH_FAILED`, `FLEET_SCHEMA_UNKNOWN_VERSION`, `FLEET_SCHEMA_FOREIGN_TABLES`
 */
export async function openSharedCorpusIndex(
  config: CorpusIndexConfig,
  options: SharedCorpusIndexOptions,
): Promise<SharedCorpusIndex | undefined> {
  if (config.backend === 'sqlite') return undefined;
  const database = await FleetDatabase.open({
    url: config.databaseUrl,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  });
  const publisher = new CorpusPublisher({ database, identity: { host: config.host, root: options.layout.root }, layout: options.layout });
  return {
    corpusId: publisher.corpusId,
    publish: (signal) => publisher.publish(options.source, signal),
    listCandidates: (target, query, limit, signal) => fleetCandidates(database, target, query, limit, signal),
    close: () => database.close(),
  };
}

/**
 * `sessionctx fleet status` (issue 29): what the shared corpus index holds — each published corpus (host and root)
 * with its artifacts and when its last complete publish ended, the lag of each host (the age of its stalest corpus),
 * the distinct sessions, and the database's size. Ages are computed by the server's clock, so hosts whose clocks
 * disagree still report one consistent lag.
 */
import type { FleetDatabase } from './fleet-database.js';
import { FLEET_SCHEMA } from './fleet-schema.js';

/** One published corpus. */
export interface FleetCorpusStatus {
  readonly corpusId: string;
  readonly host: string;
  readonly root: string;
  /** Artifacts (sessions) it publishes, each at one revision. */
  readonly artifacts: number;
  /** When its last complete publish ended (ISO 8601, the server's clock). */
  readonly publishedAt: string;
  /** How long ago that was, in milliseconds. */
  readonly lagMs: number;
}

/** One host: its corpora together. */
export interface FleetHostStatus {
  readonly host: string;
  readonly corpora: number;
  readonly artifacts: number;
  /** The lag of its stalest corpus: no session of this host is older in the index than this (ms). */
  readonly lagMs: number;
}

/** The whole index. */
export interface FleetStatus {
  /** The schema version of the database (this program's, since it opened it). */
  readonly schemaVersion: number;
  /** Distinct sessions over every corpus (a session two hosts publish from one shared root counts once). */
  readonly sessions: number;
  /** `pg_database_size` of the database. */
  readonly databaseBytes: number;
  /** The bytes of the `sessionctx` schema's tables with their indexes and TOAST. */
  readonly indexBytes: number;
  readonly hosts: readonly FleetHostStatus[];
  readonly corpora: readonly FleetCorpusStatus[];
}

const CORPORA_SQL = `
SELECT c.corpus_id, c.host, c.root, count(a.session_id)::int AS artifacts,
  to_char(c.published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS published_at,
  (extract(epoch FROM clock_timestamp() - c.published_at) * 1000)::float8 AS lag_ms
FROM ${FLEET_SCHEMA}.corpora c LEFT JOIN ${FLEET_SCHEMA}.artifacts a ON a.corpus_id = c.corpus_id
GROUP BY c.corpus_id ORDER BY c.host COLLATE "C", c.root COLLATE "C"`;

const TOTALS_SQL = `
SELECT (SELECT version FROM ${FLEET_SCHEMA}.schema_version) AS version,
  (SELECT count(DISTINCT session_id) FROM ${FLEET_SCHEMA}.artifacts)::int AS sessions,
  pg_database_size(current_database())::float8 AS database_bytes,
  (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = '${FLEET_SCHEMA}' AND c.relkind IN ('r', 'm'))::float8 AS index_bytes`;

interface CorpusRow extends Record<string, unknown> {
  corpus_id: string;
  host: string;
  root: string;
  artifacts: number;
  published_at: string;
  lag_ms: number;
}

interface TotalsRow extends Record<string, unknown> {
  version: number;
  sessions: number;
  database_bytes: number;
  index_bytes: number;
}

/**
 * The status of the index `database` holds.
 * @throws FleetError from the database
 */
export async function fleetStatus(database: FleetDatabase, signal?: AbortSignal): Promise<FleetStatus> {
  signal?.throwIfAborted();
  const [rows, [totals]] = await Promise.all([
    database.query<CorpusRow>(CORPORA_SQL, [], signal),
    database.query<TotalsRow>(TOTALS_SQL, [], signal),
  ]);
  signal?.throwIfAborted();
  const corpora: FleetCorpusStatus[] = rows.map((row) => ({
    corpusId: row.corpus_id,
    host: row.host,
    root: row.root,
    artifacts: row.artifacts,
    publishedAt: row.published_at,
    lagMs: Math.max(0, Math.round(row.lag_ms)),
  }));
  const hosts = new Map<string, { corpora: number; artifacts: number; lagMs: number }>();
  for (const corpus of corpora) {
    const host = hosts.get(corpus.host) ?? { corpora: 0, artifacts: 0, lagMs: 0 };
    hosts.set(corpus.host, {
      corpora: host.corpora + 1,
      artifacts: host.artifacts + corpus.artifacts,
      lagMs: Math.max(host.lagMs, corpus.lagMs),
    });
  }
  return {
    schemaVersion: totals?.version ?? 0,
    sessions: totals?.sessions ?? 0,
    databaseBytes: totals?.database_bytes ?? 0,
    indexBytes: totals?.index_bytes ?? 0,
    hosts: [...hosts].map(([host, summary]) => ({ host, ...summary })),
    corpora,
  };
}

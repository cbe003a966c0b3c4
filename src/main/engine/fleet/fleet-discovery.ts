/**
 * Discovery over every corpus published into the shared index (issue 29): the sessions a target may cite, with the
 * local reference service's rules (SESSION-REFERENCE.md §7.3) — a non-empty query keeps the sessions whose id, cwd or
 * label contains it case-insensitively; same cwd first, then no cwd, then the rest; each group newest first, ties by
 * id `localeCompare`; the target itself never; at most `limit`.
 *
 * The database filters on the published lower-cased keys (`pg_trgm` GIN indexes serve the substring `LIKE`s) and cuts
 * at the limit by rank and time, keeping every row tied with the last one; the final order and cut are the reference
 * service's own definitions (`rank`, `compareRecords`, `toCandidate`), so the two cannot drift apart. A session
 * published by several corpora (hosts reading one shared root) is listed once, from its latest publication. The
 * asking engine's live sessions, which no database holds, are matched here and merged in (a live session wins over a
 * published copy, as it does locally).
 */
import { candidateLimitError } from '../../../protocol/reference-errors.js';
import type { SessionHeader } from '../../../protocol/events.js';
import { compareRecords, type SessionRecord } from '../corpus/session-query.js';
import { resolveReferenceConfig } from '../reference/reference-config.js';
import { rank, toCandidate } from '../reference/session-reference-service.js';
import type { Candidate, ReferenceTarget } from '../reference/reference-types.js';
import { discoveryKeys } from './discovery-keys.js';
import type { FleetDatabase } from './fleet-database.js';
import { FLEET_SCHEMA } from './fleet-schema.js';

/** dsh's default candidate limit, as the local service resolves it. */
const DEFAULT_LIMIT = resolveReferenceConfig().candidateLimit;

/** A `LIKE` pattern that matches `needle` anywhere, its wildcards and the escape character taken literally. */
export function containsPattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

const CANDIDATES_SQL = `
WITH matched AS (
  SELECT DISTINCT ON (session_id) session_id, header_json, title_json, created_at,
    CASE WHEN cwd IS NOT NULL AND $2::text IS NOT NULL AND cwd = $2::text THEN 0 WHEN cwd IS NULL THEN 1 ELSE 2 END AS r
  FROM ${FLEET_SCHEMA}.artifacts
  WHERE session_id <> $1::text
    AND ($3::text IS NULL OR id_key LIKE $3::text OR cwd_key LIKE $3::text OR label_key LIKE $3::text)
  ORDER BY session_id, published_at DESC
), edge AS (
  SELECT r, created_at FROM matched ORDER BY r, created_at DESC LIMIT 1 OFFSET $4::int - 1
)
SELECT m.header_json, m.title_json FROM matched m
WHERE NOT EXISTS (SELECT 1 FROM edge) OR (m.r, -m.created_at) <= (SELECT e.r, -e.created_at FROM edge e)`;

/**
 * Candidates for `target` over the whole fleet, shaped as the local `listCandidates` shapes them.
 * @throws SessionReferenceError `SESSION_REFERENCE_INVALID_CANDIDATE_LIMIT` for a limit that is not a positive safe integer
 * @throws FleetError from the database
 */
export async function fleetCandidates(
  database: FleetDatabase,
  target: ReferenceTarget,
  query = '',
  limit: number = DEFAULT_LIMIT,
  signal?: AbortSignal,
  live: readonly LabelledRecord[] = [],
): Promise<Candidate[]> {
  if (!Number.isSafeInteger(limit) || limit <= 0) throw candidateLimitError();
  signal?.throwIfAborted();
  const needle = query.toLocaleLowerCase();
  const targetCwd = target.session.header.cwd;
  const rows = await database.query<{ header_json: string; title_json: string | null }>(
    CANDIDATES_SQL,
    [
      target.id,
      targetCwd ?? null,
      needle === '' ? null : containsPattern(needle),
      // The cut needs no more rows than a 32-bit OFFSET can skip; a larger limit keeps every match anyway.
      Math.min(limit, 2_147_483_647),
    ],
    signal,
  );
  signal?.throwIfAborted();
  const found = rows.map((row) => ({
    record: { header: JSON.parse(row.header_json) as SessionHeader, live: false, persisted: true } satisfies SessionRecord,
    title: row.title_json === null ? undefined : (JSON.parse(row.title_json) as string),
  }));
  // This engine's live sessions are in no database: matched here by the same keys, and they win over a published copy.
  const liveIds = new Set<string>();
  for (const entry of live) {
    const keys = discoveryKeys(entry.record.header, entry.title);
    if (entry.record.header.id === target.id) continue;
    if (needle !== '' && !keys.id.includes(needle) && !(keys.cwd?.includes(needle) ?? false) && !keys.label.includes(needle)) continue;
    liveIds.add(entry.record.header.id);
  }
  const merged = [
    ...found.filter((entry) => !liveIds.has(entry.record.header.id)),
    ...live.filter((entry) => liveIds.has(entry.record.header.id)),
  ];
  merged.sort((a, b) => rank(a.record.header.cwd, targetCwd) - rank(b.record.header.cwd, targetCwd) || compareRecords(a.record, b.record));
  return merged.slice(0, limit).map(({ record, title }) => toCandidate(record, title ?? record.header.id));
}

/** A session record with its latest title (`undefined`: none, labelled by its id). */
export interface LabelledRecord {
  readonly record: SessionRecord;
  readonly title: string | undefined;
}

/**
 * Discovery over every corpus published into the shared index (issue 29): the sessions a target may cite, with the
 * local reference service's rules (SESSION-REFERENCE.md §7.3) — a non-empty query keeps the sessions whose id, cwd or
 * label contains it case-insensitively; same cwd first, then no cwd, then the rest; each group newest first, ties by
 * id `localeCompare`; the target itself never; at most `limit`.
 *
 * The database filters on the published lower-cased keys (`pg_trgm` GIN indexes serve the substring `LIKE`s, or an
 * index in the groups' order is read until the limit) and cuts at the limit by rank and time, keeping every row tied
 * with the last one; the final order and cut are the reference
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

/**
 * The match filter every group shares (`$1` the target's id, `$3` the pattern, `NULL`: every session), for the
 * artifact `a` and for a newer publication of it.
 */
function matches(alias: string): string {
  return `${alias}.session_id <> $1::text
    AND ($3::text IS NULL OR ${alias}.id_key LIKE $3::text OR ${alias}.cwd_key LIKE $3::text OR ${alias}.label_key LIKE $3::text)`;
}

/**
 * Candidates in `order` matching `where`: cut at `$4` rows with every row tied with the last one (`WITH TIES`), each
 * session in its latest matching publication only (a session published by several corpora — hosts reading one shared
 * root — is listed once; an index lookup by session id per candidate).
 */
function candidatesSql(where: string, order: string): string {
  return `(SELECT a.header_json, a.title_json FROM ${FLEET_SCHEMA}.artifacts a
  WHERE ${where} AND ${matches('a')}
    AND NOT EXISTS (
      SELECT 1 FROM ${FLEET_SCHEMA}.artifacts newer
      WHERE newer.session_id = a.session_id
        AND (newer.published_at, newer.corpus_id) > (a.published_at, a.corpus_id)
        AND ${matches('newer')})
  ORDER BY ${order} FETCH FIRST ($4::int) ROWS WITH TIES)`;
}

/**
 * The candidates of the rank groups in two reads, each in the groups' own order from an index (schema version 4): the
 * target's cwd (`$2`), newest first, from `(cwd, created_at)`; then the other sessions, those without a cwd before the
 * rest and each newest first, from `((cwd IS NOT NULL), created_at)`. A needle that matches most sessions so stops
 * after about `$4` rows instead of sorting every match; a rare needle is found through the trigram indexes and sorted
 * (the planner picks, per needle). Together they hold the first `$4` of the whole order and every row tied with it;
 * the final order and cut are the reference service's, in JavaScript.
 */
const CANDIDATES_SQL = [
  candidatesSql('$2::text IS NOT NULL AND a.cwd = $2::text', 'a.created_at DESC'),
  candidatesSql('(a.cwd IS NULL OR $2::text IS NULL OR a.cwd <> $2::text)', '(a.cwd IS NOT NULL), a.created_at DESC'),
].join('\nUNION ALL\n');

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
      // A 32-bit row count; a larger limit keeps every match anyway.
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

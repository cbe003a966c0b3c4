/**
 * Full-text search over every corpus published into the shared index (issue 29 item 3, docs/FLEET.md §7), with the
 * local search contract (docs/SEARCH.md §5): the phrase matched as the local SQLite index matches it
 * (`phrase-match.ts`: the same sessions), the same filters (`cwd` on the header, `since`/`until` on document times,
 * `roles`), ranked by the server (the documented formula of `phrase-match.ts`; a session scores its best document,
 * ties by session id in code point order), the best `hitsPerSession` documents per session (ties by seq, then the
 * document's place in its event) with snippets built by the local index's own snippet code.
 *
 * A session published by several corpora (hosts reading one shared root) is searched once, in its latest
 * publication, as fleet discovery lists it. The asking engine's live sessions, which no database holds, are searched
 * here from their own documents by the same rules and merged in; a live session wins over any published copy.
 * Both statements run in one read-only snapshot, so the page's ranking and its hits are of the same state.
 */
import type { SessionHeader } from '../../../protocol/events.js';
import type { SearchRole } from '../../../protocol/search-types.js';
import type { SearchStep } from '../../../workers/search/search-documents.js';
import type { QueryPlan, WorkerHit, WorkerSessionResult } from '../../../workers/search/search-messages.js';
import { buildSnippet } from '../../../workers/search/snippet.js';
import { containsPattern } from './fleet-discovery.js';
import type { FleetDatabase, FleetTransaction } from './fleet-database.js';
import { FLEET_SCHEMA } from './fleet-schema.js';
import { asStoredText } from './fts5-tokens.js';
import {
  documentKeys,
  documentScore,
  markedMatches,
  occurrences,
  phraseNeedle,
  phraseOfLiteral,
  occurrencesSql,
  scoreSql,
  type PhraseNeedle,
} from './phrase-match.js';

/** A live session of the asking engine, with its current documents (`live-search-steps.ts`). */
export interface LiveSearchSession {
  readonly header: SessionHeader;
  /** Its latest title (`undefined`: labelled by its id). */
  readonly title: string | undefined;
  /** The steps of its current surface; `undefined` when its log cannot be searched (no documents). */
  readonly steps: readonly SearchStep[] | undefined;
}

/** One session of a fleet answer: the local result's fields, where it comes from and its title. */
export interface FleetSessionResult extends WorkerSessionResult {
  /** The corpus whose publication was searched, or `null` for a live session of the asking engine. */
  readonly corpusId: string | null;
  /** Its latest title (`undefined`: labelled by its id). */
  readonly title: string | undefined;
}

/** One page of a fleet answer. */
export interface FleetSearchPage {
  readonly results: readonly FleetSessionResult[];
  /** A session ranks after the page's last. */
  readonly more: boolean;
}

/** What to search. */
export interface FleetSearchRequest {
  /** The plan the search service resolved (its literal, table choice, filters, offset and limit). */
  readonly plan: QueryPlan;
  /** Only these corpora (absent: every published corpus). */
  readonly corpora?: readonly string[];
  /** The asking engine's live sessions. */
  readonly live?: readonly LiveSearchSession[];
}

/** Code point order (what PostgreSQL's `COLLATE "C"` gives UTF-8 text, and SQLite's binary order). */
export function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done === true || y.done === true) return x.done === true ? (y.done === true ? 0 : -1) : 1;
    const difference = (x.value.codePointAt(0) as number) - (y.value.codePointAt(0) as number);
    if (difference !== 0) return difference;
  }
}

/** The document filters both statements share; `$3` pattern, `$4` since, `$5` until, `$6` roles. */
function documentFilters(column: 'tokens' | 'folded'): string {
  return `d.${column} LIKE $3::text
    AND ($4::float8 IS NULL OR d.time >= $4::float8)
    AND ($5::float8 IS NULL OR d.time < $5::float8)
    AND d.role = ANY($6::text[])`;
}

/**
 * The page's sessions: `$1` corpora, `$2` live ids, `$7` cwd, `$8` needle, `$9` how many. The matching documents are
 * ranked and folded per session first (the trigram index serves the `LIKE`); then, best first, each session is joined
 * to its artifact and kept only when no newer publication of its id exists (a session published by several corpora is
 * searched in its latest publication, ties by corpus id) — in that order, through a lateral join, so the artifact
 * lookups stop once the page is full instead of running for every matching session (4,865 lookups → 21 for a phrase
 * in every session of 5,000).
 */
function sessionsSql(column: 'tokens' | 'folded'): string {
  return `
WITH m AS (
  SELECT corpus_id, session_id, ${scoreSql()} AS score FROM (
    SELECT d.corpus_id, d.session_id, d.token_count, ${occurrencesSql(column, '$8::text')} AS tf
    FROM ${FLEET_SCHEMA}.documents d
    WHERE ${documentFilters(column)}
    OFFSET 0
  ) counted
), b AS (
  SELECT corpus_id, session_id, max(score) AS best FROM m GROUP BY corpus_id, session_id
)
SELECT o.corpus_id, o.session_id, o.best, a.header_json, a.title_json
FROM (SELECT corpus_id, session_id, best FROM b ORDER BY best DESC, session_id COLLATE "C") o
CROSS JOIN LATERAL (
  SELECT a.header_json, a.title_json FROM ${FLEET_SCHEMA}.artifacts a
  WHERE a.corpus_id = o.corpus_id AND a.session_id = o.session_id
    AND ($1::text[] IS NULL OR a.corpus_id = ANY($1::text[]))
    AND NOT (a.session_id = ANY($2::text[]))
    AND ($7::text IS NULL OR a.cwd = $7::text)
    AND NOT EXISTS (
      SELECT 1 FROM ${FLEET_SCHEMA}.artifacts newer
      WHERE newer.session_id = a.session_id
        AND (newer.published_at, newer.corpus_id) > (a.published_at, a.corpus_id)
        AND ($1::text[] IS NULL OR newer.corpus_id = ANY($1::text[])))
) a
ORDER BY o.best DESC, o.session_id COLLATE "C" LIMIT $9::int`;
}

/** The best hits of the page's sessions: `$1` corpora, `$2` ids (pairwise), `$7` needle, `$8` hits per session. */
function hitsSql(column: 'tokens' | 'folded'): string {
  return `
SELECT corpus_id, session_id, seq, role, time, body_json FROM (
  SELECT corpus_id, session_id, seq, role, time, body_json,
    row_number() OVER (PARTITION BY corpus_id, session_id ORDER BY ${scoreSql()} DESC, seq, ord) AS n
  FROM (
    SELECT d.corpus_id, d.session_id, d.seq, d.ord, d.role, d.time, d.body_json, d.token_count,
      ${occurrencesSql(column, '$7::text')} AS tf
    FROM ${FLEET_SCHEMA}.documents d
    JOIN unnest($1::text[], $2::text[]) AS p (corpus_id, session_id) ON p.corpus_id = d.corpus_id AND p.session_id = d.session_id
    WHERE ${documentFilters(column)}
    OFFSET 0
  ) counted
) ranked WHERE n <= $8::int ORDER BY corpus_id, session_id, n`;
}

interface SessionRow extends Record<string, unknown> {
  readonly corpus_id: string;
  readonly session_id: string;
  readonly best: number;
  readonly header_json: string;
  readonly title_json: string | null;
}

interface HitRow extends Record<string, unknown> {
  readonly corpus_id: string;
  readonly session_id: string;
  readonly seq: number;
  readonly role: SearchRole;
  readonly time: number;
  readonly body_json: string;
}

/** A session ranked for the page, published or live. */
interface Ranked {
  readonly sessionId: string;
  readonly corpusId: string | null;
  readonly header: SessionHeader;
  readonly title: string | undefined;
  readonly score: number;
  /** A live session's best hits, already chosen. */
  readonly liveHits?: readonly { readonly step: SearchStep; readonly text: string; readonly role: SearchRole }[];
}

/** A hit of `text` for the page. */
function hitOf(seq: number, role: SearchRole, time: number, text: string, needle: PhraseNeedle, snippetLength: number): WorkerHit {
  const { snippet, highlights } = buildSnippet(markedMatches(text, needle), snippetLength);
  return { seq, role, time, snippet, highlights };
}

/** The live sessions that match, each with its score and best hits, by the rules the SQL applies. */
function rankLive(live: readonly LiveSearchSession[], plan: QueryPlan, needle: PhraseNeedle & { needle: string }): Ranked[] {
  const ranked: Ranked[] = [];
  for (const session of live) {
    if (session.steps === undefined) continue;
    if (plan.cwd !== null && session.header.cwd !== plan.cwd) continue;
    const scored: { step: SearchStep; text: string; role: SearchRole; ord: number; score: number }[] = [];
    for (const step of session.steps) {
      if (plan.since !== null && !(step.time >= plan.since)) continue;
      if (plan.until !== null && !(step.time < plan.until)) continue;
      step.documents.forEach((document, ord) => {
        if (!plan.roles.includes(document.role)) return;
        const text = asStoredText(document.text);
        const keys = documentKeys(text);
        const haystack = needle.cjk ? keys.folded : keys.tokens;
        if (haystack === null || !haystack.includes(needle.needle)) return;
        scored.push({ step, text, role: document.role, ord, score: documentScore(occurrences(haystack, needle.needle), keys.tokenCount) });
      });
    }
    if (scored.length === 0) continue;
    scored.sort((a, b) => b.score - a.score || a.step.seq - b.step.seq || a.ord - b.ord);
    ranked.push({
      sessionId: session.header.id,
      corpusId: null,
      header: session.header,
      title: session.title,
      score: scored[0]?.score as number,
      liveHits: scored.slice(0, plan.hitsPerSession),
    });
  }
  return ranked;
}

/**
 * One page of sessions over the fleet whose current conversation contains the plan's phrase, best first.
 * @throws FleetError from the database; the signal's reason when it aborts (the statement is cancelled on the server)
 */
export async function fleetSearch(database: FleetDatabase, request: FleetSearchRequest, signal?: AbortSignal): Promise<FleetSearchPage> {
  const { plan } = request;
  const live = request.live ?? [];
  const needle = phraseNeedle(phraseOfLiteral(plan.match), plan.cjk);
  const found = needle.needle;
  if (found === undefined) return { results: [], more: false };
  const column = plan.cjk ? 'folded' : 'tokens';
  const pattern = containsPattern(found);
  // Every session that can rank at or before the page's end (the live ones may push published ones down).
  const take = Math.min(plan.offset + plan.limit + 1, 2_147_483_647);
  const filters = [pattern, plan.since, plan.until, [...plan.roles]];
  const answer = await database.readSnapshot(async (tx: FleetTransaction) => {
    const sessions = await tx.query<SessionRow>(sessionsSql(column), [
      request.corpora === undefined ? null : [...request.corpora],
      live.map((session) => session.header.id),
      ...filters,
      plan.cwd,
      found,
      take,
    ]);
    const ranked: Ranked[] = sessions.map((row) => ({
      sessionId: row.session_id,
      corpusId: row.corpus_id,
      header: JSON.parse(row.header_json) as SessionHeader,
      title: row.title_json === null ? undefined : (JSON.parse(row.title_json) as string),
      score: row.best,
    }));
    ranked.push(...rankLive(live, plan, { ...needle, needle: found }));
    ranked.sort((a, b) => b.score - a.score || compareCodePoints(a.sessionId, b.sessionId));
    const page = ranked.slice(plan.offset, plan.offset + plan.limit);
    const published = page.filter((entry) => entry.corpusId !== null);
    const hits =
      published.length === 0
        ? []
        : await tx.query<HitRow>(hitsSql(column), [
            published.map((entry) => entry.corpusId),
            published.map((entry) => entry.sessionId),
            ...filters,
            found,
            plan.hitsPerSession,
          ]);
    return { page, hits, more: ranked.length > plan.offset + plan.limit };
  }, signal);
  const hitsOf = new Map<string, WorkerHit[]>();
  for (const row of answer.hits) {
    const key = `${row.corpus_id}\u0000${row.session_id}`;
    const list = hitsOf.get(key) ?? [];
    list.push(hitOf(row.seq, row.role, row.time, JSON.parse(row.body_json) as string, needle, plan.snippetLength));
    hitsOf.set(key, list);
  }
  const results = answer.page.map((entry): FleetSessionResult => {
    const hits =
      entry.liveHits?.map((hit) => hitOf(hit.step.seq, hit.role, hit.step.time, hit.text, needle, plan.snippetLength)) ??
      hitsOf.get(`${entry.corpusId}\u0000${entry.sessionId}`) ??
      [];
    return {
      sessionId: entry.sessionId,
      cwd: entry.header.cwd ?? null,
      createdAt: entry.header.createdAt,
      score: entry.score,
      hits,
      corpusId: entry.corpusId,
      title: entry.title,
    };
  });
  return { results, more: answer.more };
}

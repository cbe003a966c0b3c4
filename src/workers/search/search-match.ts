/**
 * Running one query (issue 17 item 3, issue 27 item 2): ranked and limited inside SQLite, so JavaScript only ever
 * sees the page.
 *
 * 1. **One page statement** ({@link pageStatement}): every matching document's rank is computed once (FTS5's `rank`,
 *    the default `bm25()`), folded into each session's best with `GROUP BY`, the page's sessions taken in order —
 *    best rank, ties by session id, `LIMIT limit + 1 OFFSET offset` — and their best `hitsPerSession` documents
 *    (`row_number()` per session over rank, seq, id). At most `hitsPerSession` rows for each of at most `limit + 1`
 *    sessions cross into JavaScript (the extra session only says that a next page exists), however many match.
 * 2. **Snippets** — FTS5's `highlight()` of each returned hit's own row, checked against its checksum (issue 27
 *    item 5) — only for the page.
 *
 * Both run in one read transaction, so they see the same index even while another process writes. The bm25 pass
 * over the matches (in C) is what a broad phrase costs; everything after it is bounded by the page size. The
 * cancellation check is a SQL function the MATCH calls for one rowid in {@link CHECK_EVERY}, so a long MATCH still
 * stops within a bounded number of rows.
 */
import { randomBytes } from 'node:crypto';
import { SEARCH_ROLES, type SearchRole } from '../../protocol/search-types.js';
import type { Database } from './search-database.js';
import type { QueryPlan, WorkerHit, WorkerPage, WorkerSessionResult } from './search-messages.js';
import { corruption, documentDigest } from './search-integrity.js';
import { buildSnippet, highlightMarkers, parseHighlighted } from './snippet.js';

/** Rowids between two cancellation checks (a power of two: the check is `rowid & (CHECK_EVERY - 1)`). */
export const CHECK_EVERY = 256;

/** The SQL function the MATCH calls between bounded runs of rows to see whether the caller gave up. */
const POLL_FUNCTION = 'sessionctx_poll';

/** What the page statement handed to JavaScript (the counting seam of the tests). */
export interface QueryRowCounts {
  /** Rows: at most `hitsPerSession` for each of at most `limit + 1` sessions. */
  readonly rows: number;
  /** Distinct sessions among them: at most `limit + 1` (the extra one says a next page exists). */
  readonly sessions: number;
}

/** One row of the page statement: a page session and one of its hits. */
interface PageRow {
  readonly session: number;
  readonly best: number;
  readonly session_id: string;
  readonly cwd: string | null;
  readonly created_at: number;
  readonly id: number;
  readonly seq: number;
}

/** A document row as stored. */
interface DocumentRow {
  readonly session: number;
  readonly seq: number;
  readonly role: SearchRole;
  readonly time: number;
  readonly cjk: number;
  readonly digest: string;
}

/** The statements of one database, prepared once per filter shape and reused by every query. */
interface PreparedQueries {
  /** The cancellation check the current query's poll function calls. */
  poll: () => void;
  readonly page: Map<string, Statement>;
  readonly highlight: Map<string, Statement>;
  readonly meta: Statement;
  readonly body: Statement;
  /** Whether the index holds sessions of a root other than `@root` (two range probes of the sessions' root index). */
  readonly otherRoot: Statement;
}

type Statement = ReturnType<Database['prepare']>;

const prepared = new WeakMap<Database, PreparedQueries>();

function queriesOf(db: Database): PreparedQueries {
  let queries = prepared.get(db);
  if (queries === undefined) {
    const created: PreparedQueries = {
      poll: () => {},
      page: new Map(),
      highlight: new Map(),
      meta: db.prepare('SELECT session, seq, role, time, cjk, digest FROM docs WHERE id = ?'),
      body: db.prepare('SELECT body FROM docs_fts WHERE rowid = ?'),
      otherRoot: db.prepare(
        'SELECT EXISTS (SELECT 1 FROM sessions WHERE root < @root) OR EXISTS (SELECT 1 FROM sessions WHERE root > @root) AS other',
      ),
    };
    // Not deterministic: SQLite must call it each time it is reached, never fold it into a constant.
    db.function(POLL_FUNCTION, { deterministic: false }, () => {
      created.poll();
      return 1;
    });
    prepared.set(db, created);
    queries = created;
  }
  return queries;
}

/**
 * Whether a query's matches must be kept by the root's (and cwd's) sessions: not when no cwd is asked and the root is
 * the only one the index holds (every match is then the root's).
 */
function needsRootFilter(queries: PreparedQueries, root: string, plan: QueryPlan): boolean {
  return plan.cwd !== null || (queries.otherRoot.get({ root }) as { other: number }).other !== 0;
}

/** True when the plan asks for every role (the role filter would then hold for every document). */
function allRoles(plan: QueryPlan): boolean {
  return SEARCH_ROLES.every((role) => plan.roles.includes(role));
}

/**
 * Which filters a plan uses: one prepared statement per shape.
 * @param filterRoot - whether the matches are kept by the root's (and cwd's) sessions ({@link needsRootFilter}).
 */
function shapeOf(plan: QueryPlan, filterRoot: boolean): string {
  return [
    plan.cjk ? 'cjk' : 'fts',
    filterRoot,
    plan.cwd !== null,
    plan.since !== null,
    plan.until !== null,
    allRoles(plan) ? 'all' : plan.roles.length,
  ].join(':');
}

/**
 * The page statement of a filter shape. `m`: every matching document of the root with its rank (bm25, computed
 * once); `b`: each session's best rank; `p`: the page's sessions — the sessions table (whose rows carry the scan
 * states) is read only for those ranking at or before the page's last place, not for every matching session; `h`:
 * the page sessions' documents ranked by rank, seq, id. Rows: at most `hitsPerSession` per page session.
 */
function pageStatement(db: Database, queries: PreparedQueries, plan: QueryPlan, filterRoot: boolean): Statement {
  const shape = shapeOf(plan, filterRoot);
  const known = queries.page.get(shape);
  if (known !== undefined) return known;
  const table = plan.cjk ? 'docs_cjk' : 'docs_fts';
  const filters = [`${table} MATCH @match`];
  // The root (and cwd) as a set of session ids, built once per run: a per-match lookup of the sessions row cost more
  // than the match itself. When the root is the only one the index holds and no cwd is asked, every match is the
  // root's: the set's probe per match (a sixth of a broad phrase's time) is left out.
  if (filterRoot) {
    filters.push(
      plan.cwd === null
        ? 'd.session IN (SELECT id FROM sessions WHERE root = @root)'
        : 'd.session IN (SELECT id FROM sessions WHERE root = @root AND cwd = @cwd)',
    );
  }
  if (plan.since !== null) filters.push('d.time >= @since');
  if (plan.until !== null) filters.push('d.time < @until');
  if (!allRoles(plan)) filters.push(`d.role IN (${plan.roles.map((_, index) => `@role${index}`).join(', ')})`);
  // The cancellation check, once per CHECK_EVERY rowids of the matches.
  filters.push(`(${table}.rowid & ${CHECK_EVERY - 1} <> 0 OR ${POLL_FUNCTION}())`);
  const statement = db.prepare(
    `WITH m AS MATERIALIZED (
       SELECT d.session AS session, d.id AS id, d.seq AS seq, ${table}.rank AS rank
       FROM ${table} JOIN docs d ON d.id = ${table}.rowid WHERE ${filters.join(' AND ')}
     ),
     b AS MATERIALIZED (SELECT session, min(rank) AS best FROM m GROUP BY session),
     p AS MATERIALIZED (
       SELECT b.session AS session, b.best AS best, s.session_id AS session_id, s.cwd AS cwd, s.created_at AS created_at
       FROM b JOIN sessions s ON s.id = b.session
       WHERE b.best <= (SELECT max(best) FROM (SELECT best FROM b ORDER BY best LIMIT @take + @offset))
       ORDER BY b.best, s.session_id LIMIT @take OFFSET @offset
     ),
     h AS (
       SELECT session, id, seq, row_number() OVER (PARTITION BY session ORDER BY rank, seq, id) AS n
       FROM m WHERE session IN (SELECT session FROM p)
     )
     SELECT p.session, p.best, p.session_id, p.cwd, p.created_at, h.id, h.seq
     FROM p JOIN h ON h.session = p.session AND h.n <= @hitsPerSession
     ORDER BY p.best, p.session_id, h.n`,
  );
  queries.page.set(shape, statement);
  return statement;
}

function highlightFor(db: Database, queries: PreparedQueries, table: string): Statement {
  let statement = queries.highlight.get(table);
  if (statement === undefined) {
    statement = db.prepare(
      `SELECT highlight(${table}, 0, @open, @close) AS text FROM ${table} WHERE ${table} MATCH @match AND rowid = @id`,
    );
    queries.highlight.set(table, statement);
  }
  return statement;
}

/**
 * Checks that a hit's document is what was written (issue 27 item 5): its row matches its checksum, belongs to the
 * session and seq the match named, and the highlighted text is its stored text.
 * @throws an error with code `SQLITE_CORRUPT` (the index is rebuilt and the query runs once more).
 */
function verifyHit(
  row: DocumentRow | undefined,
  stored: { body?: unknown } | undefined,
  session: number,
  hit: PageRow,
  highlighted: string,
): void {
  const text = stored?.body;
  if (row === undefined || typeof text !== 'string') throw corruption(`document ${hit.id} of a hit is missing`);
  if (row.session !== session || row.seq !== hit.seq) throw corruption(`document ${hit.id} is not the one matched`);
  if (documentDigest(row.session, row.seq, row.role, row.time, row.cjk, text) !== row.digest) {
    throw corruption(`document ${hit.id} does not match its checksum`);
  }
  if (highlighted !== text) throw corruption(`the matched text of document ${hit.id} is not its stored text`);
}

/** One page session with its ranked hits, best first. */
interface PageSession {
  readonly row: PageRow;
  readonly hits: PageRow[];
}

/**
 * Runs `plan` over `root`'s sessions.
 * @param checkCancelled - throws when the caller abandoned the query.
 * @param onRows - told how many rows and sessions the page statement handed to JavaScript (the tests' counting seam).
 */
export function runQuery(
  db: Database,
  root: string,
  plan: QueryPlan,
  checkCancelled: () => void,
  onRows?: (counts: QueryRowCounts) => void,
): WorkerPage {
  const queries = queriesOf(db);
  const params: Record<string, unknown> = {
    match: plan.match,
    take: plan.limit + 1,
    offset: plan.offset,
    hitsPerSession: plan.hitsPerSession,
  };
  if (plan.cwd !== null) params['cwd'] = plan.cwd;
  if (plan.since !== null) params['since'] = plan.since;
  if (plan.until !== null) params['until'] = plan.until;
  if (!allRoles(plan)) {
    plan.roles.forEach((role, index) => {
      params[`role${index}`] = role;
    });
  }
  queries.poll = checkCancelled;
  try {
    // One read transaction: the ranking, the hits and their texts come from the same state of the index.
    return db.transaction(() => {
      // Inside the transaction: another root's sessions written after this check cannot reach this query's matches.
      const filterRoot = needsRootFilter(queries, root, plan);
      const statement = pageStatement(db, queries, plan, filterRoot);
      if (filterRoot) params['root'] = root;
      const rows = statement.all(params) as PageRow[];
      const sessions: PageSession[] = [];
      for (const row of rows) {
        const last = sessions.at(-1);
        if (last?.row.session === row.session) last.hits.push(row);
        else sessions.push({ row, hits: [row] });
      }
      onRows?.({ rows: rows.length, sessions: sessions.length });
      checkCancelled();
      const table = plan.cjk ? 'docs_cjk' : 'docs_fts';
      const highlight = highlightFor(db, queries, table);
      const markers = highlightMarkers(randomBytes(12).toString('hex'));
      // The row past the limit only says that a next page exists: its hits are not answered.
      const results: WorkerSessionResult[] = sessions.slice(0, plan.limit).map(({ row: entry, hits }) => {
        const answered: WorkerHit[] = hits.map((hit) => {
          checkCancelled();
          // The rowid goes as a BigInt: better-sqlite3 binds a number as REAL, and FTS5 ignores a rowid bound that is
          // not an INTEGER beside a MATCH — every hit would get the first matching document of the table (item 4).
          const rowid = BigInt(hit.id);
          const found = highlight.get({ open: markers.open, close: markers.close, match: plan.match, id: rowid }) as
            | { text: string }
            | undefined;
          const marked = parseHighlighted(found?.text ?? '', markers);
          const document = queries.meta.get(hit.id) as DocumentRow | undefined;
          verifyHit(document, queries.body.get(rowid) as { body?: unknown } | undefined, entry.session, hit, marked.text);
          const { snippet, highlights } = buildSnippet(marked, plan.snippetLength);
          const { role, time } = document as DocumentRow;
          return { seq: hit.seq, role, time, snippet, highlights };
        });
        return { sessionId: entry.session_id, cwd: entry.cwd, createdAt: entry.created_at, score: -entry.best, hits: answered };
      });
      return { results, more: sessions.length > plan.limit };
    })();
  } finally {
    queries.poll = () => {};
  }
}

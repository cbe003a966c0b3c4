/**
 * Running one query (issue 17 item 3) in bounded steps, so the caller's cancellation is seen within a few hundred
 * rows: the MATCH is iterated without `ORDER BY` (an ordered FTS5 query computes every match before its first
 * row), each row's bm25 rank is folded into per-session bests in JavaScript, and the cancel check runs every
 * {@link CHECK_EVERY} rows. Only the hits of the requested page are then highlighted (one `highlight()` per hit).
 */
import { randomBytes } from 'node:crypto';
import type { SearchRole } from '../../protocol/search-types.js';
import type { Database } from './search-database.js';
import type { QueryPlan, WorkerHit, WorkerPage, WorkerSessionResult } from './search-messages.js';
import { corruption, documentDigest } from './search-integrity.js';
import { buildSnippet, highlightMarkers, parseHighlighted } from './snippet.js';

/** Rows between two cancellation checks. */
export const CHECK_EVERY = 256;

interface MatchRow {
  readonly id: number;
  readonly session: number;
  readonly seq: number;
  readonly rank: number;
}

interface SessionBest {
  readonly session: number;
  best: number;
  /** The best hits so far, best (lowest rank) first, at most `hitsPerSession`. */
  readonly hits: MatchRow[];
}

/** Lower bm25 is better; ties go to the earlier document. */
function better(a: MatchRow, b: MatchRow): number {
  return a.rank - b.rank || a.seq - b.seq || a.id - b.id;
}

function keepHit(hits: MatchRow[], row: MatchRow, bound: number): void {
  if (hits.length === bound && better(row, hits[bound - 1] as MatchRow) >= 0) return;
  let at = hits.length;
  while (at > 0 && better(row, hits[at - 1] as MatchRow) < 0) at -= 1;
  hits.splice(at, 0, row);
  if (hits.length > bound) hits.pop();
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

/**
 * Checks that a hit's document is what was written (issue 27 item 5): its row matches its checksum, belongs to the
 * session and seq the match named, and the highlighted text is its stored text.
 * @throws an error with code `SQLITE_CORRUPT` (the index is rebuilt and the query runs once more).
 */
function verifyHit(
  row: DocumentRow | undefined,
  stored: { body?: unknown } | undefined,
  session: number,
  hit: MatchRow,
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

/**
 * Runs `plan` over `root`'s sessions.
 * @param checkCancelled - throws when the caller abandoned the query.
 */
export function runQuery(db: Database, root: string, plan: QueryPlan, checkCancelled: () => void): WorkerPage {
  const table = plan.cjk ? 'docs_cjk' : 'docs_fts';
  const filters: string[] = ['s.root = @root'];
  const params: Record<string, unknown> = { match: plan.match, root };
  if (plan.cwd !== null) {
    filters.push('s.cwd = @cwd');
    params['cwd'] = plan.cwd;
  }
  if (plan.since !== null) {
    filters.push('d.time >= @since');
    params['since'] = plan.since;
  }
  if (plan.until !== null) {
    filters.push('d.time < @until');
    params['until'] = plan.until;
  }
  plan.roles.forEach((role, index) => {
    params[`role${index}`] = role;
  });
  filters.push(`d.role IN (${plan.roles.map((_, index) => `@role${index}`).join(', ')})`);
  const statement = db.prepare(
    `SELECT d.id, d.session, d.seq, bm25(${table})
     FROM ${table} JOIN docs d ON d.id = ${table}.rowid JOIN sessions s ON s.id = d.session
     WHERE ${table} MATCH @match AND ${filters.join(' AND ')}`,
  );
  const sessions = new Map<number, SessionBest>();
  let rows = 0;
  // Raw rows (arrays) and only what ranking needs: the per-row cost is most of a broad query's time.
  for (const [id, session, seq, rank] of statement.raw().iterate(params) as IterableIterator<[number, number, number, number]>) {
    const row: MatchRow = { id, session, seq, rank };
    rows += 1;
    if (rows % CHECK_EVERY === 0) checkCancelled();
    const entry = sessions.get(row.session);
    if (entry === undefined) sessions.set(row.session, { session: row.session, best: row.rank, hits: [row] });
    else {
      if (row.rank < entry.best) entry.best = row.rank;
      keepHit(entry.hits, row, plan.hitsPerSession);
    }
  }
  checkCancelled();
  const info = db.prepare('SELECT session_id, cwd, created_at FROM sessions WHERE id = ?');
  const ranked = [...sessions.values()].map((entry) => ({
    entry,
    ...(info.get(entry.session) as { session_id: string; cwd: string | null; created_at: number }),
  }));
  ranked.sort((a, b) => a.entry.best - b.entry.best || (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0));
  const page = ranked.slice(plan.offset, plan.offset + plan.limit);
  const markers = highlightMarkers(randomBytes(12).toString('hex'));
  const highlight = db.prepare(
    `SELECT highlight(${table}, 0, @open, @close) AS text FROM ${table} WHERE ${table} MATCH @match AND rowid = @id`,
  );
  const meta = db.prepare('SELECT session, seq, role, time, cjk, digest FROM docs WHERE id = ?');
  const body = db.prepare('SELECT body FROM docs_fts WHERE rowid = ?');
  const results: WorkerSessionResult[] = page.map(({ entry, session_id, cwd, created_at }) => {
    const hits: WorkerHit[] = entry.hits.map((hit) => {
      checkCancelled();
      // The rowid goes as a BigInt: better-sqlite3 binds a number as REAL, and FTS5 ignores a rowid bound that is not
      // an INTEGER beside a MATCH — every hit would get the first matching document of the table (issue 27 item 4).
      const rowid = BigInt(hit.id);
      const found = highlight.get({ open: markers.open, close: markers.close, match: plan.match, id: rowid }) as
        | { text: string }
        | undefined;
      const marked = parseHighlighted(found?.text ?? '', markers);
      const row = meta.get(hit.id) as DocumentRow | undefined;
      verifyHit(row, body.get(rowid) as { body?: unknown } | undefined, entry.session, hit, marked.text);
      const { snippet, highlights } = buildSnippet(marked, plan.snippetLength);
      const { role, time } = row as DocumentRow;
      return { seq: hit.seq, role, time, snippet, highlights };
    });
    return { sessionId: session_id, cwd, createdAt: created_at, score: -entry.best, hits };
  });
  return { results, matchedSessions: ranked.length };
}

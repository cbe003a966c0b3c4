/**
 * dsh's side of the search comparison (issue 27 item 2, suite `dshsearch`, `bench/dsh-search-compare.ts`): serves
 * `ctx.sessionQuery.searchSessions` / `searchEvents` of a real dsh 0.1.0-rc.8 host (`harness/dsh-host.mts`: dsh's
 * JSONL persistence over the root, `@deepseek-ai/dsh-session-query-sqlite` with its index file in a temporary
 * directory) to the driver, one JSON request per stdin line, one JSON answer per stdout line, in order.
 *
 * Why a server and not the driver: sessionctx's search loads `better-sqlite3`, whose native build in the repository
 * is for the repository's Node 20 and does not load on this Node 22, while dsh needs Node 22. So each side runs on
 * its own Node, and each times its own calls (`performance.now()` around the call, the event-loop gaps of its own
 * thread): the pipe's cost is in neither figure.
 *
 * Requests: `boot` (a new host on `root` with the index at `index`; the previous one is disposed), `search` (one
 * page, timed), `all` (every page at dsh's largest limit: the sessions found and each one's best match), `events`
 * (every matching event of one session), `profile` (one listing and a few reads by id, timed), `close`.
 */
import { createInterface } from 'node:readline';
import type { SessionId } from '@deepseek-ai/dsh-session';
import type { SessionSearchCursor } from '@deepseek-ai/dsh-session-query';
import { bootDshHost, type DshHost } from '../harness/dsh-host.mts';

/** What the driver's gap meter reports (`bench/support/event-loop-gaps.ts`, compiled). */
interface GapFigures {
  readonly ms: number;
  readonly maxStallMs: number;
  readonly p99StallMs: number;
}

// The same gap meter as our side's, from the repository's build (a computed specifier: this package's type check
// runs without `dist/`).
const gaps = (await import(new URL('../../../dist/bench/support/event-loop-gaps.js', import.meta.url).href)) as {
  withGaps(work: () => Promise<unknown>): Promise<GapFigures>;
};

/** One request of the driver. */
type Request =
  | { readonly op: 'boot'; readonly root: string; readonly index: string }
  | { readonly op: 'search'; readonly query: string; readonly limit: number }
  | { readonly op: 'all'; readonly query: string }
  | { readonly op: 'events'; readonly sessionId: string; readonly query: string }
  | { readonly op: 'profile'; readonly inspect: number }
  | { readonly op: 'close' };

/** dsh's largest page (`SESSION_QUERY_SQLITE_MAX_LIMIT`): fewest round trips when every match is wanted. */
const MAX_LIMIT = 100;

/** Starts every answer line, so the driver can tell answers from anything else a plugin prints. */
const MARK = '@@search-compare ';

let host: DshHost | undefined;

function query(): DshHost['ctx']['sessionQuery'] {
  if (host === undefined) throw new Error('search-compare: no host booted');
  return host.ctx.sessionQuery;
}

async function answer(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'boot': {
      await host?.dispose();
      const started = performance.now();
      // `first-search`: opening SQLite is part of the first search, as our index's open is part of ours.
      host = await bootDshHost({ root: request.root, sessionQuery: { path: request.index, openAt: 'first-search' } });
      return { ms: performance.now() - started };
    }
    case 'search': {
      let found: string[] = [];
      const figures = await gaps.withGaps(async () => {
        const page = await query().searchSessions({ query: request.query, limit: request.limit });
        found = page.items.map((item) => item.header.id);
      });
      return { ...figures, ids: found };
    }
    case 'all': {
      const best: Array<{ id: string; seq: number; type: string; surface: string }> = [];
      let cursor: SessionSearchCursor | undefined;
      do {
        const page = await query().searchSessions({ query: request.query, limit: MAX_LIMIT, ...(cursor === undefined ? {} : { cursor }) });
        for (const item of page.items) {
          best.push({ id: item.header.id, seq: item.bestMatch.seq, type: item.bestMatch.type, surface: item.bestMatch.surface });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return { best };
    }
    case 'events': {
      const events: Array<{ seq: number; type: string; surface: string }> = [];
      let cursor: SessionSearchCursor | undefined;
      do {
        const page = await query().searchEvents({
          sessionId: request.sessionId as SessionId,
          query: request.query,
          limit: MAX_LIMIT,
          ...(cursor === undefined ? {} : { cursor }),
        });
        for (const item of page.items) events.push({ seq: item.seq, type: item.type, surface: item.surface });
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return { events };
    }
    case 'profile': {
      // Where a build's time goes: one listing of the root, and reading single logs by id (what the index does for
      // every new or changed session; the JSONL backend looks the id up in every project directory).
      const persistence = host?.ctx.sessionPersistence;
      if (persistence === undefined) throw new Error('search-compare: no persistence');
      let started = performance.now();
      const snapshots = await persistence.listSnapshots();
      const listMs = performance.now() - started;
      const sample = snapshots.slice(0, request.inspect);
      started = performance.now();
      for (const snapshot of sample) await persistence.inspect(snapshot.header.id);
      return { listMs, sessions: snapshots.length, inspectMs: (performance.now() - started) / Math.max(1, sample.length) };
    }
    case 'close':
      await host?.dispose();
      host = undefined;
      return {};
  }
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === '') continue;
  const request = JSON.parse(line) as Request;
  try {
    process.stdout.write(`${MARK}${JSON.stringify({ ok: true, value: await answer(request) })}\n`);
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stdout.write(`${MARK}${JSON.stringify({ ok: false, error: message })}\n`);
  }
  if (request.op === 'close') break;
}
lines.close();

/**
 * Search (issue 17): the full-text index over the 10,000-session discovery corpus and over long sessions — build
 * throughput (MB/s of decoded log), the main thread's longest stall while the worker builds, warm query p50/p95, and
 * the first query after appending to 1% of the logs — beside a brute-force scan of the same texts (held in memory,
 * normalised and tokenised per query with the tokenizer's rules) in the same run.
 */
import { busyWorkerFloor, withGaps } from './support/event-loop-gaps.js';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SessionEvent } from '../src/protocol/events.js';
import type { SurfaceEvent } from '../src/protocol/events.js';
import { createEngine, type LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';
import { SqliteSearchIndex } from '../src/main/engine/search/sqlite-search-index.js';
import { openSearchDatabase, SEARCH_DATABASE_FILE, type DatabaseConstructor } from '../src/workers/search/search-database.js';
import { projectSurfaceEvent } from '../src/workers/reference/project-surface.js';
import { corpusSession, writeDiscoveryCorpus } from './support/corpus-generator.js';
import { artifactBytes, artifactPathOf, longSession } from './support/long-session.js';
import { searchTokens } from './support/search-tokens.js';

/** 10,000; `SEARCH_SESSIONS` overrides it for a quick check of the suite itself. */
const SESSIONS = Number(process.env['SEARCH_SESSIONS'] ?? 10_000);
const LONG_SESSIONS = 3;
const QUERIES = ['checkout', 'retention budget', 'worker surface compaction', 'quoted tag', 'migration returns the', 'zebra quokka'];
const ROUNDS = 5;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function bruteForce(texts: ReadonlyMap<string, readonly string[]>, phrase: string): Set<string> {
  const wanted = searchTokens(phrase);
  const found = new Set<string>();
  for (const [id, documents] of texts) {
    search: for (const text of documents) {
      const have = searchTokens(text);
      outer: for (let at = 0; at + wanted.length <= have.length; at += 1) {
        for (let index = 0; index < wanted.length; index += 1) if (have[at + index] !== wanted[index]) continue outer;
        found.add(id);
        break search;
      }
    }
  }
  return found;
}

function textsOf(events: readonly SessionEvent[]): string[] {
  const texts: string[] = [];
  for (const event of events) {
    if (event.surfaceOp === undefined) continue;
    const item = projectSurfaceEvent(event as SurfaceEvent);
    if (item !== undefined) texts.push(item.originalText);
  }
  return texts;
}

async function timed<T>(times: number[], work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await work();
  times.push(performance.now() - start);
  return value;
}

async function allSessionIds(engine: LocalSessionEngine, query: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await engine.searchSessions({ query, limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    for (const result of page.results) ids.add(result.sessionId);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((id) => b.has(id));
}

/** Runs `work` while sampling the main thread's event-loop delay. */
/** Builds the index with one search while sampling the main thread's event-loop delay. */
function build(engine: LocalSessionEngine): Promise<{ ms: number; maxStallMs: number; p99StallMs: number }> {
  return withGaps(() => engine.searchSessions({ query: 'warm up the index' }));
}

/**
 * Opens the index in this thread as a one-shot CLI would while the engine keeps it open (a WAL in use), and closes
 * it: how long that takes and whether the full integrity check ran.
 */
function openBeside(path: string): { ms: number; fullCheck: boolean } {
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
  let fullCheck = false;
  class Counting extends Sqlite {
    override pragma(source: string, options?: Parameters<InstanceType<DatabaseConstructor>['pragma']>[1]): unknown {
      if (source.startsWith('integrity_check')) fullCheck = true;
      return super.pragma(source, options);
    }
  }
  const start = performance.now();
  openSearchDatabase(Counting as unknown as DatabaseConstructor, path, 5000).db.close();
  return { ms: performance.now() - start, fullCheck };
}

/** One of the long sessions (30,000+ events, tool calls, a compaction after turn 200), the same for a given index. */
function longSearchSession(id: string, index: number): ReturnType<typeof longSession> {
  return longSession({
    id,
    cwd: '/work/long',
    seed: index + 1,
    minEvents: 30_000,
    textBytes: 400,
    toolCallsPerTurn: 1,
    chunksPerAnswer: 2,
    compactAfterTurn: 200,
  });
}

/** Runs the search suite and returns its markdown report. */
export async function runSearch(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-search-bench-'));
  try {
    const root = join(dir, 'root');
    const writer = await writeDiscoveryCorpus(root, SESSIONS, 3, 'none');
    const texts = new Map<string, string[]>();
    let decodedBytes = 0;
    for (let index = 0; index < SESSIONS; index += 1) {
      const { header, events } = corpusSession(index, 3);
      texts.set(header.id, textsOf(events));
      decodedBytes += statSync(artifactPathOf(root, header, 'none')).size;
    }
    // A long-lived engine (what MCP and the Web serve from): the warm corpus view lists from memory.
    const engine = await createEngine({
      root,
      compression: 'none',
      store: { cacheDirectory: join(dir, 'cache') },
      search: { directory: join(dir, 'search') },
      // As `sessionctx mcp` and `sessionctx serve` start it: the search thread starts with the engine.
      startSearchWorker: true,
    });
    const lines: string[] = [];
    try {
      const floor = await busyWorkerFloor(2000);
      // What starting the search thread costs this thread (once per process; before the first search in a server).
      const threadStart = await withGaps(async () => {
        const index = new SqliteSearchIndex({ databasePath: null, busyTimeoutMs: 1000 });
        index.start();
        await new Promise((resolve) => setTimeout(resolve, 100));
        await index.close();
      });
      // Discovery's own first listing and titles (not search's work): the warm view's build.
      const listing = await withGaps(async () => {
        const records = await engine.listSessions();
        await engine.readTitleSnapshots(records.slice(0, 20).map((record) => record.header.id));
      });
      const built = await build(engine);
      const queryTimes = new Map<string, number[]>();
      const bruteTimes = new Map<string, number[]>();
      const matched = new Map<string, number>();
      let equal = true;
      for (const query of QUERIES) {
        const ids = await allSessionIds(engine, query);
        const brute = bruteForce(texts, query);
        equal &&= sameSet(ids, brute);
        matched.set(query, brute.size);
      }
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const query of QUERIES) {
          const times = queryTimes.get(query) ?? [];
          await timed(times, () => engine.searchSessions({ query, limit: 20 }));
          queryTimes.set(query, times);
          const brute = bruteTimes.get(query) ?? [];
          const start = performance.now();
          bruteForce(texts, query);
          brute.push(performance.now() - start);
          bruteTimes.set(query, brute);
        }
      }
      // Append one turn with a rare phrase to 1% of the logs; the next search must find exactly those.
      const appended = new Set<string>();
      for (let index = 0; index < SESSIONS; index += 100) {
        const { header, events } = corpusSession(index, 3);
        const base = events.length;
        const text = `zebra quokka ${index} appended note`;
        const more: SessionEvent[] = [
          { type: 'turn/start', seq: base, time: header.createdAt + base, data: { turn: 4 } },
          {
            type: 'user/message',
            seq: base + 1,
            time: header.createdAt + base + 1,
            data: { content: [{ type: 'text', text }], source: { kind: 'user' }, role: 'user', id: `${header.id}-extra` },
            surfaceOp: 'append',
          },
          { type: 'turn/end', seq: base + 2, time: header.createdAt + base + 2, data: { turn: 4, reason: { kind: 'completed' } } },
        ];
        await writer.append(header, more);
        texts.get(header.id)?.push(text);
        appended.add(header.id);
      }
      const afterTimes: number[] = [];
      await timed(afterTimes, () => engine.searchSessions({ query: 'zebra quokka', limit: 100 }));
      const found = await allSessionIds(engine, 'zebra quokka');
      const reflected = sameSet(found, appended);
      const bruteAfter: number[] = [];
      const startBrute = performance.now();
      const bruteFound = bruteForce(texts, 'zebra quokka');
      bruteAfter.push(performance.now() - startBrute);
      const warmAgain: number[] = [];
      for (let run = 0; run < 5; run += 1) await timed(warmAgain, () => engine.searchSessions({ query: 'zebra quokka', limit: 100 }));
      // A phrase in every session at the smallest and the largest page: what the page size changes of its cost.
      const everything = new Map<number, number[]>();
      for (const limit of [1, 100]) {
        const times: number[] = [];
        for (let run = 0; run < ROUNDS; run += 1) await timed(times, () => engine.searchSessions({ query: 'checkout', limit }));
        everything.set(limit, times);
      }
      // As `sessionctx search` beside a running `serve`: this engine's worker has the index open and wrote to it. Its
      // digest of the main file and the WAL is written once it has been idle for 1 s after a write: a CLI opening
      // sooner runs the full check.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const beside = openBeside(join(dir, 'search', SEARCH_DATABASE_FILE));

      // Long sessions: a few logs of tens of thousands of events with compactions.
      const longRoot = join(dir, 'long');
      let longBytes = 0;
      for (let index = 0; index < LONG_SESSIONS; index += 1) {
        const session = longSearchSession(`long-${index}`, index);
        const path = artifactPathOf(longRoot, session.header, 'none');
        await mkdir(dirname(path), { recursive: true });
        const bytes = artifactBytes(session.header, session.events, 'none');
        await writeFile(path, bytes);
        longBytes += bytes.byteLength;
      }
      const longEngine = await createEngine({
        root: longRoot,
        compression: 'none',
        corpus: { watch: false },
        store: { cacheDirectory: join(dir, 'cache-long') },
        search: { directory: join(dir, 'search-long') },
      });
      let longBuilt: Awaited<ReturnType<typeof build>>;
      // The same long sessions attached live (a host holding them in memory): indexed from their byte logs, then one
      // turn appended to each and searched again (only the appended entries are decoded).
      const liveTimes: { whole: number; appended: number; foundAppended: boolean } = { whole: 0, appended: 0, foundAppended: false };
      try {
        longBuilt = await build(longEngine);
        const liveSessions = Array.from({ length: LONG_SESSIONS }, (_, index) => {
          const session = longSearchSession(`live-${index}`, index);
          return { header: session.header, events: [...session.events] };
        });
        for (const session of liveSessions) longEngine.attachLive(session);
        let start = performance.now();
        await longEngine.searchSessions({ query: 'live warm up' });
        liveTimes.whole = performance.now() - start;
        for (const session of liveSessions) {
          const base = session.events.length;
          const time = session.header.createdAt + base;
          session.events.push(
            { type: 'turn/start', seq: base, time, data: { turn: 100_000 } },
            {
              type: 'user/message',
              seq: base + 1,
              time,
              data: {
                content: [{ type: 'text', text: 'a live numbat' }],
                source: { kind: 'user' },
                role: 'user',
                id: `${session.header.id}-x`,
              },
              surfaceOp: 'append',
            },
            { type: 'turn/end', seq: base + 2, time, data: { turn: 100_000, reason: { kind: 'completed' } } },
          );
        }
        start = performance.now();
        const page = await longEngine.searchSessions({ query: 'live numbat' });
        liveTimes.appended = performance.now() - start;
        liveTimes.foundAppended = page.results.length === LONG_SESSIONS;
      } finally {
        await longEngine.close();
      }

      const all = [...queryTimes.values()].flat();
      const allBrute = [...bruteTimes.values()].flat();
      const mb = decodedBytes / 1e6;
      lines.push(
        '### Search (issue 17) — SQLite FTS5 in the search worker',
        '',
        `Corpus: ${SESSIONS.toLocaleString('en-US')} raw sessions of 3 turns (bench/support/corpus-generator.ts, ${mb.toFixed(1)} MB decoded), and ${LONG_SESSIONS} long sessions (bench/support/long-session.ts: 30,000+ events, tool calls, a compaction after turn 200; ${(longBytes / 1e6).toFixed(1)} MB). Engine: \`createEngine({ root, search: { directory } })\` with its defaults (pool on, warm corpus view on: a long-lived engine as MCP and the Web use). Every search first brings the index up to date (one \`stat\` per unchanged log, in the worker). Brute force: the projected texts of every session held in memory, tokenised per query with the same rules (NFD, marks stripped, lower case, letter/digit runs) — a lower bound for any scan, which would also have to read and decode the logs.`,
        '',
        '| measurement | value |',
        '|---|---|',
        `| index build, 10,000 sessions (first search) | ${(built.ms / 1000).toFixed(2)} s = **${(mb / (built.ms / 1000)).toFixed(1)} MB/s** decoded |`,
        `| main-thread stall during that build: max / p99 | **${built.maxStallMs.toFixed(1)} ms** / ${built.p99StallMs.toFixed(1)} ms (target max < 5 ms) |`,
        `| for comparison: stall of an idle main thread while another thread spins 2 s (the machine's floor) | max ${floor.maxStallMs.toFixed(1)} ms / p99 ${floor.p99StallMs.toFixed(1)} ms |`,
        `| for comparison: stall during discovery's first listing and titles (the warm view's build, before the search; \`listSessions()\` + 20 titles, ${(listing.ms / 1000).toFixed(2)} s) | max ${listing.maxStallMs.toFixed(1)} ms / p99 ${listing.p99StallMs.toFixed(1)} ms |`,
        `| for comparison: starting the search thread (once per process; \`startSearchWorker\`, as \`mcp\` and \`serve\` do, moves it to engine creation) | max ${threadStart.maxStallMs.toFixed(1)} ms |`,
        `| index build, ${LONG_SESSIONS} long sessions | ${(longBuilt.ms / 1000).toFixed(2)} s = **${(longBytes / 1e6 / (longBuilt.ms / 1000)).toFixed(1)} MB/s**; stall max ${longBuilt.maxStallMs.toFixed(1)} ms |`,
        `| the same ${LONG_SESSIONS} long sessions attached live: first search (byte logs decoded whole) / after one turn appended to each (appended entries only) | ${liveTimes.whole.toFixed(1)} ms / **${liveTimes.appended.toFixed(1)} ms**; the appended turn found in all ${LONG_SESSIONS}: **${liveTimes.foundAppended ? 'yes' : 'NO'}** |`,
        `| warm search (limit 20), all ${QUERIES.length} queries × ${ROUNDS}: p50 / p95 | **${percentile(all, 50).toFixed(1)} ms / ${percentile(all, 95).toFixed(1)} ms** |`,
        `| brute force, same queries: p50 / p95 | ${percentile(allBrute, 50).toFixed(1)} ms / ${percentile(allBrute, 95).toFixed(1)} ms |`,
        `| "checkout" (in all ${SESSIONS.toLocaleString('en-US')} sessions) at limit 1 / limit 100: p50 | ${percentile(everything.get(1) ?? [0], 50).toFixed(1)} ms / ${percentile(everything.get(100) ?? [0], 50).toFixed(1)} ms |`,
        `| opening the index while this engine keeps it open (a WAL in use), as a one-shot CLI beside \`serve\` (1.5 s after its last request) | **${beside.ms.toFixed(0)} ms**; full integrity check: ${beside.fullCheck ? 'yes' : 'no'} |`,
        `| first search after appending a turn to 1% (${appended.size}) of the logs | **${(afterTimes[0] as number).toFixed(1)} ms** (same query warm: p50 ${percentile(warmAgain, 50).toFixed(1)} ms; brute force ${(bruteAfter[0] as number).toFixed(1)} ms) |`,
        '',
        '| query | sessions matched | search p50 ms | search p95 ms | brute force p50 ms |',
        '|---|---|---|---|---|',
        ...QUERIES.map(
          (query) =>
            `| ${JSON.stringify(query)} | ${matched.get(query) ?? 0} | ${percentile(queryTimes.get(query) ?? [0], 50).toFixed(1)} | ${percentile(queryTimes.get(query) ?? [0], 95).toFixed(1)} | ${percentile(bruteTimes.get(query) ?? [0], 50).toFixed(1)} |`,
        ),
        '',
        `- Sessions found equal the brute-force scan for every query: **${equal ? 'yes' : 'NO'}**; after the appends, exactly the ${appended.size} appended sessions: **${reflected && sameSet(bruteFound, appended) ? 'yes' : 'NO'}**.`,
      );
    } finally {
      await engine.close();
    }
    return lines.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A fleet of hosts (issue 29, "Tests and benchmarks"): `FLEET_HOSTS` hosts (default 4), each with its own generated
 * dsh-shaped zstd root of `FLEET_HOST_SESSIONS` sessions (default 25,000; seeds differ, so ids do), publishing into one
 * throwaway PostgreSQL (`test/support/postgres-cluster.ts`) at the same time. The hosts are engines of this one process
 * (each with its own pool, corpus view and publisher; one machine's 2 cores shared by all of them and the server), so
 * the throughput is what one machine sustains for all of them together, not per host. Measured:
 * - publish: from the engines' creation to each host's first completed publish (headers, titles, search documents and
 *   source entries), and the fleet's total rows;
 * - fleet discovery from host 0: every prefix of a typed query, several rounds, p50/p95;
 * - fleet search from host 0: one page of 20 for a set of phrases, several rounds, p50/p95;
 * - a remote cold `prepare` (host 0 citing long sessions host 1 owns, from the database) against the same sessions
 *   prepared on host 1 from its log (an engine with the source cache off, so each read is whole), and
 *   whether the two preparations are byte-identical.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';
import type { FleetPublishEvent } from '../src/main/engine/fleet/background-publisher.js';
import { resolveCorpusIndexConfig } from '../src/main/engine/fleet/corpus-index-config.js';
import { FleetDatabase } from '../src/main/engine/fleet/fleet-database.js';
import { DatabaseUrl } from '../src/main/engine/fleet/database-url.js';
import { PostgresCluster } from '../test/support/postgres-cluster.js';
import { dshCorpusSession, generatedCwd, writeDshCorpus } from './support/dsh-corpus.js';

const HOSTS = Number(process.env['FLEET_HOSTS'] ?? 4);
const SESSIONS = Number(process.env['FLEET_HOST_SESSIONS'] ?? 25_000);
const TYPED = 'fix checkout issue 12';
const KEYSTROKES = Array.from({ length: TYPED.length }, (_, index) => TYPED.slice(0, index + 1));
const QUERIES = ['checkout', 'retention budget', 'worker surface compaction', 'migration returns the', 'quoted tag', 'zebra quokka'];
const ROUNDS = 3;
/** Long sessions of host 1 cited cold, remotely and locally. */
const CITED = 6;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function timed<T>(times: number[], run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await run();
  times.push(performance.now() - start);
  return value;
}

const TARGET = { id: 'bench-target', session: { header: { cwd: generatedCwd(3) } } };
const reader = { id: 'bench-reader', session: { header: {} } };

/** One citation of `sessionId` by `engine`, as JSON with the message id masked (or the error's code and text). */
async function cite(engine: LocalSessionEngine, sessionId: string): Promise<string> {
  try {
    const sized = await engine.prepareSized(reader, [{ type: 'text', text: 'see this' }], [{ sessionId, label: 'cited' }]);
    // The context message's id is random per preparation: everything else must be equal.
    return JSON.stringify(sized, (key, value: unknown) => (key === 'id' && typeof value === 'string' ? '(message id)' : value));
  } catch (error) {
    return JSON.stringify({ code: (error as { code?: unknown }).code, message: (error as Error).message });
  }
}

/** Runs the fleet-of-hosts suite and returns its markdown report. */
export async function runFleetHosts(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-fleet-hosts-bench-'));
  const cluster = await PostgresCluster.start();
  const hosts: LocalSessionEngine[] = [];
  try {
    const url = cluster.url(await cluster.createDatabase());
    const roots = Array.from({ length: HOSTS }, (_, host) => join(dir, `root-${host}`));
    let bytes = 0;
    for (const [host, root] of roots.entries()) bytes += (await writeDshCorpus(root, { sessions: SESSIONS, seed: host + 1 }, 'zstd')).bytes;
    const published = new Map<number, number>();
    let failures = 0;
    const started = performance.now();
    const firsts = roots.map(() => {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((settle) => {
        resolve = settle;
      });
      return { promise, resolve };
    });
    const engines = await Promise.all(
      roots.map((root, host) =>
        createEngine({
          root,
          compression: 'zstd',
          corpus: { watch: false },
          store: { cacheDirectory: join(dir, `cache-${host}`) },
          onFleetEvent: (event: FleetPublishEvent) => {
            if (event.kind === 'failed') failures += 1;
            if (event.kind === 'published' && !published.has(host)) {
              published.set(host, performance.now() - started);
              firsts[host]?.resolve();
            }
          },
          corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host: `host-${host}` }, { SESSIONCTX_DATABASE_URL: url }),
        }),
      ),
    );
    hosts.push(...engines);
    await Promise.all(firsts.map((first) => first.promise));
    const publishMs = performance.now() - started;
    const database = await FleetDatabase.open({ url: new DatabaseUrl(url) });
    let rows: { sessions: number; documents: number; sources: number; bytes: number };
    try {
      const [counted] = await database.query<{ sessions: number; documents: number; sources: number; bytes: string }>(
        `SELECT (SELECT count(*)::int FROM sessionctx.artifacts) AS sessions,
                (SELECT count(*)::int FROM sessionctx.documents) AS documents,
                (SELECT count(*)::int FROM sessionctx.sources) AS sources,
                pg_database_size(current_database())::text AS bytes`,
      );
      rows = {
        sessions: counted?.sessions ?? 0,
        documents: counted?.documents ?? 0,
        sources: counted?.sources ?? 0,
        bytes: Number(counted?.bytes ?? 0),
      };
    } finally {
      await database.close();
    }

    const asking = hosts[0] as LocalSessionEngine;
    const discovery: number[] = [];
    const found = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const query of KEYSTROKES) found.set(query, (await timed(discovery, () => asking.listCandidates(TARGET, query))).length);
    }
    const discoveryFound = KEYSTROKES.map((query) => found.get(query)).join(', ');
    const search: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const query of QUERIES) await timed(search, () => asking.searchSessions({ query, limit: 20 }));
    }

    // Long sessions of host 1 (the generator makes every 50th long), each cited once per side, cold.
    const cited = Array.from({ length: CITED }, (_, at) => dshCorpusSession(49 + at * 50, { sessions: SESSIONS, seed: 2 }).header.id);
    const remote: number[] = [];
    const local: number[] = [];
    let identical = true;
    // The owner: a long-lived engine over host 1's root with the source cache off (every preparation reads its source
    // whole), warmed by one citation of a session not measured.
    const owner = await createEngine({ root: roots[1] as string, compression: 'zstd', corpus: { watch: false }, sourceCache: false });
    try {
      await cite(owner, dshCorpusSession(0, { sessions: SESSIONS, seed: 2 }).header.id);
      await cite(asking, dshCorpusSession(1, { sessions: SESSIONS, seed: 2 }).header.id);
      for (const sessionId of cited) {
        const fromDatabase = await timed(remote, () => cite(asking, sessionId));
        const fromLog = await timed(local, () => cite(owner, sessionId));
        if (process.env['FLEET_HOSTS_DIFF'] !== undefined && fromDatabase !== fromLog) console.error(`${fromDatabase}\n${fromLog}`);
        identical &&= fromDatabase === fromLog && !fromLog.startsWith('{"code"');
      }
    } finally {
      await owner.close();
    }
    const total = HOSTS * SESSIONS;
    const perHost = [...published.entries()].sort((a, b) => a[0] - b[0]).map(([host, ms]) => `host-${host} ${(ms / 1000).toFixed(1)} s`);
    return [
      `### Fleet of hosts (issue 29): ${HOSTS} hosts × ${SESSIONS.toLocaleString('en-US')} dsh-shaped zstd sessions (${(bytes / 1e6).toFixed(1)} MB of log) into one PostgreSQL, one 2-core machine`,
      '',
      '| measure | value |',
      '|---|---|',
      `| every host's first publish done (all ${HOSTS} at once, from the engines' creation) | ${(publishMs / 1000).toFixed(1)} s (${perHost.join(', ')}); ${failures} failed attempts |`,
      `| throughput, all hosts together | ${Math.round(total / (publishMs / 1000)).toLocaleString('en-US')} sessions/s, ${Math.round(rows.documents / (publishMs / 1000)).toLocaleString('en-US')} documents/s, ${(bytes / 1e6 / (publishMs / 1000)).toFixed(1)} MB/s of log |`,
      `| database after the publish | ${rows.sessions.toLocaleString('en-US')} sessions, ${rows.documents.toLocaleString('en-US')} documents, ${rows.sources.toLocaleString('en-US')} source entries, ${(rows.bytes / 1e6).toFixed(0)} MB |`,
      `| fleet discovery from host 0 (every prefix of "${TYPED}", ${ROUNDS} rounds): p50 / p95 / max | ${percentile(discovery, 50).toFixed(1)} / **${percentile(discovery, 95).toFixed(1)}** / ${Math.max(...discovery).toFixed(1)} ms (candidates per keystroke: ${discoveryFound}) |`,
      `| fleet search from host 0 (one page of 20, ${QUERIES.length} phrases × ${ROUNDS}): p50 / p95 | ${percentile(search, 50).toFixed(1)} / **${percentile(search, 95).toFixed(1)}** ms |`,
      `| cold \`prepare\` of ${CITED} long sessions of host 1: remote (host 0, from the database) / local (host 1 from its log, source cache off), medians | ${percentile(remote, 50).toFixed(1)} / ${percentile(local, 50).toFixed(1)} ms = **${(percentile(remote, 50) / percentile(local, 50)).toFixed(2)}×** |`,
      `| remote preparations byte-identical to the owner's | ${identical ? 'yes' : 'NO'} |`,
    ].join('\n');
  } finally {
    await Promise.all(hosts.map((engine) => engine?.close()));
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Fleet search (issue 29 item 3): a dsh-shaped generated corpus (`support/dsh-corpus.ts`) published into a throwaway
 * PostgreSQL (`test/support/postgres-cluster.ts`, Debian's binaries) with its search documents — publish throughput
 * (documents/s, MB/s of log) of a first publish and the cost of a republish with nothing changed — then fleet search
 * p50/p95 (one page of 20, from the engine's face: plan, query, snippets) beside the local SQLite search of the same
 * root, and whether both find the same sessions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/main/engine/assembly/create-engine.js';
import { CorpusPublisher } from '../src/main/engine/fleet/corpus-publisher.js';
import { resolveCorpusIndexConfig } from '../src/main/engine/fleet/corpus-index-config.js';
import { DatabaseUrl } from '../src/main/engine/fleet/database-url.js';
import { FleetDatabase } from '../src/main/engine/fleet/fleet-database.js';
import { scanSearchDocuments } from '../src/main/engine/fleet/search-document-scan.js';
import type { SearchQuery } from '../src/protocol/search-types.js';
import { PostgresCluster } from '../test/support/postgres-cluster.js';
import { writeDshCorpus } from './support/dsh-corpus.js';

/** 2,000 sessions; `FLEET_SEARCH_SESSIONS` overrides it (a quick check of the suite itself, or a larger corpus). */
const SESSIONS = Number(process.env['FLEET_SEARCH_SESSIONS'] ?? 2000);
const QUERIES = ['checkout', 'retention budget', 'worker surface compaction', 'migration returns the', 'quoted tag', 'zebra quokka'];
const ROUNDS = 5;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Every session id a search finds (paged through). */
async function everySession(
  search: (query: SearchQuery) => Promise<{ results: readonly { sessionId: string }[]; nextCursor?: string }>,
  query: string,
) {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await search({ query, limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    ids.push(...page.results.map((result) => result.sessionId));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids.sort();
}

/** Runs the fleet search suite and returns its markdown report. */
export async function runFleetSearch(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-fleet-search-bench-'));
  const cluster = await PostgresCluster.start();
  try {
    const root = join(dir, 'root');
    const written = await writeDshCorpus(root, { sessions: SESSIONS }, 'none');
    const url = cluster.url(await cluster.createDatabase());
    const database = await FleetDatabase.open({ url: new DatabaseUrl(url) });
    const local = await createEngine({
      root,
      compression: 'none',
      corpus: { watch: false },
      store: { cacheDirectory: join(dir, 'cache') },
      search: { directory: join(dir, 'search') },
    });
    const asking = await createEngine({
      root: join(dir, 'root'),
      compression: 'none',
      corpus: { watch: false },
      store: { cacheDirectory: join(dir, 'cache-asking') },
      fleetPublish: false,
      corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host: 'asking' }, { SESSIONCTX_DATABASE_URL: url }),
    });
    try {
      const publisher = new CorpusPublisher({ database, identity: { host: 'bench', root }, layout: { root, compression: 'none' } });
      const source = {
        listSessions: (signal?: AbortSignal) => local.listSessions(signal),
        readTitleSnapshots: (ids: Parameters<typeof local.readTitleSnapshots>[0], signal?: AbortSignal) =>
          local.readTitleSnapshots(ids, signal),
        search: {
          includeTools: false,
          scan: (request: Parameters<typeof scanSearchDocuments>[2], signal?: AbortSignal) =>
            scanSearchDocuments(local.runner, { root, compression: 'none' }, request, false, signal),
        },
      };
      const start = performance.now();
      const first = await publisher.publish(source);
      const publishMs = performance.now() - start;
      const [counted] = await database.query<{ n: number; bytes: string }>(
        "SELECT count(*)::int AS n, pg_total_relation_size('sessionctx.documents')::text AS bytes FROM sessionctx.documents",
      );
      const again = performance.now();
      await publisher.publish(source);
      const republishMs = performance.now() - again;
      await local.buildSearchIndex({});
      const fleetTimes: number[] = [];
      const localTimes: number[] = [];
      let equal = true;
      const matched: string[] = [];
      for (const query of QUERIES) {
        const fleetIds = await everySession((asked) => asking.searchSessions(asked), query);
        const localIds = await everySession((asked) => local.searchSessions(asked), query);
        equal &&= JSON.stringify(fleetIds) === JSON.stringify(localIds);
        matched.push(`${query}: ${fleetIds.length}`);
      }
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const query of QUERIES) {
          let at = performance.now();
          await asking.searchSessions({ query, limit: 20 });
          fleetTimes.push(performance.now() - at);
          at = performance.now();
          await local.searchSessions({ query, limit: 20 });
          localTimes.push(performance.now() - at);
        }
      }
      const documents = counted?.n ?? 0;
      const mb = written.bytes / 1e6;
      return [
        `### Fleet search (issue 29 item 3): ${SESSIONS.toLocaleString('en-US')} dsh-shaped sessions, ${mb.toFixed(1)} MB of log, one host`,
        '',
        '| measure | value |',
        '|---|---|',
        `| first publish (headers, titles, documents; no source entries) | ${(publishMs / 1000).toFixed(2)} s: ${Math.round(documents / (publishMs / 1000)).toLocaleString('en-US')} documents/s, ${(mb / (publishMs / 1000)).toFixed(1)} MB/s of log (${first.batches} batches) |`,
        `| documents table with its indexes | ${documents.toLocaleString('en-US')} documents, ${(Number(counted?.bytes ?? 0) / 1e6).toFixed(1)} MB |`,
        `| republish, nothing changed | ${republishMs.toFixed(0)} ms |`,
        `| fleet search, one page of 20 (p50 / p95, ${QUERIES.length} phrases × ${ROUNDS}) | ${percentile(fleetTimes, 50).toFixed(1)} / ${percentile(fleetTimes, 95).toFixed(1)} ms |`,
        `| local SQLite search, same pages (p50 / p95) | ${percentile(localTimes, 50).toFixed(1)} / ${percentile(localTimes, 95).toFixed(1)} ms |`,
        `| same sessions found as the local index | ${equal ? 'yes' : 'NO'} (${matched.join('; ')}) |`,
      ].join('\n');
    } finally {
      await asking.close();
      await local.close();
      await database.close();
    }
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Run by dcp-exit.test.mts in a child Node 22 process: a dsh host with sessionctx/dsh-dcp, dsh's storage and the
 * storage-domain facility, a 6,000-event session (past the ledger's `minEvents`, so `/dcp stats` starts the plugin's
 * worker thread and opens its storage domain), one turn and `/dcp stats`; then dispose, and do NOTHING — the test
 * expects this process to exit on its own. Prints one JSON line with what is still alive after dispose.
 */
import { generateDcpCorpus } from './dcp-dist.mts';
import { bootDcpHost } from './dcp-host.mts';
import { rc8Kit } from './dcp-kit-rc8.mts';

const host = await bootDcpHost({ kit: rc8Kit, dcp: {}, storage: true, replies: [{ text: 'ok' }] });
const agent = await host.createAgent('exit-check', { seed: generateDcpCorpus(6_000) });
await host.prompt(agent, 'one question');
const stats = await host.command(agent, '/dcp stats');
const service = host.ctx.get('sessionctxDcp') as { runtime: { ledgers: { runs: { pool: number } } } };
const pool = service.runtime.ledgers.runs.pool;
await host.dispose();
const atDispose = process.getActiveResourcesInfo();
await new Promise((resolve) => setImmediate(resolve));
const settled = process.getActiveResourcesInfo();
const report = {
  stats: stats?.result.kind,
  domain: /persistent domain: current \(single-process scope\)/.test(String(stats?.result.text)),
  pool,
  requests: host.requests.length,
  atDispose,
  settled,
};
process.stdout.write(`${JSON.stringify(report)}\n`);

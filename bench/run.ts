/**
 * `npm run bench [-- <suite>…]`: runs the benchmark suites side by side and prints a markdown
 * report for bench/RESULTS.md.
 */
import { machineLine } from './support/measure.js';
import { runEngineDiscovery } from './engine-discovery.js';
import { runP1 } from './p1-prepare.js';
import { runP1Pool } from './p3-p1-through-pool.js';
import { runP1w } from './p1w-warm-prepare.js';
import { runP3 } from './p3-stall.js';
import { runP4 } from './p4-discovery.js';
import { runP4w } from './p4w-warm-discovery.js';
import { runP5 } from './p5-cancel.js';
import { runD3 } from './p6-dcp-commit.js';
import { runP6 } from './p6-dcp-prestep.js';
import { runP6Stats } from './p6-dcp-stats.js';
import { runP6Strategies } from './p6-dcp-strategies.js';
import { runP7 } from './p7-load.js';
import { runP8 } from './p8-decode.js';
import { runP9 } from './p9-scale-discovery.js';
import { runTransport } from './transport-codec.js';
import { runSearch } from './search-fts.js';
import { runDshHostStall } from './dsh-host-stall.js';
import { runCliStartup } from './cli-startup.js';
import { runDshDcpPreStep } from './dsh-dcp-pre-step.js';
import { runMainThreadBudget } from './main-thread-budget.js';
import { runDshSearchCompare } from './dsh-search-compare.js';
import { runFleetSearch } from './fleet-search.js';
import { runFleetHosts } from './fleet-hosts.js';
import { runPrepareScale } from './prepare-scale.js';

const SUITES: Record<string, () => Promise<string>> = {
  p1: runP1,
  p1pool: runP1Pool,
  p1w: runP1w,
  p3: runP3,
  p4: runP4,
  p4w: runP4w,
  p5: runP5,
  p6: runP6,
  p6s: runP6Strategies,
  d6: runP6Stats,
  d3: runD3,
  p7: runP7,
  p8: runP8,
  p9: runP9,
  transport: runTransport,
  engine: runEngineDiscovery,
  search: runSearch,
  dsh: runDshHostStall,
  cli: runCliStartup,
  dshdcp: runDshDcpPreStep,
  budget: runMainThreadBudget,
  dshsearch: runDshSearchCompare,
  fleetsearch: runFleetSearch,
  fleethosts: runFleetHosts,
  preparescale: runPrepareScale,
};

const requested = process.argv.slice(2);
const names = requested.length > 0 ? requested : Object.keys(SUITES);
const unknown = names.filter((name) => !Object.hasOwn(SUITES, name));
if (unknown.length > 0) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
  process.exit(2);
}
console.log(`Machine: ${machineLine()}\n`);
for (const name of names) {
  const suite = SUITES[name] as () => Promise<string>;
  console.log(await suite());
  console.log('');
}

// `npm test`: the main suite (vitest on this Node, >= 20.19), then the dsh-host suites — test/dsh-host (dsh 0.1.0-rc.8)
// and test/dsh-host-rc6 (dsh 0.1.0-rc.6), each its own package and lockfile, on the Node 22 it brings as the `node`
// npm package: dsh's packages need Node >= 22. Arguments are forwarded to every run; a `--outputFile.json=F` report of
// the main run becomes `F` with `-dsh` (`-dsh-rc6`) before the extension for the others, so scripts/test-summary.mjs
// can add them up. Then the official MCP conformance suite (test/mcp-conformance, the same kind of package: the suite
// needs Node >= 22) against `sessionctx mcp --http` from dist/, run on this Node (report suffix `-mcp`). Exit status:
// non-zero when any run failed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const hostPackage = join(repo, 'test', 'dsh-host');
const args = process.argv.slice(2);

function run(command, commandArgs, cwd) {
  const result = spawnSync(command, commandArgs, { cwd, stdio: 'inherit' });
  if (result.error !== undefined) console.error(`run-tests: ${command}: ${result.error.message}`);
  return result.status ?? 1;
}

const main = run(process.execPath, [join(repo, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args], repo);

const REPORT = '--outputFile.json=';

/** Runs one test package's suite on its Node 22, installing the package from its lockfile first when a fresh clone has not. */
function runPackage(folder, suffix) {
  const node22 = join(folder, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(node22) || !existsSync(join(folder, 'node_modules', 'vitest'))) {
    console.log(`run-tests: installing ${relative(repo, folder)} from its lockfile (npm ci)`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    if (run(npm, ['ci', '--no-audit', '--no-fund'], folder) !== 0) return 1;
  }
  const packageArgs = args.map((arg) => {
    if (!arg.startsWith(REPORT)) return arg;
    // The run works in the test package's folder: its report path is made absolute against the repository.
    const report = resolve(repo, arg.slice(REPORT.length));
    return `${REPORT}${report.endsWith('.json') ? `${report.slice(0, -5)}-${suffix}.json` : `${report}-${suffix}`}`;
  });
  return run(node22, [join(folder, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...packageArgs], folder);
}

const host = runPackage(hostPackage, 'dsh');
// After test/dsh-host: its rc.8 host is the other side of the rc.6 package's cross-release comparison.
const hostRc6 = runPackage(join(repo, 'test', 'dsh-host-rc6'), 'dsh-rc6');
// The conformance suite's server is this repository's CLI (dist/), run on this Node, not the package's Node 22.
process.env.SESSIONCTX_SERVER_NODE = process.execPath;
const conformance = runPackage(join(repo, 'test', 'mcp-conformance'), 'mcp');
process.exit([main, host, hostRc6, conformance].find((status) => status !== 0) ?? 0);

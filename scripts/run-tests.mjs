// `npm test`: the main suite (vitest on this Node, >= 20.19), then the dsh-host suite (test/dsh-host, its own package
// and lockfile, on the Node 22 it brings as the `node` npm package: dsh's packages need Node >= 22). Arguments are
// forwarded to both runs; a `--outputFile.json=F` report of the main run becomes `F` with `-dsh` before the extension
// for the second, so scripts/test-summary.mjs can add the two up. Exit status: non-zero when either run failed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

// A fresh clone after `npm install` has not installed the test package yet: install it from its lockfile.
const node22 = join(hostPackage, 'node_modules', 'node', 'bin', 'node');
if (!existsSync(node22) || !existsSync(join(hostPackage, 'node_modules', 'vitest'))) {
  console.log('run-tests: installing test/dsh-host from its lockfile (npm ci)');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  if (run(npm, ['ci', '--no-audit', '--no-fund'], hostPackage) !== 0) process.exit(1);
}
const REPORT = '--outputFile.json=';
const hostArgs = args.map((arg) => {
  if (!arg.startsWith(REPORT)) return arg;
  // The second run works in the test package's folder: its report path is made absolute against the repository.
  const report = resolve(repo, arg.slice(REPORT.length));
  return `${REPORT}${report.endsWith('.json') ? `${report.slice(0, -5)}-dsh.json` : `${report}-dsh`}`;
});
const host = run(node22, [join(hostPackage, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...hostArgs], hostPackage);
process.exit(main !== 0 ? main : host);

/**
 * Suite `dshdcp` (issue 25): runs test/dsh-host/bench/dcp-pre-step.mts — `sessionctx/dsh-dcp` in a real dsh host on
 * the Node 22 of the test package, against the same host with no DCP — and returns its markdown report. The test
 * package is installed from its lockfile first when it is missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOST_PACKAGE = join(REPO, 'test', 'dsh-host');

/** Runs the real-host DCP pre-step benchmark in the dsh-host package and returns its report. */
export async function runDshDcpPreStep(): Promise<string> {
  const node22 = join(HOST_PACKAGE, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(node22)) {
    const installed = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: HOST_PACKAGE, stdio: 'inherit' });
    if (installed.status !== 0) throw new Error('bench dshdcp: could not install test/dsh-host (npm ci)');
  }
  const run = spawnSync(node22, ['--no-warnings', join('bench', 'dcp-pre-step.mts')], {
    cwd: HOST_PACKAGE,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`bench dshdcp: dcp-pre-step.mts exited with ${String(run.status)}`);
  return run.stdout.trim();
}

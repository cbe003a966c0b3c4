/**
 * After dispose, a Node 22 process that ran sessionctx/dsh-dcp — its worker thread started by `/dcp stats` over a long
 * log, its storage domain open — exits on its own: the plugin leaves no handle (`support/dcp-exit-check.mts`).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('exits on its own after dispose (sessionctx/dsh-dcp with its stats worker and storage domain)', async () => {
  const script = fileURLToPath(new URL('./support/dcp-exit-check.mts', import.meta.url));
  const child = spawn(process.execPath, ['--no-warnings', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, 60_000);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  expect(code, `stdout: ${stdout}\nstderr: ${stderr}`).toBe(0);
  const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
  expect(report).toMatchObject({ stats: 'success', domain: true, pool: 1, requests: 1 });
  // Only the stdout pipe this report travels through may still be registered.
  expect(report.settled.filter((name: string) => !['TTYWrap', 'PipeWrap'].includes(name))).toEqual([]);
});

/** After dispose, a Node 22 process that ran the harness exits on its own: the host leaves no open handle. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

for (const resolver of ['dsh', 'sessionctx'] as const)
  it(`exits on its own after dispose (${resolver}'s resolver)`, async () => {
    const script = fileURLToPath(new URL('./support/exit-check.mts', import.meta.url));
    // process.execPath is node_modules/node/bin/node: `npm test` runs vitest on it; Node 22 strips the types itself.
    const child = spawn(process.execPath, ['--no-warnings', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, EXIT_CHECK_RESOLVER: resolver },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 30_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(code, `stdout: ${stdout}\nstderr: ${stderr}`).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(report).toMatchObject({ outcome: { kind: 'completed' }, requests: 1, dateNowRestored: true });
    // Only the stdout pipe this report travels through may still be registered.
    expect(report.settled.filter((name: string) => !['TTYWrap', 'PipeWrap'].includes(name))).toEqual([]);
  });

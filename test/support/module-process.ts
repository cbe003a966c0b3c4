/**
 * Runs an ES module's source as its own Node process, to check what a process does by itself — above all that it
 * exits when its work is done (nothing left holding the event loop open).
 *
 * The source is written to a file and run as `node <file>`, not with `--input-type=module -e`: worker threads inherit
 * the parent's `execArgv`, and a worker started with `--input-type` fails at once ("--input-type can only be used
 * with string input"), so a `-e` child could not show what a thread does.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `source` as a module file in a new process.
 * @param source - the module's text (it imports built modules by file URL).
 * @param timeoutMs - how long it may run before it is killed.
 * @returns its exit code, or `'timeout'` when it did not exit by itself in time.
 */
export function runModuleProcess(source: string, timeoutMs: number): Promise<number | 'timeout'> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-child-'));
  const file = join(dir, 'child.mjs');
  writeFileSync(file, source);
  return new Promise<number | 'timeout'>((resolve, reject) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('timeout');
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? -1);
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}

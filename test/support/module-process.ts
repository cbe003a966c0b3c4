/**
 * Runs an ES module's source as its own Node process, to check what a process does by itself — above all that it
 * exits when its work is done (nothing left holding the event loop open).
 */
import { spawn } from 'node:child_process';

/**
 * Runs `source` with `node --input-type=module -e`.
 * @param source - the module's text (it imports built modules by file URL).
 * @param timeoutMs - how long it may run before it is killed.
 * @returns its exit code, or `'timeout'` when it did not exit by itself in time.
 */
export function runModuleProcess(source: string, timeoutMs: number): Promise<number | 'timeout'> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('timeout');
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? -1);
    });
  });
}

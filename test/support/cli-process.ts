/**
 * Runs the built `sessionctx` executable as a child process, the way a person or a script does, and captures
 * what it printed and its exit status. CLI tests share it so each asserts behaviour, not process plumbing.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './fixtures.js';

const run = promisify(execFile);

/** The built executable. */
export const CLI_BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

/** What one run printed and how it ended. */
export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How to run it. */
export interface CliRunOptions {
  /** The whole environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Kill the child after this long and fail: the command hung. */
  readonly timeoutMs?: number;
}

/**
 * Runs `sessionctx <args…>`.
 * @param args - the command line after the executable.
 * @param options - environment, working directory, hang timeout.
 * @returns the exit status and both outputs (a non-zero exit is an outcome, not a failure of this function).
 * @throws Error when the command was killed after `timeoutMs`.
 */
export async function runBuiltCli(args: readonly string[], options: CliRunOptions = {}): Promise<CliOutcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI_BIN, ...args], {
      env: options.env ?? process.env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string; killed?: boolean };
    if (failed.killed === true) throw new Error(`sessionctx ${args.join(' ')} hung (killed after ${String(options.timeoutMs)} ms)`);
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

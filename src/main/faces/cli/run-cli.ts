/**
 * The `sessionctx` command: parses the command line with the program of `program.ts`, runs one command, and
 * maps every outcome to an exit status — 0 ok, 1 failed, 2 usage error. A failure is printed once: with
 * `--json` as `{"error":{"code","message"}}` on stdout, otherwise as one line on stderr.
 */
import { CommanderError } from './commander.js';
import type { CliIo } from './cli-io.js';
import { reportError } from './error-output.js';
import { buildProgram } from './program.js';
import { UsageError } from './usage-error.js';
import { typedSystemError } from './cli-error.js';

/** commander's codes for output that is the answer, not a failure (help asked for, the version). */
const ANSWERED = new Set(['commander.helpDisplayed', 'commander.version']);

/**
 * A commander parse failure as our usage error: commander's message without its `error: ` prefix.
 * @param error - what commander threw.
 */
function usageErrorOf(error: CommanderError): UsageError {
  return new UsageError(error.message.replace(/^error: /, ''));
}

/**
 * Runs one command line.
 * @param argv - the arguments after the executable's name.
 * @param io - where output goes and what the process environment is.
 * @param signal - cancels the command.
 * @returns the exit status.
 */
export async function runCli(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  const json = argv.includes('--json');
  try {
    await (await buildProgram({ io, signal }, argv)).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (ANSWERED.has(error.code)) return 0;
      // `sessionctx` alone: commander has printed the general help on stderr; no command is a usage error.
      if (error.code === 'commander.help' || error.code === 'commander.executeSubCommandAsync') return 2;
      return reportError(io, usageErrorOf(error), json);
    }
    return reportError(io, typedSystemError(error), json);
  }
}

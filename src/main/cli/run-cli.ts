/**
 * The `sessionctx` command: parses the command line, runs one command, maps failures to exit
 * statuses (0 ok, 1 failed, 2 usage).
 */
import { parseArgs } from 'node:util';
import type { CliIo } from './cli-io.js';
import { writeLines } from './cli-io.js';
import { reportError } from './error-output.js';
import { resolveRoot } from './open-corpus.js';
import { UsageError } from './usage-error.js';
import { runSessionsCommand } from './commands/sessions-command.js';
import { runShowCommand } from './commands/show-command.js';
import { runTourCommand } from './commands/tour-command.js';

/** The commands this build offers, with their one-line help. */
const COMMANDS = {
  sessions: 'sessionctx sessions [--root DIR] [--json]            list sessions with their titles, newest first',
  show: 'sessionctx show <id> [--log] [--root DIR] [--json]    print a session\'s current surface (or its whole log)',
  demo: 'sessionctx demo                                       a short tour of what sessionctx does',
} as const;

type CommandName = keyof typeof COMMANDS;

function isCommandName(value: string): value is CommandName {
  return Object.hasOwn(COMMANDS, value);
}

/** The general help text. */
export function helpText(): string {
  return [
    'sessionctx — read DeepSeek Harness session logs, reference other sessions, prune context',
    '',
    'Usage:',
    ...Object.values(COMMANDS).map((line) => `  ${line}`),
    '',
    'Common flags:',
    '  --root DIR   the session root (default: $DSH_HOME/sessions, else ~/.dsh/sessions)',
    '  --json       machine-readable output; failures print {"error":{"code","message"}}',
    '  --help       help for a command',
  ].join('\n');
}

const OPTIONS = {
  root: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  log: { type: 'boolean' },
} as const;

/** Runs one command line and returns the process exit status. */
export async function runCli(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  const json = argv.includes('--json');
  try {
    const parsed = parseArguments(argv);
    const [name, ...rest] = parsed.positionals;
    if (name === undefined || name === 'help') {
      writeLines(io, [helpText()]);
      return name === undefined && parsed.values.help !== true ? 2 : 0;
    }
    if (!isCommandName(name)) throw new UsageError(`unknown command "${name}"; run sessionctx --help`);
    if (parsed.values.help === true) {
      writeLines(io, [`Usage: ${COMMANDS[name]}`]);
      return 0;
    }
    const root = resolveRoot(io, parsed.values.root);
    switch (name) {
      case 'sessions':
        expectPositionals(name, rest, 0);
        rejectFlag(name, 'log', parsed.values.log);
        await runSessionsCommand(io, { root, json }, signal);
        return 0;
      case 'show': {
        const [id] = expectPositionals(name, rest, 1);
        await runShowCommand(io, { root, json, id: id as string, log: parsed.values.log === true }, signal);
        return 0;
      }
      case 'demo':
        expectPositionals(name, rest, 0);
        await runTourCommand(io);
        return 0;
      default: {
        const unreachable: never = name;
        throw new UsageError(`unknown command "${String(unreachable)}"`);
      }
    }
  } catch (error) {
    return reportError(io, error, json);
  }
}

function parseArguments(argv: readonly string[]): ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; args: string[]; strict: true }>> {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function expectPositionals(command: CommandName, rest: readonly string[], count: number): readonly string[] {
  if (rest.length !== count) throw new UsageError(`usage: ${COMMANDS[command].split(/\s{2,}/)[0]}`);
  return rest;
}

function rejectFlag(command: CommandName, flag: string, value: unknown): void {
  if (value !== undefined) throw new UsageError(`sessionctx ${command} does not take --${flag}`);
}

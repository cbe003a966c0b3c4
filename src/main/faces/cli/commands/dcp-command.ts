/**
 * `sessionctx dcp <subcommand> [args…] --session <id>`: runs one `/dcp` command (DCP.md §11) on a stored session
 * and appends what it wrote to the stored log; reads (stats, context, show, manual status) append nothing. A command
 * that fails exits non-zero like any other failure of the CLI: arguments that are no `/dcp` command are a usage
 * error (`CLI_USAGE`, exit 2, its text in the CLI's words: `sessionctx dcp help`, not `/dcp help`); a missing block,
 * a refusal, a control turn that could not run, or `compress` (no model runs here, so it cannot act) fail with their
 * `DCP_*` code (exit 1). Nothing is appended for a failed command. `help` needs no session; every other
 * sub-command needs `--session`. `stats --json` carries the figures its text shows (`stats`).
 */
import { errorCode } from '../../../../protocol/error-code.js';
import { HELP_TEXT } from '../../../../protocol/dcp/command-texts.js';
import { DCP_COMMAND_HINT } from '../../../../protocol/dcp/constants.js';
import { parseStoredDcpCommand, runStoredDcpCommand } from '../../../stand-in/compose/stored-dcp-session.js';
import type { StoredDcpCommandLine } from '../../../stand-in/compose/stored-dcp-session.js';
import { UsageError } from '../usage-error.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { stderrLogger } from '../stderr-logger.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withCatalog } from '../open-engine.js';

/** The command line shape of `sessionctx dcp`, naming every sub-command (DCP.md §11.1). */
const DCP_USAGE = `sessionctx dcp <${DCP_COMMAND_HINT}> [args…] --session <id> [--root DIR] [--json]`;

/**
 * A `/dcp` text in the CLI's words: `/dcp show <bN>` is typed `sessionctx dcp show <bN>` here (the host's texts stay
 * DCP.md's; only what this command prints is reworded).
 */
function inCliWords(text: string): string {
  return text
    .replace('Unknown /dcp subcommand', 'Unknown dcp subcommand')
    .replace('Use /dcp help.', 'Run sessionctx dcp help.')
    .replaceAll('/dcp ', 'sessionctx dcp ');
}

/** The CLI's form of a failure: a `DCP_COMMAND_USAGE` failure becomes a usage error naming the sub-commands. */
function cliError(error: unknown): unknown {
  return error instanceof Error && errorCode(error) === 'DCP_COMMAND_USAGE'
    ? new UsageError(`${inCliWords(error.message)} (usage: ${DCP_USAGE})`)
    : error;
}

/** `sessionctx dcp help`: the §11.2 help block in the CLI's words; it reads no session. */
function printHelp(context: CommandContext, command: StoredDcpCommandLine): void {
  const text = [
    inCliWords(HELP_TEXT),
    'Every sub-command but help takes --session <id>: a session of the root (an id or unambiguous prefix).',
    'compress asks the model for a turn, so only a host that runs the session can run it; here it fails (DCP_COMMAND_REFUSED).',
  ].join('\n');
  if (context.json) writeJson(context.io, { command: command.line, kind: 'success', text });
  else writeLines(context.io, [text]);
}

/**
 * Parses what was typed after `dcp` once, as the `/dcp` line the host runs: the sub-command, its arguments, then the
 * flags commander took (`--raw`, `--into-context`) at the end, whatever their place on the command line.
 *
 * @throws UsageError `CLI_USAGE` when the arguments are no `/dcp` command (the message names the sub-commands).
 */
function parseTyped(subcommand: string, args: readonly string[], options: DcpOptions): StoredDcpCommandLine {
  const flags = [...(options.raw === true ? ['--raw'] : []), ...(options.intoContext === true ? ['--into-context'] : [])];
  const words = [subcommand, ...args, ...flags];
  try {
    return parseStoredDcpCommand(words.join(' '));
  } catch (error) {
    throw cliError(error);
  }
}

/**
 * Prints the command's result text and the notices of its control turn, or with `json`
 * `{sessionId, command, kind, text, notices, appendedEvents}`.
 *
 * @throws DcpCommandError `DCP_BLOCK_NOT_FOUND` or `DCP_COMMAND_REFUSED` when the command fails.
 */
async function runOnStoredSession(context: CommandContext, typedSessionId: string, command: StoredDcpCommandLine): Promise<void> {
  const { io } = context;
  const result = await withCatalog(context, async ({ catalog, engine }) => {
    const store = engine.store;
    if (store === undefined) throw new TypeError('sessionctx dcp needs a session root');
    const sessionId = (await catalog.requireRecord(typedSessionId, context.signal)).header.id;
    try {
      // Full-log folds of a long log (`/dcp stats`) run on the engine's pool, whose threads start only if one is needed.
      return await runStoredDcpCommand({
        store,
        sessionId,
        command,
        dcp: context.resolved.dcp,
        fullLogTasks: { runner: engine.runner },
        logger: stderrLogger(io),
      });
    } catch (error) {
      throw cliError(error);
    }
  });
  if (context.json) {
    writeJson(io, result);
    return;
  }
  writeLines(io, [
    result.text,
    ...result.notices,
    ...(result.appendedEvents > 0 ? [`(${result.appendedEvents} events appended to session ${result.sessionId})`] : []),
  ]);
}

/** The options of `dcp`. */
export interface DcpOptions {
  /** The stored session: an id or an unambiguous prefix; every sub-command but `help` needs it. */
  readonly session?: string;
  readonly raw?: boolean;
  readonly intoContext?: boolean;
}

/** `sessionctx dcp <subcommand> [args...] --session <id> [--raw] [--into-context]`. */
export const dcpCommand: CliCommandDefinition<[subcommand: string, args: string[]], DcpOptions> = {
  name: ['dcp'],
  usage: {
    description:
      'run one /dcp command on a stored session; commands that change it (manual on|off, sweep, decompress --into-context, recompress, compress) append their events',
    arguments: [
      { name: '<subcommand>', description: 'stats, context, show, manual, sweep, compress, decompress or recompress' },
      { name: '[args...]', description: "the subcommand's arguments (a block such as b1, on|off|status, a focus text)" },
    ],
    examples: [
      'sessionctx dcp help',
      // The session `sessionctx script run examples/compress-scenario.json --root ~/scenario-sessions` writes.
      'sessionctx dcp stats --session scenario-dcp-1 --root ~/scenario-sessions',
      'sessionctx dcp stats --session scenario-dcp --root ~/scenario-sessions --json',
      'sessionctx dcp show b1 --raw --session scenario-dcp-1 --root ~/scenario-sessions',
      'sessionctx dcp manual on --session scenario-dcp-1 --root ~/scenario-sessions',
    ],
  },
  options: [
    { flags: '--session <id>', description: 'the stored session: an id or unambiguous prefix (every sub-command but help)' },
    { flags: '--raw', description: "show: print the block's stored text as is" },
    { flags: '--into-context', description: "decompress: put the expansion into the session's context" },
  ],
  async run(context, { args: [subcommand, args], options }) {
    // Arguments that are no command are refused before the root is opened.
    const command = parseTyped(subcommand, args, options);
    if (command.command.kind === 'help') return printHelp(context, command);
    if (options.session === undefined) throw new UsageError(`sessionctx dcp ${subcommand} needs --session <id> (usage: ${DCP_USAGE})`);
    return runOnStoredSession(context, options.session, command);
  },
};

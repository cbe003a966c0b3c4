/**
 * `sessionctx dcp <subcommand> [args…] --session <id>`: runs one `/dcp` command (DCP.md §11) on a stored session
 * and appends what it wrote to the stored log; reads (stats, context, show, manual status) append nothing. A command
 * that fails exits non-zero like any other failure of the CLI: arguments that are no `/dcp` command are a usage
 * error (`CLI_USAGE`, exit 2); a missing block, a refusal or a control turn that could not run fail with their
 * `DCP_*` code (exit 1). Nothing is appended for a failed command.
 */
import { DCP_COMMAND_HINT } from '../../../protocol/dcp/constants.js';
import { asSessionId } from '../../../protocol/events.js';
import { DcpCommandError } from '../../dcp/dcp-command-error.js';
import { parseStoredDcpCommand, runStoredDcpCommand } from '../../compose/stored-dcp-session.js';
import type { StoredDcpCommandLine } from '../../compose/stored-dcp-session.js';
import { UsageError } from '../usage-error.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { stderrLogger } from '../stderr-logger.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withEngine } from '../open-engine.js';
import { resolveSessionId } from '../session-id-prefix.js';

/** The command line shape of `sessionctx dcp`, naming every sub-command (DCP.md §11.1). */
const DCP_USAGE = `sessionctx dcp <${DCP_COMMAND_HINT}> [args…] --session <id> [--root DIR] [--json]`;

/** The CLI's form of a failure: a `DCP_COMMAND_USAGE` failure becomes a usage error naming the sub-commands. */
function cliError(error: unknown): unknown {
  return error instanceof DcpCommandError && error.code === 'DCP_COMMAND_USAGE'
    ? new UsageError(`${error.message} (usage: ${DCP_USAGE})`)
    : error;
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
  const result = await withEngine(context, async (engine) => {
    const store = engine.store;
    if (store === undefined) throw new TypeError('sessionctx dcp needs a session root');
    const sessionId = (await resolveSessionId(engine, typedSessionId, context.signal)) ?? asSessionId(typedSessionId);
    try {
      // Full-log folds of a long log (`/dcp stats`) run on the engine's pool, whose threads start only if one is needed.
      return await runStoredDcpCommand({
        store,
        sessionId,
        command,
        dcpConfig: context.resolved.config.dcp,
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
  /** The stored session: an id or an unambiguous prefix. */
  readonly session: string;
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
      'sessionctx dcp stats --session session-9d029d81',
      'sessionctx dcp show b1 --raw --session session-9d029d81',
      'sessionctx dcp manual on --session session-9d029d81',
    ],
  },
  options: [
    { flags: '--session <id>', description: 'the stored session', required: true },
    { flags: '--raw', description: "show: print the block's stored text as is" },
    { flags: '--into-context', description: "decompress: put the expansion into the session's context" },
  ],
  run(context, { args: [subcommand, args], options }) {
    // Arguments that are no command are refused before the root is opened.
    return runOnStoredSession(context, options.session, parseTyped(subcommand, args, options));
  },
};

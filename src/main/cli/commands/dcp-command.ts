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
import { checkStoredDcpArgs, runStoredDcpCommand } from '../../dcp/stored-session.js';
import { UsageError } from '../usage-error.js';
import type { CommandContext } from '../command-context.js';
import { stderrLogger } from '../stderr-logger.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withEngine } from '../open-engine.js';
import { resolveSessionId } from '../session-id-prefix.js';

/** Options of the `dcp` command (its `dcp` configuration namespace comes from the resolved configuration). */
export interface DcpCommandOptions {
  /** The stored session: an id or an unambiguous prefix. */
  readonly sessionId: string;
  /** The subcommand and its arguments, as typed after `dcp`. */
  readonly args: readonly string[];
}

/** The command line shape of `sessionctx dcp`, naming every sub-command (DCP.md §11.1). */
const DCP_USAGE = `sessionctx dcp <${DCP_COMMAND_HINT}> [args…] --session <id> [--root DIR] [--json]`;

/** The CLI's form of a failure: a `DCP_COMMAND_USAGE` failure becomes a usage error naming the sub-commands. */
function cliError(error: unknown): unknown {
  return error instanceof DcpCommandError && error.code === 'DCP_COMMAND_USAGE' ? new UsageError(`${error.message} (usage: ${DCP_USAGE})`) : error;
}

/**
 * Prints the command's result text and the notices of its control turn, or with `json`
 * `{sessionId, command, kind, text, notices, appendedEvents}`.
 *
 * @throws UsageError `CLI_USAGE` when the arguments are no `/dcp` command (the message names the sub-commands).
 * @throws DcpCommandError `DCP_BLOCK_NOT_FOUND` or `DCP_COMMAND_REFUSED` when the command fails.
 */
export async function runDcpCommand(context: CommandContext, options: DcpCommandOptions): Promise<void> {
  const { io } = context;
  const args = options.args.join(' ');
  // Arguments that are no command are refused before the root is opened.
  try {
    checkStoredDcpArgs(args);
  } catch (error) {
    throw cliError(error);
  }
  const result = await withEngine(context, async (engine) => {
    const store = engine.store;
    if (store === undefined) throw new TypeError('sessionctx dcp needs a session root');
    const sessionId = (await resolveSessionId(engine, options.sessionId, context.signal)) ?? asSessionId(options.sessionId);
    try {
      // Full-log folds of a long log (`/dcp stats`) run on the engine's pool, whose threads start only if one is needed.
      return await runStoredDcpCommand({
        store, sessionId, args, dcpConfig: context.resolved.config.dcp, fullLogTasks: { runner: engine.runner }, logger: stderrLogger(io),
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

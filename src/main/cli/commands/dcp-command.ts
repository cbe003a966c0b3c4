/**
 * `sessionctx dcp <subcommand> [args…] --session <id>`: runs one `/dcp` command (DCP.md §11) on a stored session
 * and appends what it wrote to the stored log; reads (stats, context, show, manual status) append nothing.
 */
import { asSessionId } from '../../../protocol/events.js';
import { runStoredDcpCommand } from '../../dcp/stored-session.js';
import { WorkerPool } from '../../pool/worker-pool.js';
import type { CliIo } from '../cli-io.js';
import { stderrLogger } from '../stderr-logger.js';
import { writeJson, writeLines } from '../cli-io.js';
import { openCorpus } from '../open-corpus.js';

/** Options of the `dcp` command. */
export interface DcpCommandOptions {
  readonly root: string;
  readonly json: boolean;
  readonly sessionId: string;
  /** The subcommand and its arguments, as typed after `dcp`. */
  readonly args: readonly string[];
  /** The resolved `dcp` configuration namespace. */
  readonly dcpConfig: Readonly<Record<string, unknown>>;
  /** Worker threads for full-log folds (`/dcp stats` on a long log); started only if one is needed. */
  readonly poolSize: number;
}

/**
 * Prints the command's result text, or with `json` `{sessionId, command, kind, text, appendedEvents}`. An
 * `error` result is printed like a success (it is the command's answer, not a failure of the CLI).
 */
export async function runDcpCommand(io: CliIo, options: DcpCommandOptions): Promise<void> {
  const { store } = await openCorpus(options.root, io.env);
  // The pool starts its threads lazily: a short log never starts one.
  const pool = new WorkerPool({ size: options.poolSize });
  let result;
  try {
    result = await runStoredDcpCommand({
      store, sessionId: asSessionId(options.sessionId), args: options.args.join(' '), dcpConfig: options.dcpConfig, fullLogTasks: { runner: pool }, logger: stderrLogger(io),
    });
  } finally {
    await pool.close();
  }
  if (options.json) {
    writeJson(io, result);
    return;
  }
  writeLines(io, [result.text, ...(result.appendedEvents > 0 ? [`(${result.appendedEvents} events appended to session ${result.sessionId})`] : [])]);
}

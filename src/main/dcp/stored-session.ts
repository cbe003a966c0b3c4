/**
 * One `/dcp` command run against a stored session (the `sessionctx dcp` CLI): the session is loaded from the
 * store as a seed (HOST.md §2.1), DCP is mounted on a host agent whose model has no replies, the command runs,
 * control turns run to idle (they make no model calls, DCP.md §11.5), and only what the command wrote is appended
 * to the stored log as one durable batch.
 */
import type { DcpCommand } from '../../protocol/dcp/command-parser.js';
import { parseDcpCommand } from '../../protocol/dcp/command-parser.js';
import type { SessionId } from '../../protocol/events.js';
import { Agent } from '../host/agent.js';
import type { CommandDefinition } from '../host/command-runtime.js';
import { createPluginContext, silentLogger } from '../host/plugin-context.js';
import type { PluginContext, PluginLogger } from '../host/plugin-context.js';
import { ScriptedModel } from '../host/scripted-model.js';
import { Session } from '../host/session.js';
import type { JsonlSessionStore } from '../store/jsonl-store.js';
import { resolveDcpConfig } from '../../protocol/dcp/config.js';
import { DcpConfigError } from '../../protocol/dcp/config-error.js';
import { dcpPlugin } from './dcp-plugin.js';
import type { FullLogTasksOptions } from './ledger-service.js';

/** Shown after `/dcp compress`: the CLI runs no model, so the trigger does not reach a model turn here. */
export const STORED_COMPRESS_NOTE =
  'note: sessionctx runs no model, so no compression turn ran here; the trigger is logged by the model turn that acts on it (run /dcp compress in the host for that turn)';

/** What one stored-session command did. */
export interface StoredDcpCommandResult {
  readonly sessionId: string;
  /** The command line as run, e.g. `/dcp show b1`. */
  readonly command: string;
  readonly kind: 'success' | 'error';
  readonly text: string;
  /** Events appended to the stored log (crash closers of a resumed log included). */
  readonly appendedEvents: number;
}

/** Options of {@link runStoredDcpCommand}. */
export interface StoredDcpCommandOptions {
  readonly store: JsonlSessionStore;
  readonly sessionId: SessionId;
  /** The `/dcp` arguments, e.g. `show b1`. */
  readonly args: string;
  /** The `dcp` configuration namespace (DCP.md §16). */
  readonly dcpConfig: Readonly<Record<string, unknown>>;
  /** Where large full-log folds run (`/dcp stats` on a long log, DCP.md §19 D6); the calling thread otherwise. */
  readonly fullLogTasks?: FullLogTasksOptions;
  /** Where the DCP plugin logs (configuration warnings, a degraded stats fold). Default: dropped. */
  readonly logger?: PluginLogger;
}

/**
 * Whether a command changes the session's state: a manual switch (replayed from its `command/run`/`command/done`
 * pair, §11.4), a sweep, an expansion or a recompression (control turns), a compress request. Everything else
 * only reads, and a read appends nothing to the stored log.
 */
function isMutating(command: DcpCommand): boolean {
  switch (command.kind) {
    case 'manual-set':
    case 'compress':
    case 'sweep':
    case 'recompress':
      return true;
    case 'decompress':
      return command.intoContext;
    case 'help':
    case 'context':
    case 'stats':
    case 'manual-status':
    case 'manual-usage':
    case 'show':
    case 'usage-error':
    case 'unknown-subcommand':
      return false;
    default: {
      const unreachable: never = command;
      throw new TypeError(`unexpected /dcp command ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * A plugin context whose `/dcp` commands keep a compress trigger to themselves: a queued trigger would start a
 * model turn, and this host has no model. Controls (sweep, expand, recompress) are queued as usual.
 */
function holdingTriggers(context: PluginContext, command: DcpCommand): PluginContext {
  if (command.kind !== 'compress') return context;
  return {
    ...context,
    registerCommand: (definition: CommandDefinition) => context.registerCommand({
      ...definition,
      handler: (commandContext, args) => definition.handler({ ...commandContext, followup: () => undefined }, args),
    }),
  };
}

/**
 * Runs `/dcp <args>` on the stored session `sessionId` and appends what it wrote (nothing for a read).
 *
 * @throws DcpConfigError `DCP_CONFIG_INVALID` when `dcpConfig` is invalid or disables DCP.
 */
export async function runStoredDcpCommand(options: StoredDcpCommandOptions): Promise<StoredDcpCommandResult> {
  const { store, sessionId } = options;
  const args = options.args.trim();
  const line = args === '' ? '/dcp' : `/dcp ${args}`;
  const parsed = parseDcpCommand(args);
  // A configuration that keeps DCP unmounted fails the command (a typed error, exit 1 in the CLI) before any read.
  if (!resolveDcpConfig(options.dcpConfig).config.enabled) {
    throw new DcpConfigError('enabled', 'is false: DCP is disabled, so there is no /dcp command to run');
  }
  const inspection = await store.inspectArtifact(sessionId);
  const storedCount = inspection.decoded.events.length;
  const seedLength = inspection.events.length;
  const session = Session.create(sessionId, { header: inspection.meta, seed: [...inspection.events] });
  const agent = new Agent({ session, model: new ScriptedModel({ script: [] }) });
  const plugin = dcpPlugin(options.fullLogTasks === undefined ? {} : { fullLogTasks: options.fullLogTasks });
  plugin.apply(holdingTriggers(createPluginContext(agent, { config: { dcp: options.dcpConfig }, logger: options.logger ?? silentLogger }), parsed));
  if (plugin.runtime === undefined) {
    await agent.dispose();
    // Unreachable: the configuration was resolved and found enabled above, so the plugin mounted.
    throw new TypeError('the DCP plugin did not mount over a valid, enabled configuration');
  }
  const result = await agent.runCommand(line);
  await agent.runUntilIdle();
  await agent.dispose();
  const text = parsed.kind === 'compress' && result.kind === 'success' ? `${result.text}\n${STORED_COMPRESS_NOTE}` : result.text;
  if (result.kind === 'error' || !isMutating(parsed)) return { sessionId, command: line, kind: result.kind, text, appendedEvents: 0 };
  // Resuming a log makes its crash closers (and a torn tail's recovery) durable first (SESSION-LOG.md §9.12);
  // then the seed's `session/end-seed` and the command's events follow, so stored seqs stay contiguous.
  const repaired = storedCount === seedLength && inspection.decoded.tornTail === undefined ? 0 : await store.repair(sessionId);
  const added = session.events.slice(seedLength);
  await store.append(inspection.meta, added);
  return { sessionId, command: line, kind: result.kind, text, appendedEvents: repaired + added.length };
}

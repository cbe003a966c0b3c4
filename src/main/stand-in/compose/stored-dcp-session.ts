/**
 * One `/dcp` command run against a stored session (the `sessionctx dcp` CLI): the session is loaded from the
 * store as a seed (HOST.md §2.1), DCP is mounted on a host agent whose model has no replies, the command runs,
 * control turns run to idle (they make no model calls, DCP.md §11.5), and only what the command wrote is appended
 * to the stored log as one durable batch. A command that fails — not a command, a block the session does not have,
 * a refusal, a control turn that could not run — throws a {@link DcpCommandError} and appends nothing.
 */
import type { DcpCommand } from '../../../protocol/dcp/command-parser.js';
import { parseDcpCommand } from '../../../protocol/dcp/command-parser.js';
import type { SessionId } from '../../../protocol/events.js';
import { Agent } from '../host/agent.js';
import type { CommandDefinition, PluginContext, PluginLogger } from '../../host-api/host-api.js';
import { silentLogger } from '../../host-kit/silent-logger.js';
import { createPluginContext } from '../host/plugin-context.js';
import { ScriptedModel } from '../host/scripted-model.js';
import { Session } from '../host/session.js';
import type { JsonlSessionStore } from '../../engine/store/jsonl-store.js';
import type { SessionWriter } from '../../engine/store/session-writer.js';
import type { ResolvedDcpConfig } from '../../../protocol/dcp/config.js';
import { DcpConfigError } from '../../../protocol/dcp/config-error.js';
import { blockDoesNotExistText, COMPRESSION_DISABLED_TEXT, manualUsageText } from '../../../protocol/dcp/command-texts.js';
import { DCP_COMMAND_NAME } from '../../../protocol/dcp/constants.js';
import { historyReduction } from '../../../protocol/dcp/ledger.js';
import { DEFAULT_DOMAIN_SCOPE, formatStatsOutput } from '../../../protocol/dcp/stats-block.js';
import type { DomainStatsInput, SessionStatsInput } from '../../../protocol/dcp/stats-block.js';
import { normalizeCommandArgs } from '../../../protocol/dcp/manual-replay.js';
import { assertNever } from '../../../protocol/assert-never.js';
import { DcpCommandError } from '../../engine/dcp/dcp-command-error.js';
import { dcpStatsFigures } from '../../engine/dcp/dcp-commands.js';
import type { DcpStatsFigures } from '../../engine/dcp/dcp-commands.js';
import { dcpPlugin } from '../../engine/dcp/dcp-plugin.js';
import type { DcpPlugin } from '../../engine/dcp/dcp-plugin.js';
import type { FullLogTasksOptions } from '../../engine/dcp/ledger-service.js';
import { recordedContextWindows } from '../../engine/dcp/recorded-context-windows.js';

/**
 * Why `/dcp compress` cannot run on a stored session: it asks the model for a compression turn, and no model runs
 * here, so the command would log a request nothing acts on.
 */
export const STORED_COMPRESS_REFUSAL =
  'sessionctx runs no model, so /dcp compress cannot run on a stored session: nothing would compress; run it in the host that runs the session';

/** The `/dcp stats` figures as a stored-session run returns them: what the text shows, as numbers. */
export interface StoredDcpStats {
  /** The session block (§15.2), with its signed `historyReduction` (negative: overhead). */
  readonly session: SessionStatsInput & { readonly historyReduction: number };
  /** The persistent domain block (§15.3); a current domain names its scope. */
  readonly domain: DomainStatsInput;
}

/** What one stored-session command did (a failed command throws instead). */
export interface StoredDcpCommandResult {
  readonly sessionId: string;
  /** The command line as run, e.g. `/dcp show b1`. */
  readonly command: string;
  /** Always `success`: the host's `{kind, text}` result (DCP.md §11.1) of a command that did not fail. */
  readonly kind: 'success';
  readonly text: string;
  /**
   * What the command's control turn reported when it ran (§11.6 rule 6), e.g.
   * `DCP sweep: pruned 1 duplicate output(s) and 0 errored unit(s), ~40 tokens.`; empty for commands without one.
   */
  readonly notices: readonly string[];
  /** Events appended to the stored log (crash closers of a resumed log included). */
  readonly appendedEvents: number;
  /** `/dcp stats` only: the figures its text was rendered from. */
  readonly stats?: StoredDcpStats;
}

/** Options of {@link runStoredDcpCommand}. */
export interface StoredDcpCommandOptions {
  readonly store: JsonlSessionStore;
  readonly sessionId: SessionId;
  /** The command, parsed once by {@link parseStoredDcpCommand}. */
  readonly command: StoredDcpCommandLine;
  /** The `dcp` configuration namespace (DCP.md §16), resolved once with the rest of the configuration. */
  readonly dcp: ResolvedDcpConfig;
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
    default:
      return assertNever(command, 'unexpected /dcp command');
  }
}

/**
 * A plugin context whose `/dcp stats` keeps the figures its text is rendered from: the command's handler is the
 * plugin's own for every other line, and for stats renders the text from {@link dcpStatsFigures} as the plugin does,
 * handing the figures to `keep`.
 */
function keepingStats(context: PluginContext, plugin: DcpPlugin, keep: (figures: DcpStatsFigures) => void): PluginContext {
  return {
    ...context,
    registerCommand: (definition: CommandDefinition) =>
      context.registerCommand(
        definition.name !== DCP_COMMAND_NAME
          ? definition
          : {
              ...definition,
              handler: async (commandContext, args) => {
                const runtime = plugin.runtime;
                if (runtime === undefined) return definition.handler(commandContext, args);
                const figures = await dcpStatsFigures(runtime.sessionContext(commandContext.session));
                keep(figures);
                return { kind: 'success', text: formatStatsOutput(figures.session, figures.domain) };
              },
            },
      ),
  };
}

/** The figures as the result carries them: the derived reduction added, a current domain's scope named. */
function storedStats(figures: DcpStatsFigures): StoredDcpStats {
  const { domain } = figures;
  return {
    session: { ...figures.session, historyReduction: historyReduction(figures.session.ledger) },
    domain: domain.status === 'current' ? { ...domain, scope: domain.scope ?? DEFAULT_DOMAIN_SCOPE } : domain,
  };
}

/** A `/dcp` command parsed once: the line the host runs and logs, and what it parses to. */
export interface StoredDcpCommandLine {
  /** `/dcp <args>`, e.g. `/dcp show b1 --raw`. */
  readonly line: string;
  readonly command: DcpCommand;
}

/**
 * Parses `args` (what follows `/dcp`) once, refusing what cannot be a runnable `/dcp` command whatever the session
 * holds (an unknown sub-command, a bad or missing block ref, an unknown flag), so a caller can refuse it before
 * opening anything. `manual <other>` is refused by {@link runStoredDcpCommand} once the session's manual state is known.
 *
 * @param args - the sub-command and its arguments, e.g. `show b1 --raw`.
 * @returns the line and its parse, for {@link runStoredDcpCommand}.
 * @throws DcpCommandError `DCP_COMMAND_USAGE` with the command's usage text (DCP.md §11.2).
 */
export function parseStoredDcpCommand(args: string): StoredDcpCommandLine {
  const trimmed = args.trim();
  const line = trimmed === '' ? '/dcp' : `/dcp ${trimmed}`;
  const command = parseDcpCommand(trimmed);
  if (command.kind === 'usage-error' || command.kind === 'unknown-subcommand') {
    throw new DcpCommandError('DCP_COMMAND_USAGE', line, command.text);
  }
  return { line, command };
}

/** The block a command reads or changes, when it names one. */
function namedBlock(command: DcpCommand): string | undefined {
  return command.kind === 'show' || command.kind === 'decompress' || command.kind === 'recompress' ? command.blockRef : undefined;
}

/**
 * Runs a parsed `/dcp` command on the stored session `sessionId` and appends what it wrote (nothing for a read). The
 * session's context window is the one its log records (`request/context`, see {@link recordedContextWindows}).
 *
 * @throws DcpConfigError `DCP_CONFIG_INVALID` when the resolved configuration disables DCP.
 * @throws DcpCommandError `DCP_COMMAND_USAGE` for `manual <other>`;
 * `DCP_BLOCK_NOT_FOUND` when `show`, `decompress` or `recompress` names a block the session does not have;
 * `DCP_COMMAND_REFUSED` when the command's result is an error or its control turn could not run. Nothing is
 * appended in either case.
 * @throws SessionLogError `SESSION_STORE_LOCKED` when another writer holds the session (a state-changing command
 * only; reads never lock), `SESSION_STORE_CONFLICT` when the log changed under the command despite the lock.
 */
export async function runStoredDcpCommand(options: StoredDcpCommandOptions): Promise<StoredDcpCommandResult> {
  const { store, sessionId } = options;
  const { line, command: parsed } = options.command;
  // Resolved once, with the rest of the configuration; the plugin mounts over it. A configuration that keeps DCP
  // unmounted fails the command (a typed error, exit 1 in the CLI) before any read.
  const { dcp } = options;
  if (!dcp.config.enabled) {
    throw new DcpConfigError('enabled', 'is false: DCP is disabled, so there is no /dcp command to run');
  }
  // A command that cannot act here fails before anything is read or written.
  if (parsed.kind === 'compress') {
    throw new DcpCommandError(
      'DCP_COMMAND_REFUSED',
      line,
      dcp.config.compress.enabled ? STORED_COMPRESS_REFUSAL : COMPRESSION_DISABLED_TEXT,
    );
  }
  // A state-changing command holds the session's writer lock from before its read to after its append
  // (SESSION-LOG.md §9.16 rule 4): a second writer fails with SESSION_STORE_LOCKED before anything is written.
  const writer = isMutating(parsed) ? await store.acquireWriter(sessionId) : undefined;
  try {
    return await runLoaded(options, dcp, line, parsed, writer);
  } finally {
    await writer?.release();
  }
}

/** {@link runStoredDcpCommand} once the command is known and, for a state-changing one, its writer held. */
async function runLoaded(
  options: StoredDcpCommandOptions,
  dcp: ResolvedDcpConfig,
  line: string,
  parsed: DcpCommand,
  writer: SessionWriter | undefined,
): Promise<StoredDcpCommandResult> {
  const { store, sessionId } = options;
  const inspection = await store.inspectArtifact(sessionId);
  const storedCount = inspection.decoded.events.length;
  const seedLength = inspection.events.length;
  const session = Session.create(sessionId, {
    header: inspection.meta,
    seed: [...inspection.events],
    contextWindowOf: recordedContextWindows(inspection.events),
  });
  const agent = new Agent({ session, model: new ScriptedModel({ script: [] }) });
  const notifications: Array<{ readonly text: string; readonly level: string }> = [];
  agent.on('command/notify', (notification) => {
    notifications.push({ text: notification.text, level: notification.level });
  });
  const plugin = dcpPlugin({ config: dcp, ...(options.fullLogTasks === undefined ? {} : { fullLogTasks: options.fullLogTasks }) });
  let figures: DcpStatsFigures | undefined;
  const context = createPluginContext(agent, { config: { dcp: dcp.config }, logger: options.logger ?? silentLogger });
  plugin.apply(
    parsed.kind === 'stats'
      ? keepingStats(context, plugin, (kept) => {
          figures = kept;
        })
      : context,
  );
  if (plugin.runtime === undefined) {
    await agent.dispose();
    // Unreachable: the configuration was resolved and found enabled above, so the plugin mounted.
    throw new TypeError('the DCP plugin did not mount over a valid, enabled configuration');
  }
  const index = plugin.runtime.indexFor(session);
  // In a host these are answers shown to a person (§11.2: the unknown-block text is even a success); run on a
  // stored session they are failures, decided before the command runs so nothing of it is logged.
  const blockRef = namedBlock(parsed);
  const refusal =
    blockRef !== undefined && index.block(blockRef) === undefined
      ? new DcpCommandError('DCP_BLOCK_NOT_FOUND', line, blockDoesNotExistText(blockRef))
      : // A bare `manual` asks for the state (its usage line carries it, as dsh-dcp answers it): a success here too.
        parsed.kind === 'manual-usage' && normalizeCommandArgs(line.slice('/dcp'.length)) !== 'manual'
        ? new DcpCommandError('DCP_COMMAND_USAGE', line, manualUsageText(index.manualOn))
        : undefined;
  if (refusal !== undefined) {
    await agent.dispose();
    throw refusal;
  }
  const result = await agent.runCommand(line);
  await agent.runUntilIdle();
  await agent.dispose();
  if (result.kind === 'error') throw new DcpCommandError('DCP_COMMAND_REFUSED', line, result.text);
  // A control that could not do what was scheduled notifies at `warn` (dcp-pre-step.ts): the command failed.
  const failed = notifications.filter((notification) => notification.level !== 'info');
  if (failed.length > 0) throw new DcpCommandError('DCP_COMMAND_REFUSED', line, failed.map((notification) => notification.text).join('\n'));
  const notices = notifications.map((notification) => notification.text);
  const { text } = result;
  if (writer === undefined)
    return {
      sessionId,
      command: line,
      kind: 'success',
      text,
      notices,
      appendedEvents: 0,
      ...(figures === undefined ? {} : { stats: storedStats(figures) }),
    };
  // Resuming a log makes its crash closers (and a torn tail's recovery) durable first (SESSION-LOG.md §9.12);
  // then the seed's `session/end-seed` and the command's events follow, so stored seqs stay contiguous.
  const repaired = storedCount === seedLength && inspection.decoded.tornTail === undefined ? 0 : await writer.repair();
  const added = session.events.slice(seedLength);
  await writer.append(added);
  return { sessionId, command: line, kind: 'success', text, notices, appendedEvents: repaired + added.length };
}

/**
 * The `/dcp` and `/dcp-compress` commands (DCP.md §11.1–§11.3). Results are shown to the human only; the host
 * logs `command/run`/`command/done`, and the manual state is replayed from those records (§11.4), so the handler
 * itself writes nothing. `compress` queues the trigger message and `sweep` a control through the runtime's
 * `followup`, which stamps the `commandId`.
 */
import { DCP_COMMAND_DESCRIPTION, DCP_COMMAND_HINT, DCP_COMPRESS_COMMAND_DESCRIPTION } from '../../../protocol/dcp/constants.js';
import type { DcpCommand } from '../../../protocol/dcp/command-parser.js';
import { parseDcpCommand, parseDcpCompressCommand } from '../../../protocol/dcp/command-parser.js';
import {
  blockDoesNotExistText,
  COMPRESS_TRIGGERED_TEXT,
  COMPRESSION_DISABLED_TEXT,
  expansionScheduledText,
  HELP_TEXT,
  manualStatusText,
  manualSwitchedText,
  manualUsageText,
  recompressionScheduledText,
  SWEEP_SCHEDULED_TEXT,
} from '../../../protocol/dcp/command-texts.js';
import { formatContextBlock } from '../../../protocol/dcp/context-block.js';
import type { ControlBody } from '../../../protocol/dcp/control-message.js';
import { controlMessageInput } from '../../../protocol/dcp/control-message.js';
import { renderLeafTranscript } from '../../../protocol/dcp/leaf-transcript.js';
import { formatDecompressShow, formatShowBlock } from '../../../protocol/dcp/show-block.js';
import { formatStatsOutput, invalidationLines } from '../../../protocol/dcp/stats-block.js';
import type { DomainStatsInput, SessionStatsInput } from '../../../protocol/dcp/stats-block.js';
import { triggerMessageInput } from '../../../protocol/dcp/trigger-message.js';
import { createUserMessage } from '../../../protocol/user-message.js';
import type { CommandContext, CommandDefinition, CommandResult } from '../../host-api/host-api.js';
import { checkExpansion, checkpointTextOf, checkRecompression } from './block-expansion.js';
import type { DcpSessionContext } from './dcp-session-context.js';
import type { DcpRuntime } from './dcp-runtime.js';
import { collectLeaves } from './leaf-collector.js';
import { assertNever } from '../../../protocol/assert-never.js';

function success(text: string): CommandResult {
  return { kind: 'success', text };
}

function failure(text: string): CommandResult {
  return { kind: 'error', text };
}

/** The context block (§11.3) from the meter and the index. O(markers + blocks) for the boundary list. */
function contextText({ index, session }: DcpSessionContext): string {
  const measure = session.meter.measure();
  const { surface } = session;
  const activeBlocks = index.blocks().filter((block) => block.membership === 'active' && surface.has(block.seq));
  const activeMarkers = index.markerRecords().filter((marker) => surface.has(marker.seq));
  const boundaries = [
    ...activeMarkers.map((marker) => ({ ref: marker.ref, seq: marker.seq })),
    ...activeBlocks.map((block) => ({ ref: block.ref, seq: block.seq })),
  ]
    .sort((a, b) => surface.positionOf(a.seq) - surface.positionOf(b.seq))
    .map((entry) => entry.ref);
  const open = session.openBrackets()[0];
  return formatContextBlock({
    surfaceTokens: measure.surfaceTokens,
    messageTokens: measure.messageTokens,
    systemTokens: measure.systemTokens,
    toolsTokens: measure.toolsTokens,
    ratio: measure.ratio,
    contextWindow: measure.contextWindow,
    projectedTokens: measure.projectedTokens,
    activeBlocks: activeBlocks.sort((a, b) => surface.positionOf(a.seq) - surface.positionOf(b.seq)).map((block) => block.ref),
    boundaries,
    manualOn: index.manualOn,
    ...(open === undefined ? {} : { busyCompactionId: open.compactionId }),
    unreadable: index.diagnostics().map((diagnostic) => ({ seq: diagnostic.seq, code: diagnostic.code })),
  });
}

/** What `/dcp stats` renders (§15.2, §15.3): the session block's figures and the domain block's state. */
export interface DcpStatsFigures {
  readonly session: SessionStatsInput;
  readonly domain: DomainStatsInput;
}

/**
 * The figures of `/dcp stats`, computed once: the session ledger and counts, then the domain after a §15.3 sync. The
 * sync sees `command/run` but not `command/done` (appended after the handler), so its record lags one event. The
 * stats text is rendered from exactly this value; a caller that wants the numbers (the CLI's `--json`) takes it.
 * @param context - the session's DCP context.
 */
export async function dcpStatsFigures({ runtime, index, session }: DcpSessionContext): Promise<DcpStatsFigures> {
  const all = index.invalidations.list();
  const counts = { dcp: 0, native: 0, mixed: 0 };
  for (const record of all) counts[record.cause] += 1;
  const recent = index.invalidations.recent(runtime.config.stats.invalidationHistory);
  // Every figure and the fold's capture are taken together, before the first await lets a running turn append (the
  // fold captures the log synchronously once its byte log is current); the sync's cursor is the fold's event count.
  const activeBlockCount = index.blocks().filter((block) => block.membership === 'active').length;
  const surfaceTokens = session.meter.measure().surfaceTokens;
  const { ledger, reReadTokens, eventCount } = await runtime.ledgers.fold(session, recent);
  const sessionStats: SessionStatsInput = {
    ledger,
    activeBlockCount,
    invalidationCounts: counts,
    recentInvalidations: invalidationLines(recent, reReadTokens),
    surfaceTokens,
  };
  const domain = await runtime.domainStats.sync({ sessionId: session.id, eventCount, ledger: () => ledger });
  return { session: sessionStats, domain };
}

/** The stats output (§11.2): the session block, then the domain block, rendered from {@link dcpStatsFigures}. */
async function statsText(context: DcpSessionContext): Promise<string> {
  const { session, domain } = await dcpStatsFigures(context);
  return formatStatsOutput(session, domain);
}

/** The show block of `blockRef`, raw when asked; the unknown-block text when there is none. */
function showText({ index, session }: DcpSessionContext, blockRef: string, raw: boolean, note: boolean): string {
  const block = index.block(blockRef);
  if (block === undefined) return blockDoesNotExistText(blockRef);
  const input = { meta: block.meta, membership: block.membership, text: checkpointTextOf(session.events, block) };
  if (!raw) return formatShowBlock(input);
  const leaves = collectLeaves(index, session, block.seq);
  const withRaw = { ...input, raw: { leafCount: leaves.length, transcript: renderLeafTranscript(leaves) } };
  return note ? formatDecompressShow(withRaw) : formatShowBlock(withRaw);
}

/** Queues a control (§11.5): remembered as pending first, so the pre-step can recognise it. */
function queueControl(runtime: DcpRuntime, context: CommandContext, body: ControlBody): void {
  runtime.pendingControls.set(context.commandId, {
    body,
    sessionId: context.session.id,
    notify: (text, level) => context.notify(text, level),
  });
  context.followup(createUserMessage(controlMessageInput(body)));
}

/** Runs one parsed command. */
function runParsedDcpCommand(runtime: DcpRuntime, context: CommandContext, command: DcpCommand): CommandResult | Promise<CommandResult> {
  const dcp = runtime.sessionContext(context.session);
  const { index } = dcp;
  switch (command.kind) {
    case 'help':
      return success(HELP_TEXT);
    case 'context':
      return success(contextText(dcp));
    case 'stats':
      return statsText(dcp).then(success);
    case 'manual-set':
      // The success pair in the log is the state (§11.4); the index folds it when `command/done` lands.
      return success(manualSwitchedText(command.on));
    case 'manual-status':
      return success(manualStatusText(index.manualOn));
    case 'manual-usage':
      return success(manualUsageText(index.manualOn));
    case 'compress':
      if (!runtime.config.compress.enabled) return failure(COMPRESSION_DISABLED_TEXT);
      context.followup(createUserMessage(triggerMessageInput(command.focus)));
      return success(COMPRESS_TRIGGERED_TEXT);
    case 'sweep':
      queueControl(runtime, context, { kind: 'sweep' });
      return success(SWEEP_SCHEDULED_TEXT);
    case 'show':
      return success(showText(dcp, command.blockRef, command.raw, false));
    case 'decompress': {
      if (!command.intoContext) return success(showText(dcp, command.blockRef, true, index.block(command.blockRef) !== undefined));
      const checked = checkExpansion(dcp, command.blockRef, 'command');
      if (!checked.ok) return failure(checked.reason);
      queueControl(runtime, context, { kind: 'expand', blockRef: command.blockRef });
      return success(expansionScheduledText(command.blockRef));
    }
    case 'recompress': {
      const checked = checkRecompression(dcp, command.blockRef, 'command');
      if (!checked.ok) return failure(checked.reason);
      queueControl(runtime, context, { kind: 'recompress', blockRef: command.blockRef });
      return success(recompressionScheduledText(command.blockRef));
    }
    case 'usage-error':
    case 'unknown-subcommand':
      return failure(command.text);
    default:
      return assertNever(command, 'unexpected /dcp command');
  }
}

/** The two command definitions (§11.1): `dcp` and `dcp-compress`. */
export function createDcpCommands(runtime: DcpRuntime): CommandDefinition[] {
  return [
    {
      name: 'dcp',
      hint: DCP_COMMAND_HINT,
      description: DCP_COMMAND_DESCRIPTION,
      handler: (context, args) => runParsedDcpCommand(runtime, context, parseDcpCommand(args ?? '')),
    },
    {
      name: 'dcp-compress',
      hint: '[focus]',
      description: DCP_COMPRESS_COMMAND_DESCRIPTION,
      handler: (context, args) => runParsedDcpCommand(runtime, context, parseDcpCompressCommand(args ?? '')),
    },
  ];
}

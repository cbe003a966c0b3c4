/**
 * The `compress` tool (DCP.md §7): registration and the execution pipeline. The whole `execute` body is
 * synchronous — no `await` from entry to result — so validation and every append of a range run in one call stack
 * (§1 rule 6). Each range is its own transaction: validated against the current surface and committed on its own,
 * with a status line per range; a call that commits nothing is an error result.
 */
import type { Message } from '../../../protocol/events.js';
import {
  MANUAL_GATE_ERROR,
  manualGateOpen,
  NO_AGENT_SESSION_ERROR,
  RUN_CODE_SUB_CALL_ERROR,
  validateCompressArguments,
} from '../../../protocol/dcp/compress-call-errors.js';
import { compressToolParameters, COMPRESS_TOOL_DESCRIPTION } from '../../../protocol/dcp/compress-schema.js';
import { BATCH_STOPPED_REASON, BUSY_TEXT, COMPRESS_TOOL_NAME, UNKNOWN_AUTHOR_MESSAGE_ID } from '../../../protocol/dcp/constants.js';
import type { CompressEntryFields } from '../../../protocol/dcp/entry-fields.js';
import { entryLabel, validateEntryFields } from '../../../protocol/dcp/entry-fields.js';
import { commitError } from '../../../protocol/dcp/range-errors.js';
import type { ResolvedEntryRange } from '../../../protocol/dcp/range-order.js';
import { surfaceOrderError } from '../../../protocol/dcp/range-order.js';
import { formatBlockRef } from '../../../protocol/dcp/refs.js';
import type { CleanupOutcome, RangeStatus } from '../../../protocol/dcp/result-text.js';
import { buildCompressResultText } from '../../../protocol/dcp/result-text.js';
import type { ToolDefinition, ToolExecutionContext } from '../../host-api/host-api.js';
import type { DcpSessionContext } from './dcp-session-context.js';
import type { DcpRuntime } from './dcp-runtime.js';
import { findAuthorNode, runInlineCleanup } from './inline-cleanup-commit.js';
import { commitRangeBracket, compactionIdFor } from './range-commit.js';
import type { RangeEntry, RangePlanContext } from './range-plan.js';
import { planRange } from './range-plan.js';
import { resolveRange } from './ref-resolver.js';
import { runStrategyBatch, strategiesFor } from './strategy-batch.js';
import { assertNever } from '../../../protocol/assert-never.js';

/** A whole-call failure: the host logs its message as an error tool result. */
function callError(message: string): Error {
  return new Error(message);
}

/** The call-level context of the range plans. */
function planContext({ runtime, index, session }: DcpSessionContext, exec: ToolExecutionContext, topic: string): RangePlanContext {
  const { compress, references } = runtime.config;
  const authorSeq = findAuthorNode(index, session, exec.callId);
  const authorMessage = authorSeq === undefined ? undefined : session.deriveEventMessage(session.events[authorSeq]!);
  return {
    index,
    session,
    hintCount: references.hintCount,
    events: session.events,
    estimateOf: (seq) => session.meter.estimateOf(seq),
    currentTurn: exec.turn,
    retainRecentTurns: compress.retainRecentTurns,
    minNetSavingsTokens: compress.minNetSavingsTokens,
    appendix: {
      protectUserMessages: compress.protectUserMessages,
      protectTags: compress.protectTags,
      protectedSources: compress.protectedSources,
      protectedTools: compress.protectedTools,
      matchesProtectedFile: runtime.matchesProtectedFile,
    },
    authorSeq,
    topic,
    authorMessageId: (authorMessage as Message | undefined)?.id ?? UNKNOWN_AUTHOR_MESSAGE_ID,
    callId: exec.callId,
  };
}

/** The entry as the plan needs it: refs trimmed for resolution, as given for the texts. */
function rangeEntryOf(raw: unknown, fields: CompressEntryFields): RangeEntry {
  // `fields` passed validateEntryFields, so the raw entry's refs are strings; only their trimming differs.
  const given = raw as Pick<CompressEntryFields, 'startRef' | 'endRef'>;
  return {
    startRef: fields.startRef,
    endRef: fields.endRef,
    givenStartRef: given.startRef,
    givenEndRef: given.endRef,
    label: entryLabel(raw),
    summary: fields.summary,
  };
}

/** §7.3 step 7: the entries that resolve on the surface as it is at entry, for rule E8. */
function resolveAtEntry(context: RangePlanContext, content: readonly unknown[]): Array<ResolvedEntryRange | undefined> {
  return content.map((raw, index) => {
    const fields = validateEntryFields(raw, index);
    if (!fields.ok) return undefined;
    const range = resolveRange(context, fields.fields.startRef, fields.fields.endRef);
    return range.ok ? { label: entryLabel(raw), startPos: range.startPos, endPos: range.endPos } : undefined;
  });
}

/**
 * Runs one compress call (§7.3) and returns its result text; throws the whole-call errors of §7.4 and, when no
 * range committed, the `No range was compressed.` text. Synchronous.
 */
export function executeCompress(runtime: DcpRuntime, args: unknown, exec: ToolExecutionContext): string {
  if (exec.parent !== undefined) throw callError(RUN_CODE_SUB_CALL_ERROR);
  const session = exec.session;
  if (exec.agent === undefined || session === undefined) throw callError(NO_AGENT_SESSION_ERROR);
  const dcp = runtime.sessionContext(session);
  const { index } = dcp;
  if (!manualGateOpen(index.manualOn, index.lastTriggerTurn, exec.turn)) throw callError(MANUAL_GATE_ERROR);
  const parsed = validateCompressArguments(args, runtime.config.compress.maxRangesPerCall);
  if (!parsed.ok) throw callError(parsed.message);
  const { content, topic } = parsed.args;
  if (session.openBrackets().length > 0) {
    const busy = content.map((raw): RangeStatus => ({ kind: 'failed', label: entryLabel(raw), error: BUSY_TEXT }));
    throw callError(buildCompressResultText(busy, { ok: true }).text);
  }
  const context = planContext(dcp, exec, topic);
  const atEntry = resolveAtEntry(context, content);
  const statuses: RangeStatus[] = [];
  const committed = new Map<number, string>();
  let stopped = false;
  content.forEach((raw, inputIndex) => {
    const label = entryLabel(raw);
    if (stopped) {
      statuses.push({ kind: 'skipped', label, reason: BATCH_STOPPED_REASON });
      return;
    }
    const fields = validateEntryFields(raw, inputIndex);
    if (!fields.ok) {
      statuses.push({ kind: 'failed', label, error: fields.message });
      return;
    }
    const current = atEntry[inputIndex];
    const earlier = atEntry.slice(0, inputIndex).filter((range): range is ResolvedEntryRange => range !== undefined);
    const orderError = current === undefined ? undefined : surfaceOrderError(current, earlier);
    if (orderError !== undefined) {
      statuses.push({ kind: 'failed', label, error: orderError });
      return;
    }
    const blockRef = formatBlockRef(index.maxBlockNumber + 1);
    const planned = planRange(context, rangeEntryOf(raw, fields.fields), blockRef);
    if (!planned.ok) {
      statuses.push({ kind: 'failed', label, error: planned.error });
      return;
    }
    const plan = planned.plan;
    const outcome = commitRangeBracket(session, plan, compactionIdFor(index, exec.callId, inputIndex, blockRef), exec.turn);
    switch (outcome.kind) {
      case 'committed':
        committed.set(inputIndex, blockRef);
        statuses.push({ kind: 'committed', label, blockRef, messageCount: plan.shadowed.length, savedTokens: plan.saved });
        return;
      case 'committed-open':
        committed.set(inputIndex, blockRef);
        statuses.push({
          kind: 'committed',
          label,
          blockRef,
          messageCount: plan.shadowed.length,
          savedTokens: plan.saved,
          bracketLeftOpen: outcome.hostMessage,
        });
        stopped = true;
        return;
      case 'failed':
        statuses.push({ kind: 'failed', label, error: commitError(label, outcome.hostMessage) });
        return;
      case 'failed-open':
        statuses.push({ kind: 'failed', label, error: commitError(label, outcome.hostMessage) });
        stopped = true;
        return;
      default:
        assertNever(outcome, 'unexpected commit outcome');
    }
  });
  const cleanup: CleanupOutcome = committed.size > 0 ? runInlineCleanup(index, session, exec.callId, committed) : { ok: true };
  // §7.3 step 9: with `runAt: 'with-compress'` the strategies run right after a commit, in the same call stack.
  const selection = committed.size > 0 ? strategiesFor(runtime, index.manualOn, { kind: 'after-compress' }) : undefined;
  if (selection !== undefined) runStrategyBatch(dcp, exec.turn, selection);
  const result = buildCompressResultText(statuses, cleanup);
  if (result.isError) throw callError(result.text);
  return result.text;
}

/** The tool definition (§7.1, §7.2). It does not declare `concurrencySafe`, so the host runs it exclusive. */
export function createCompressTool(runtime: DcpRuntime): ToolDefinition {
  return {
    name: COMPRESS_TOOL_NAME,
    description: COMPRESS_TOOL_DESCRIPTION,
    parameters: compressToolParameters(runtime.config.compress.maxRangesPerCall),
    execute: (args, exec) => executeCompress(runtime, args, exec),
  };
}

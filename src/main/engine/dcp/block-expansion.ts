/**
 * Semantic expansion and recompression (DCP.md §12.2, §12.3): the pre-checks, shared by the command handler and
 * the control turn, and the commits, each a §6.1 bracket over one node written synchronously.
 */
import type { Message, SessionEvent } from '../../../protocol/events.js';
import { eventMessage } from '../../../protocol/event-message.js';
import { extractCheckpointBody, buildExpansionText, buildRecompressionText } from '../../../protocol/dcp/checkpoint-text.js';
import { DCP_MESSAGE_SOURCE, expandCompactionId, recompressCompactionId } from '../../../protocol/dcp/constants.js';
import { expansionMeta, recompressMeta } from '../../../protocol/dcp/dcp-meta.js';
import {
  EXPANSION_BUSY_REASON,
  expansionCapTokens,
  expansionTooLargeReason,
  noActiveExpansionReason,
  notActiveSummaryReason,
  OPEN_TURN_REQUIRED_REASON,
} from '../../../protocol/dcp/expansion-rules.js';
import { renderLeafTranscript } from '../../../protocol/dcp/leaf-transcript.js';
import { formatBlockRef } from '../../../protocol/dcp/refs.js';
import type { HostSession } from '../../host-api/host-api.js';
import { estimateMessage } from '../../../protocol/token-estimator.js';
import type { BlockRecord, DcpIndex } from './dcp-index.js';
import type { DcpSessionContext } from './dcp-session-context.js';
import { collectLeaves } from './leaf-collector.js';
import { commitRangeBracket } from './range-commit.js';
import { assertNever } from '../../../protocol/assert-never.js';

/** A pre-check or commit outcome: the new block, or the reason. */
export type ExpansionOutcome = { readonly ok: true; readonly newRef: string } | { readonly ok: false; readonly reason: string };

/** When the pre-checks run: at command time the open-turn rule does not apply (§12.2 rule 3). */
export type CheckTime = 'command' | 'control';

/**
 * The text of a block's checkpoint message: its text blocks joined by `\n`, other blocks as empty lines.
 * @param events - the log holding the checkpoint
 * @param block - a block of that log's index
 */
export function checkpointTextOf(events: readonly SessionEvent[], block: BlockRecord): string {
  const checkpoint = events[block.seq];
  const content = checkpoint === undefined ? [] : (eventMessage(checkpoint)?.content ?? []);
  return content.map((part): unknown => (part.type === 'text' ? part.text : '')).join('\n');
}

/** §12.2 rules 2–3 (busy, open turn), shared by both operations. */
function lockCheck(session: HostSession, time: CheckTime): string | undefined {
  if (session.openBrackets().length > 0) return EXPANSION_BUSY_REASON;
  if (time === 'control' && session.openTurn() === null) return OPEN_TURN_REQUIRED_REASON;
  return undefined;
}

/** The planned expansion of `oldRef`, or the first failing pre-check's reason. */
function planExpansion(
  { runtime, index, session }: DcpSessionContext,
  oldRef: string,
  time: CheckTime,
): { ok: true; block: BlockRecord; newRef: string; text: string } | { ok: false; reason: string } {
  const block = index.block(oldRef);
  if (block === undefined || block.membership !== 'active' || block.meta.kind !== 'summary')
    return { ok: false, reason: notActiveSummaryReason(oldRef) };
  const locked = lockCheck(session, time);
  if (locked !== undefined) return { ok: false, reason: locked };
  const newRef = formatBlockRef(index.maxBlockNumber + 1);
  const text = buildExpansionText(oldRef, renderLeafTranscript(collectLeaves(index, session, block.seq)), newRef);
  const needed = estimateMessage({ content: [{ type: 'text', text }] } as unknown as Message);
  const { maxWindowRatio, maxTokens } = runtime.config.expansion;
  const cap = expansionCapTokens(session.meter.measure().contextWindow, maxWindowRatio, maxTokens);
  if (needed > cap) return { ok: false, reason: expansionTooLargeReason(oldRef, needed, cap) };
  return { ok: true, block, newRef, text };
}

/** The active expansion that consumed `oldRef`, if any. O(blocks). */
function activeExpansionOf(index: DcpIndex, oldRef: string): BlockRecord | undefined {
  return index
    .blocks()
    .find((block) => block.membership === 'active' && block.meta.kind === 'expansion' && block.meta.consumedBlockRefs.includes(oldRef));
}

/** §12.2 pre-checks at `time`; on success `newRef` is the ref the expansion would get now. */
export function checkExpansion(context: DcpSessionContext, oldRef: string, time: CheckTime): ExpansionOutcome {
  const planned = planExpansion(context, oldRef, time);
  return planned.ok ? { ok: true, newRef: planned.newRef } : planned;
}

/** §12.3 rule 1 pre-checks at `time`. */
export function checkRecompression({ index, session }: DcpSessionContext, oldRef: string, time: CheckTime): ExpansionOutcome {
  const old = index.block(oldRef);
  const expansion = old === undefined ? undefined : activeExpansionOf(index, oldRef);
  if (expansion === undefined) return { ok: false, reason: noActiveExpansionReason(oldRef) };
  const locked = lockCheck(session, time);
  return locked === undefined ? { ok: true, newRef: formatBlockRef(index.maxBlockNumber + 1) } : { ok: false, reason: locked };
}

/** Writes the bracket of one node and reports the outcome as a reason on failure. */
function commitOneNode(
  session: HostSession,
  seq: number,
  blockRef: string,
  text: string,
  meta: ReturnType<typeof expansionMeta>,
  compactionId: string,
  turn: number,
): ExpansionOutcome {
  const tokensIn = session.meter.estimateOf(seq) ?? 0;
  const saved = tokensIn - estimateMessage({ source: DCP_MESSAGE_SOURCE, content: [{ type: 'text', text }] } as unknown as Message);
  const outcome = commitRangeBracket(
    session,
    { blockRef, shadowed: [seq], tokensIn, saved, checkpointText: text, meta },
    compactionId,
    turn,
  );
  switch (outcome.kind) {
    case 'committed':
    case 'committed-open':
      return { ok: true, newRef: blockRef };
    case 'failed':
    case 'failed-open':
      return { ok: false, reason: outcome.hostMessage };
    default:
      return assertNever(outcome, 'unexpected commit outcome');
  }
}

/** Expands `oldRef` in the control turn `turn` (§12.2). Synchronous. */
export function expandBlock(context: DcpSessionContext, oldRef: string, turn: number): ExpansionOutcome {
  const planned = planExpansion(context, oldRef, 'control');
  if (!planned.ok) return planned;
  return commitOneNode(
    context.session,
    planned.block.seq,
    planned.newRef,
    planned.text,
    expansionMeta(oldRef, planned.newRef),
    expandCompactionId(oldRef, planned.newRef),
    turn,
  );
}

/** Re-compresses `oldRef` in the control turn `turn` (§12.3). Synchronous; no savings check. */
export function recompressBlock(context: DcpSessionContext, oldRef: string, turn: number): ExpansionOutcome {
  const { index, session } = context;
  const checked = checkRecompression(context, oldRef, 'control');
  if (!checked.ok) return checked;
  const old = index.block(oldRef) as BlockRecord;
  const expansion = activeExpansionOf(index, oldRef) as BlockRecord;
  const newRef = checked.newRef;
  const text = buildRecompressionText(extractCheckpointBody(checkpointTextOf(session.events, old), oldRef), newRef);
  const meta = recompressMeta(oldRef, expansion.ref, newRef, old.meta.protectedKinds);
  return commitOneNode(session, expansion.seq, newRef, text, meta, recompressCompactionId(oldRef, newRef), turn);
}

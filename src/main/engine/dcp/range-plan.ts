/**
 * Per-range validation of `compress` against the current surface (DCP.md §7.5 E9–E14) and the planned block it
 * would commit: resolution with hints, tool pairing, retention, the current call, hard protection, the protection
 * appendix, nesting and net savings. Pure reads; the work is proportional to the range (§19 D3), apart from
 * failure hints.
 */
import type { Message, SessionEvent } from '../../../protocol/events.js';
import { isEventOf } from '../../../protocol/event-map.js';
import { buildCheckpointText } from '../../../protocol/dcp/checkpoint-text.js';
import type { DcpMetaV1 } from '../../../protocol/dcp/dcp-meta.js';
import { compressMeta } from '../../../protocol/dcp/dcp-meta.js';
import {
  CURRENT_CALL_ERROR,
  hardProtectedError,
  netSavingsError,
  pairingEndError,
  pairingStartError,
  retentionError,
  unreadableMetadataError,
} from '../../../protocol/dcp/range-errors.js';
import { estimateMessage } from '../../../protocol/token-estimator.js';
import { toolPairingBalancedBefore } from '../../host-api/tool-pairing.js';
import type { AppendixSettings } from './range-appendix.js';
import { buildRangeAppendix } from './range-appendix.js';
import type { ResolverContext } from './ref-resolver.js';
import { latestAllowedEndRefHint, nearestCutsHint, resolveRange } from './ref-resolver.js';

/** One entry to validate: trimmed refs (resolved), the refs as given (texts), and its summary. */
export interface RangeEntry {
  readonly startRef: string;
  readonly endRef: string;
  readonly givenStartRef: string;
  readonly givenEndRef: string;
  /** `<a>..<b>`, the refs as given. */
  readonly label: string;
  readonly summary: string;
}

/** The call-level facts every entry is checked against. */
export interface RangePlanContext extends ResolverContext {
  readonly events: readonly SessionEvent[];
  readonly estimateOf: (seq: number) => number | undefined;
  /** The open turn of the call. */
  readonly currentTurn: number;
  /** `compress.retainRecentTurns`. */
  readonly retainRecentTurns: number;
  /** `compress.minNetSavingsTokens`. */
  readonly minNetSavingsTokens: number;
  readonly appendix: AppendixSettings;
  /** The current surface node of the assistant message holding the call, if found. */
  readonly authorSeq: number | undefined;
  readonly topic: string;
  readonly authorMessageId: string;
  readonly callId: string;
}

/** A block ready to commit. */
export interface RangePlan {
  readonly blockRef: string;
  /** Shadowed nodes in surface order. */
  readonly shadowed: readonly number[];
  /** `Σ estimateEvent(shadowed)`. */
  readonly tokensIn: number;
  /** `tokensIn − estimateMessage(checkpoint)`. */
  readonly saved: number;
  readonly checkpointText: string;
  readonly meta: DcpMetaV1;
}

/** The plan, or the entry's failure text. */
export type RangePlanResult = { readonly ok: true; readonly plan: RangePlan } | { readonly ok: false; readonly error: string };

/** E13 for one node (§7.7), or `undefined`. */
function hardProtectionError(context: RangePlanContext, seq: number, label: string): string | undefined {
  const event = context.events[seq] as SessionEvent;
  if (!isEventOf(event, 'user/message')) return undefined;
  const diagnostic = context.index.diagnostic(seq);
  if (diagnostic !== undefined) return unreadableMetadataError(label, diagnostic.code);
  if (event.data.source.form === 'instructions') return hardProtectedError(label);
  if (seq === context.index.latestSnapshot) return hardProtectedError(label);
  return undefined;
}

/** Validates `entry` (E9–E14) as block `blockRef` and returns the plan or the first failure. */
export function planRange(context: RangePlanContext, entry: RangeEntry, blockRef: string): RangePlanResult {
  const { index } = context;
  const range = resolveRange(context, entry.startRef, entry.endRef, entry.givenStartRef, entry.givenEndRef);
  if (!range.ok) return { ok: false, error: range.error };
  if (!toolPairingBalancedBefore(context.session, range.startSeq)) {
    return { ok: false, error: pairingStartError(entry.givenStartRef) + nearestCutsHint(context, range.startPos) };
  }
  if (!toolPairingBalancedBefore(context.session, range.endSeq)) {
    return { ok: false, error: pairingEndError(entry.givenEndRef) + nearestCutsHint(context, range.endPos) };
  }
  const limit = context.currentTurn - context.retainRecentTurns;
  for (const seq of range.shadowed) {
    index.counters.nodesVisited += 1;
    if (index.turnOf(seq) > limit) {
      return { ok: false, error: retentionError(entry.label, context.retainRecentTurns) + latestAllowedEndRefHint(context, limit) };
    }
  }
  if (context.authorSeq !== undefined && range.shadowed.includes(context.authorSeq)) return { ok: false, error: CURRENT_CALL_ERROR };
  let tokensIn = 0;
  for (const seq of range.shadowed) {
    const error = hardProtectionError(context, seq, entry.label);
    if (error !== undefined) return { ok: false, error };
    tokensIn += context.estimateOf(seq) ?? 0;
  }
  const { appendix, consumedBlockRefs } = buildRangeAppendix(index, context.events, range.shadowed, context.appendix);
  const checkpointText = buildCheckpointText(blockRef, entry.summary, appendix.text);
  const tokensOut = estimateMessage({ content: [{ type: 'text', text: checkpointText }] } as unknown as Message);
  const saved = tokensIn - tokensOut;
  if (saved < context.minNetSavingsTokens) return { ok: false, error: netSavingsError(entry.label, saved, context.minNetSavingsTokens) };
  const meta = compressMeta({
    blockRef,
    topic: context.topic,
    startRef: entry.startRef,
    endRef: entry.endRef,
    authorMessageId: context.authorMessageId,
    compressCallId: context.callId,
    consumedBlockRefs,
    protectedKinds: appendix.protectedKinds,
  });
  return { ok: true, plan: { blockRef, shadowed: range.shadowed, tokensIn, saved, checkpointText, meta } };
}

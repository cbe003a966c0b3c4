/**
 * The synchronous bracket commit of one planned range (DCP.md §6.1, §7.11): `compaction/start`, the priced
 * `compaction/summary`, the checkpoint replace and `compaction/end`, appended in one call stack with nothing in
 * between. A host failure after the start closes the bracket at once as a failed attempt.
 */
import { errorMessage } from '../../../protocol/errors.js';
import type { MessageSource, SessionEvent } from '../../../protocol/events.js';
import { dcpCheckpointSource } from '../../../protocol/dcp/checkpoint-source.js';
import { compressCompactionId, disambiguatedCompressCompactionId } from '../../../protocol/dcp/constants.js';
import { createUserMessage } from '../../../protocol/user-message.js';
import type { AppendOptions, HostEventType, HostSession } from '../../host-api/host-api.js';
import type { SessionEventMap } from '../../../protocol/event-map.js';
import type { DcpIndex } from './dcp-index.js';
import type { RangePlan } from './range-plan.js';

/** The appends a commit needs; a `Session` satisfies it. */
export interface CommitTarget {
  readonly append: HostSession['append'];
  requestContext(): { readonly provider: string; readonly model: string } | undefined;
}

/** How a commit ended. */
export type CommitOutcome =
  /** The whole bracket is in the log. */
  | { readonly kind: 'committed'; readonly checkpointSeq: number }
  /** The checkpoint is on the surface but the closing end failed: the session is busy now (§7.11 rule 3). */
  | { readonly kind: 'committed-open'; readonly checkpointSeq: number; readonly hostMessage: string }
  /** Nothing committed; the bracket, if opened, was closed with an error. */
  | { readonly kind: 'failed'; readonly hostMessage: string }
  /** Nothing committed and the failed bracket could not be closed: stop the batch. */
  | { readonly kind: 'failed-open'; readonly hostMessage: string };

/** The compactionId of entry `inputIndex` (§7.11 rule 4): `dcp-<callId>-<i>`, or `-<bK>` appended when used before. */
export function compactionIdFor(index: DcpIndex, callId: string, inputIndex: number, blockRef: string): string {
  const id = compressCompactionId(callId, inputIndex);
  return index.brackets.hasCompactionId(id) ? disambiguatedCompressCompactionId(callId, inputIndex, blockRef) : id;
}

/** The stored event, or the host's refusal message. */
type Attempt = { readonly ok: true; readonly event: SessionEvent } | { readonly ok: false; readonly message: string };

/** One append whose refusal is a value, not a throw. */
function attempt<K extends HostEventType>(target: CommitTarget, type: K, data: SessionEventMap[K], options?: AppendOptions): Attempt {
  try {
    return { ok: true, event: target.append(type, data, options) };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
}

/**
 * Appends the §6.1 bracket for `plan` in turn `turn`. Never throws for a host refusal; the outcome says what is in
 * the log. Synchronous: no other writer can interleave (HOST.md §3.7).
 */
export function commitRangeBracket(target: CommitTarget, plan: RangePlan, compactionId: string, turn: number): CommitOutcome {
  const shadowed = plan.shadowed;
  const first = shadowed[0] as number;
  const last = shadowed[shadowed.length - 1] as number;
  const context = target.requestContext();
  const start = attempt(target, 'compaction/start', { compactionId, turn });
  if (!start.ok) return { kind: 'failed', hostMessage: start.message };
  const summary = attempt(target, 'compaction/summary', {
    compactionId,
    summary: [{ type: 'text', text: plan.checkpointText }],
    shadowedRange: { start: first, end: last },
    shadowedSeqs: [...shadowed],
    shadowedTokenCount: plan.tokensIn,
    provider: context?.provider ?? 'unknown',
    model: context?.model ?? 'unknown',
  });
  const checkpoint = summary.ok
    ? attempt(
        target,
        'user/message',
        createUserMessage({
          content: [{ type: 'text', text: plan.checkpointText }],
          source: dcpCheckpointSource(compactionId, plan.meta) as unknown as MessageSource,
        }),
        {
          surfaceOp: { op: 'replace', start: first, end: last },
          sourceEventSeqs: [first, summary.event.seq, ...shadowed.slice(1)],
        },
      )
    : summary;
  if (!checkpoint.ok) {
    // §7.11 rule 3: close the failed attempt at once so that the lock is released.
    const closed = attempt(target, 'compaction/end', { compactionId, turn, error: checkpoint.message });
    return closed.ok ? { kind: 'failed', hostMessage: checkpoint.message } : { kind: 'failed-open', hostMessage: checkpoint.message };
  }
  const end = attempt(target, 'compaction/end', { compactionId, turn });
  if (!end.ok) return { kind: 'committed-open', checkpointSeq: checkpoint.event.seq, hostMessage: end.message };
  return { kind: 'committed', checkpointSeq: checkpoint.event.seq };
}

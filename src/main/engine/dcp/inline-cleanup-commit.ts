/**
 * The author lookup of a compress call (DCP.md §7.3 step 6) and the inline cleanup unit (§7.12): once blocks are
 * committed, the author's compress arguments get `[stored in bK]` for every committed entry, written as a
 * `compaction/prune` directly followed by the priced assistant replace, inside the author's own open step.
 */
import { errorMessage } from '../../../protocol/errors.js';
import type { AssistantMessageData, Message, SessionEvent, ToolCallBlock } from '../../../protocol/events.js';
import { isEventOf } from '../../../protocol/event-map.js';
import type { CleanupOutcome } from '../../../protocol/dcp/result-text.js';
import { AUTHOR_NOT_FOUND_WARNING, cleanCompressArguments, cleanedAuthorMessage } from '../../../protocol/dcp/inline-cleanup.js';
import type { HostSession } from '../../host-api/host-api.js';
import type { SurfaceReader } from '../../../protocol/surface-view.js';
import type { DcpIndex } from './dcp-index.js';

/** What the cleanup reads and writes; a `Session` satisfies it. */
export interface CleanupTarget {
  readonly surface: SurfaceReader;
  readonly events: readonly SessionEvent[];
  readonly meter: { estimateOf(seq: number): number | undefined };
  readonly append: HostSession['append'];
}

/** The warning of a cleanup unit the host refused (a host choice: §7.12 names no text for it). */
export function cleanupRefusedWarning(hostMessage: string): string {
  return `inline cleanup could not be committed: ${hostMessage}`;
}

/**
 * The current surface node of the assistant message holding tool call `callId`: the call's appended assistant
 * message, followed along `shadowedBy` (an earlier cleanup copy replaced it). `undefined` when that chain does not
 * end in an assistant message on the surface. O(chain length).
 */
export function findAuthorNode(index: DcpIndex, target: Pick<CleanupTarget, 'surface' | 'events'>, callId: string): number | undefined {
  const start = index.call(callId)?.assistantSeq;
  if (start === undefined) return undefined;
  let current = start;
  while (!target.surface.has(current)) {
    index.counters.nodesVisited += 1;
    const next = target.surface.shadowedBy(current);
    if (next === undefined) return undefined;
    current = next;
  }
  return target.events[current]?.type === 'assistant/message' ? current : undefined;
}

/** The tool-call block `callId` of a message, or `undefined`. */
function callBlock(message: Message, callId: string): ToolCallBlock | undefined {
  const block = message.content.find((candidate) => candidate.type === 'tool-call' && (candidate as { id?: unknown }).id === callId);
  return block as ToolCallBlock | undefined;
}

/** Runs the cleanup for `callId` with `committed` (input index → block ref). Synchronous; never throws for the host. */
export function runInlineCleanup(
  index: DcpIndex,
  target: CleanupTarget,
  callId: string,
  committed: ReadonlyMap<number, string>,
): CleanupOutcome {
  const authorSeq = findAuthorNode(index, target, callId);
  if (authorSeq === undefined) return { ok: false, warning: AUTHOR_NOT_FOUND_WARNING };
  const event = target.events[authorSeq];
  // findAuthorNode ends only on an assistant message.
  if (event === undefined || !isEventOf(event, 'assistant/message')) return { ok: false, warning: AUTHOR_NOT_FOUND_WARNING };
  const { usage: _usage, ...kept } = event.data;
  const message = event.data.message;
  const block = callBlock(message, callId);
  if (block === undefined) return { ok: false, warning: AUTHOR_NOT_FOUND_WARNING };
  const rawArguments = typeof block.arguments === 'string' ? block.arguments : JSON.stringify(block.arguments);
  const cleaned = cleanCompressArguments(rawArguments, committed);
  if (!cleaned.ok) return cleaned;
  const cleanedMessage = cleanedAuthorMessage(message, callId, cleaned.arguments) as Message;
  const tokens = target.meter.estimateOf(authorSeq) ?? 0;
  try {
    target.append('compaction/prune', {
      shadowedRange: { start: authorSeq, end: authorSeq },
      shadowedSeqs: [authorSeq],
      shadowedTokenCount: tokens,
    });
  } catch (error) {
    return { ok: false, warning: cleanupRefusedWarning(errorMessage(error)) };
  }
  // Every data field of the author (turn, step, …) is copied, only `message` changes, in its own key slot — except
  // `usage` (DCP.md §7.12 rule 5): it belongs to the one model call the original records, so a copy would count that
  // call twice for anyone summing usage over the log; the meter estimates from content and never reads it. dsh-dcp
  // writes the same `{turn, step, message}`.
  const replacement = { ...kept, message: cleanedMessage } satisfies Omit<AssistantMessageData, 'usage'>;
  try {
    target.append('assistant/message', replacement, {
      surfaceOp: { op: 'replace', start: authorSeq, end: authorSeq },
      sourceEventSeqs: [authorSeq],
    });
  } catch (error) {
    return { ok: false, warning: cleanupRefusedWarning(errorMessage(error)) };
  }
  return { ok: true };
}

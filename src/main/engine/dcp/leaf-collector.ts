/**
 * `collectLeaves` (DCP.md §12.1): the original leaf nodes under a block's checkpoint, depth first in recorded
 * surface order. DCP checkpoints and DCP prunes are opened (a pruned result shows its original output); anything
 * else is a leaf: DCP boundary markers (listed as dsh-dcp lists them, so the transcript shows where each ref stood),
 * native and foreign checkpoints included.
 */
import type { ContentBlock, SessionEvent } from '../../../protocol/events.js';
import { eventMessage } from '../../../protocol/event-message.js';
import type { TranscriptLeaf } from '../../../protocol/dcp/leaf-transcript.js';
import type { SurfaceReader } from '../../../protocol/surface-view.js';
import type { DcpIndex } from './dcp-index.js';

/** What the collector reads; a `Session` satisfies it. */
export interface LeafSource {
  readonly surface: SurfaceReader;
  readonly events: readonly SessionEvent[];
}

/** The role of a leaf event, or `undefined` for a non-message event. */
function roleOf(type: string): TranscriptLeaf['role'] | undefined {
  if (type === 'user/message') return 'user';
  if (type === 'assistant/message') return 'assistant';
  if (type === 'tool/result') return 'tool';
  return undefined;
}

/** The message content of a surface event (`data` for user messages, `data.message` otherwise). */
function contentOf(event: SessionEvent): readonly ContentBlock[] {
  return eventMessage(event)?.content ?? [];
}

/** The leaves under `seq`, in order. Iterative, so a deeply nested block cannot overflow the stack. O(leaves + opened nodes). */
export function collectLeaves(index: DcpIndex, source: LeafSource, seq: number): TranscriptLeaf[] {
  const leaves: TranscriptLeaf[] = [];
  const stack = [seq];
  while (stack.length > 0) {
    const current = stack.pop() as number;
    const kind = index.replaceClass(current);
    if (kind === 'dcp-summary' || kind === 'dcp-expansion' || kind === 'dcp-dedup' || kind === 'dcp-cleanup' || kind === 'dcp-purge') {
      const shadowed = source.surface.shadowedOf(current);
      for (let i = shadowed.length - 1; i >= 0; i -= 1) stack.push(shadowed[i] as number);
      continue;
    }
    const event = source.events[current];
    const role = event === undefined ? undefined : roleOf(event.type);
    if (event === undefined || role === undefined) continue;
    const callId = index.result(current)?.callId;
    const toolName = callId === undefined ? undefined : index.call(callId)?.name;
    leaves.push(
      toolName === undefined
        ? { seq: current, role, content: contentOf(event) }
        : { seq: current, role, content: contentOf(event), toolName },
    );
  }
  return leaves;
}

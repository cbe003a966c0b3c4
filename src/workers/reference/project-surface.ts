/**
 * Projection of a source's current surface into the text items a reference snapshot may carry
 * (SESSION-REFERENCE.md §9). Only the human conversation and compaction checkpoints survive: tool
 * output, reasoning, plugin and runtime context (including earlier reference snapshots) are left
 * out so that nothing injected into the source propagates into the target.
 */
import { isCompactionCheckpoint } from '../../protocol/checkpoint.js';
import type { SurfaceEvent } from '../../protocol/events.js';
import { isRecord } from '../../protocol/record-guard.js';
import { assertNever } from '../../protocol/assert-never.js';

/** One projected message: who said it, its text (text blocks joined by LF), and whether it is a checkpoint. */
export interface ProjectedItem {
  readonly role: 'user' | 'assistant';
  readonly originalText: string;
  /** True only for a compaction checkpoint (always a user message); retention never drops these. */
  readonly checkpoint: boolean;
}

/**
 * The `text` of every content block with `type: 'text'` and a string `text`, joined with LF.
 * A non-array `content` yields `''`; the events were validated upstream, so this only keeps a
 * malformed hand-built event from throwing here.
 */
function joinedText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as readonly unknown[]) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n');
}

/** The projected item of one `user/message`, or undefined when §9 rule 1 skips it. */
function projectUserMessage(message: unknown): ProjectedItem | undefined {
  if (!isRecord(message)) return undefined;
  const checkpoint = isCompactionCheckpoint(message);
  const source = message.source;
  if (!checkpoint && !(isRecord(source) && source.kind === 'user')) return undefined;
  const text = joinedText(message.content);
  return text === '' ? undefined : { role: 'user', originalText: text, checkpoint };
}

/** The projected item of one `assistant/message` (interrupted prefixes included), or undefined when empty. */
function projectAssistantMessage(data: unknown): ProjectedItem | undefined {
  if (!isRecord(data) || !isRecord(data.message)) return undefined;
  const text = joinedText(data.message.content);
  return text === '' ? undefined : { role: 'assistant', originalText: text, checkpoint: false };
}

/**
 * The projected item of one surface event, or undefined when §9 leaves it out (tool results, empty
 * messages, non-user sources). The source cache projects events one at a time as it folds them.
 */
export function projectSurfaceEvent(event: SurfaceEvent): ProjectedItem | undefined {
  switch (event.type) {
    case 'user/message':
      return projectUserMessage(event.data);
    case 'assistant/message':
      return projectAssistantMessage(event.data);
    case 'tool/result':
      return undefined;
    default:
      assertNever(event.type, 'unexpected surface event type');
  }
}

/**
 * Projects the current surface events (surface order) to text items, in the same order (§9).
 * Pure and linear in the size of the events' text.
 */
export function projectSurface(events: readonly SurfaceEvent[]): ProjectedItem[] {
  const items: ProjectedItem[] = [];
  for (const event of events) {
    const item = projectSurfaceEvent(event);
    if (item !== undefined) items.push(item);
  }
  return items;
}

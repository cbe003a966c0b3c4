/**
 * What the search index holds of one adopted event (issue 17 item 2): the model-visible conversation of the
 * surface — user and steering text, assistant text and compaction checkpoints exactly as the reference projection
 * (SESSION-REFERENCE.md §9) sees them — and, only when asked, the text of tool calls and tool results. Reasoning
 * blocks are never read. The surface position of every step comes from the projection fold's own step
 * (`projectionStep`), so a compaction's replace range is the one the seed's projection applies.
 */
import type { SessionEvent, SurfaceEvent } from '../../protocol/events.js';
import { isRecord } from '../../protocol/record-guard.js';
import type { SearchRole } from '../../protocol/search-types.js';
import { projectSurfaceEvent } from '../reference/project-surface.js';
import { projectionStep } from '../reference/projection-fold.js';

/** One indexed text of an event. */
export interface SearchDocument {
  readonly role: SearchRole;
  readonly text: string;
}

/** One surface-eligible event's effect on the index: where it sits on the surface and what it shows. */
export interface SearchStep {
  readonly seq: number;
  readonly time: number;
  /** `null`: appended; otherwise the seq range of current nodes it replaces (a compaction). */
  readonly replace: { readonly start: number; readonly end: number } | null;
  /** Its documents (none for an event projection leaves out and no tool text of it is indexed). */
  readonly documents: readonly SearchDocument[];
}

/** The `text` of every text block of `content`, joined with LF (what a tool result shows the model). */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as readonly unknown[]) {
    if (isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string') parts.push(block['text']);
  }
  return parts.join('\n');
}

/** The tool text of an event: each tool call's name and JSON arguments, or a tool result's text blocks. */
function toolText(event: SurfaceEvent): string {
  const data = event.data as unknown;
  if (!isRecord(data) || !isRecord(data['message'])) return '';
  const content = data['message']['content'];
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as readonly unknown[]) {
    if (!isRecord(block)) continue;
    if (event.type === 'assistant/message' && block['type'] === 'tool-call' && typeof block['name'] === 'string') {
      parts.push(`${block['name']} ${JSON.stringify(block['arguments'] ?? null) ?? ''}`);
    } else if (event.type === 'tool/result' && block['type'] === 'tool-result') {
      const text = textOf(block['content']);
      if (text !== '') parts.push(text);
    }
  }
  return parts.join('\n');
}

/**
 * The search step of one adopted stored event, or `undefined` for a log-only event.
 * @param event - an event the resumable validator adopted.
 * @param includeTools - whether tool calls and results are indexed (config `search.includeTools`).
 */
export function searchStep(event: SessionEvent, includeTools: boolean): SearchStep | undefined {
  const step = projectionStep(event);
  if (step === undefined) return undefined;
  const documents: SearchDocument[] = [];
  const item = projectSurfaceEvent(event as SurfaceEvent);
  if (item !== undefined) documents.push({ role: item.checkpoint ? 'checkpoint' : item.role, text: item.originalText });
  if (includeTools) {
    const text = toolText(event as SurfaceEvent);
    if (text !== '') documents.push({ role: 'tool', text });
  }
  return { seq: step.seq, time: event.time, replace: step.replace, documents };
}

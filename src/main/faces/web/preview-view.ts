/**
 * What the Preview shows for a message (issue 18): exactly what `prepare()` returned — the rewritten message and the
 * context message — with, per source, what was kept and omitted (the context's `source.references`) and the bytes of
 * its rendered data object against the per-source budget (SESSION-REFERENCE.md §10, §11). Pure.
 */
import type { ContentBlock } from '../../../protocol/events.js';
import { utf8ByteLength } from '../../../protocol/tag-safe-json.js';
import type { WebPreview, WebPreviewSource } from '../../../protocol/web/web-api.js';
import { REFERENCE_PROMPT_PREFIX, REFERENCE_PROMPT_SUFFIX } from '../../../workers/reference/reference-prompt.js';
import type { SizedPreparation } from '../../engine/reference/reference-types.js';
import { sourceSummaries } from './surface-view.js';

/** The byte limits a preview is measured against (the reference configuration, SESSION-REFERENCE.md §3). */
export interface PreviewBudget {
  /** `maxReferenceBytes`: the budget of one source's data object. */
  readonly maxReferenceBytes: number;
  /** `maxReferences`: how many sources one message may cite. */
  readonly maxReferences: number;
}

/** The text of a message's content: text blocks as they are, other blocks named. */
function contentText(content: readonly ContentBlock[]): string {
  return content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : `(${block.type} block)`))
    .join('\n');
}

/**
 * The largest prompt one message's context can be (§11.1): every allowed source at its full budget, the framing,
 * the brackets and the commas (196,922 bytes with the defaults).
 * @param budget - the reference limits.
 */
export function totalBudgetBytes(budget: PreviewBudget): number {
  return (
    budget.maxReferences * budget.maxReferenceBytes +
    utf8ByteLength(REFERENCE_PROMPT_PREFIX) +
    utf8ByteLength(REFERENCE_PROMPT_SUFFIX) +
    budget.maxReferences +
    1
  );
}

/**
 * The preview of one prepared message.
 * @param sized - what `prepareSized()` returned: the preparation and each source's rendered size (never re-parsed
 *   from the prompt).
 * @param budget - the limits it was prepared under.
 */
export function previewView(sized: SizedPreparation, budget: PreviewBudget): WebPreview {
  const { prepared, renderedBytes: sizes } = sized;
  const content = contentText(prepared.content);
  const context = prepared.additionalContext;
  const total = totalBudgetBytes(budget);
  if (context === undefined) return { content, sources: [], totalBudgetBytes: total };
  const text = contentText(context.content);
  const sources: WebPreviewSource[] = sourceSummaries(context.source).map((summary, index) => ({
    ...summary,
    renderedBytes: sizes[index] ?? 0,
    budgetBytes: budget.maxReferenceBytes,
  }));
  return { content, context: text, sources, totalBudgetBytes: total };
}

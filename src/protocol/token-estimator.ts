/**
 * The host's heuristic token estimator (HOST.md §4.1), exact to the table so that every writer that prices a
 * replace (DCP, native compaction) and every reader of the meter agree on the same numbers. These are
 * heuristic estimates, not provider token counts, and every figure shown to a human says so: the label lives
 * here, in one place.
 */
import type { Message, SessionEvent } from './events.js';
import { isRecord } from './record-guard.js';
import { eventMessage } from './event-message.js';

/**
 * The one label that marks token figures as heuristic estimates wherever a human sees them (HOST.md §4.1),
 * for example `DCP context (heuristic token estimates):`.
 */
export const HEURISTIC_ESTIMATE_LABEL = 'heuristic token estimates';

/** A heading that labels the figures below it, e.g. `estimateHeading('DCP context')` → `DCP context (heuristic token estimates):`. */
export function estimateHeading(title: string): string {
  return `${title} (${HEURISTIC_ESTIMATE_LABEL}):`;
}

/** One estimated figure as shown under an {@link estimateHeading}: `~<tokens>`. */
export function approximateTokens(tokens: number): string {
  return `~${tokens}`;
}

/** `⌈len(s)/4⌉` with `len` in UTF-16 code units. */
function quarterLength(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The "any other block" row: `⌈len(JSON.stringify(block))/4⌉ + 4`. */
function opaqueBlockTokens(block: unknown): number {
  return quarterLength(JSON.stringify(block) ?? '') + 4;
}

/**
 * The tokens of one content block (HOST.md §4.1). A block whose fields do not have the table's types (a `text`
 * block without a string `text`, a `tool-result` without a `content` array) is priced by the "any other block"
 * row, so that estimating a loaded log never throws.
 */
export function estimateBlock(block: unknown): number {
  if (!isRecord(block)) return opaqueBlockTokens(block);
  switch (block['type']) {
    case 'text':
    case 'reasoning': {
      const text = block['text'];
      return typeof text === 'string' ? quarterLength(text) + 4 : opaqueBlockTokens(block);
    }
    case 'tool-call': {
      const name = block['name'];
      const args = block['arguments'];
      if (typeof name !== 'string') return opaqueBlockTokens(block);
      // `arguments` is the raw JSON text; a parsed value is priced by its serialisation.
      const argsText = typeof args === 'string' ? args : (JSON.stringify(args) ?? '');
      return quarterLength(name) + quarterLength(argsText) + 4;
    }
    case 'tool-result': {
      const content = block['content'];
      return Array.isArray(content) ? sumBlocks(content) + 4 : opaqueBlockTokens(block);
    }
    default:
      return opaqueBlockTokens(block);
  }
}

function sumBlocks(blocks: readonly unknown[]): number {
  let total = 0;
  for (const block of blocks) total += estimateBlock(block);
  return total;
}

/** `4 + Σ blocks`; a message with no blocks (or no content array) costs 4. */
export function estimateMessage(message: Message): number {
  const content: unknown = message.content;
  return 4 + (Array.isArray(content) ? sumBlocks(content) : 0);
}

/**
 * `estimateMessage(deriveEventMessage(event))` for a surface event; 0 for a log-only event, which carries no
 * message. The session caches the value per surface node (`session.meter.estimateOf(seq)`).
 */
export function estimateEvent(event: SessionEvent): number {
  const message = eventMessage(event);
  return message === undefined ? 0 : estimateMessage(message);
}

/** `⌈len(system)/4⌉ + 4` for a system prompt string, else 0 (HOST.md §4.2 `systemTokens`). */
export function estimateSystem(system: unknown): number {
  return typeof system === 'string' ? quarterLength(system) + 4 : 0;
}

/** Σ `⌈len(JSON.stringify(def))/4⌉ + 4` over a header's tool definitions, 0 without a list (`toolsTokens`). */
export function estimateTools(tools: unknown): number {
  if (!Array.isArray(tools)) return 0;
  let total = 0;
  for (const definition of tools) total += quarterLength(JSON.stringify(definition) ?? '') + 4;
  return total;
}

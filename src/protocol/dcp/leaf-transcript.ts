/**
 * Rendering of a leaf transcript (DCP.md §12.1), used by `/dcp show --raw` and semantic expansion. Which nodes are
 * leaves is the index's business (`collectLeaves`); this module renders them, separated by a blank line (as dsh-dcp lays
 * them out).
 */
import { isRecord } from '../events.js';
import type { ContentBlock } from '../events.js';

/** One leaf to render. */
export interface TranscriptLeaf {
  readonly seq: number;
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: readonly ContentBlock[];
  /** For tool results: the tool name from the call (the block itself does not carry it). */
  readonly toolName?: string;
}

/** The name used when a result's call is not known. */
const UNKNOWN_TOOL_NAME = 'unknown';

function blockText(block: unknown): string {
  if (isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string') return block['text'];
  return `[${isRecord(block) ? String(block['type']) : 'unknown'} block]`;
}

/**
 * Renders one leaf: the header `--- leaf <seq> (<role>) ---`; then text blocks and other blocks (`[<type> block]`)
 * joined by `\n`; then one line per tool-call block (`[tool call <name> id=<id>] <raw arguments>`) and per
 * tool-result block (`[tool result <name> id=<callId>] <inner blocks>`, `[tool error …]` when `isError`).
 * Reasoning blocks are left out.
 */
export function renderLeaf(leaf: TranscriptLeaf): string {
  const lines = [`--- leaf ${leaf.seq} (${leaf.role}) ---`];
  const body: string[] = [];
  const calls: string[] = [];
  for (const block of leaf.content) {
    switch (block.type) {
      case 'reasoning':
        break;
      case 'tool-call': {
        const call = block as { name?: unknown; id?: unknown; arguments?: unknown };
        calls.push(`[tool call ${String(call.name)} id=${String(call.id)}] ${String(call.arguments)}`);
        break;
      }
      case 'tool-result': {
        const result = block as { toolCallId?: unknown; isError?: unknown; content?: unknown };
        const inner = Array.isArray(result.content) ? result.content.map(blockText).join('\n') : '';
        const label = result.isError === true ? 'tool error' : 'tool result';
        calls.push(`[${label} ${leaf.toolName ?? UNKNOWN_TOOL_NAME} id=${String(result.toolCallId)}] ${inner}`);
        break;
      }
      default:
        body.push(blockText(block));
    }
  }
  if (body.length > 0) lines.push(body.join('\n'));
  lines.push(...calls);
  return lines.join('\n');
}

/** The separator between two rendered leaves: a blank line, dsh-dcp's layout (DCP.md §12.1). */
export const LEAF_SEPARATOR = '\n\n';

/** Renders leaves in order, separated by {@link LEAF_SEPARATOR}. */
export function renderLeafTranscript(leaves: readonly TranscriptLeaf[]): string {
  return leaves.map(renderLeaf).join(LEAF_SEPARATOR);
}

/**
 * Replacement contents written by the automatic strategies (DCP.md §8.3 rule 6, §8.4 rule 2) and their
 * structural recognition (§3.2 class 5).
 */
import { isRecord } from '../events.js';
import type { ContentBlock, Message, TextBlock } from '../events.js';
import { dedupText, PURGE_HEADER, PURGE_NO_ERROR_TEXT } from './constants.js';

const DEDUP_TEXT_RE = /^\[duplicate .* output removed; a newer identical call supersedes it\]$/s;

/** The inner content of a dedup replacement: one text block with the dedup text. */
export function dedupReplacementContent(toolName: string): TextBlock[] {
  return [{ type: 'text', text: dedupText(toolName) }];
}

/**
 * The dedup replacement of a tool result message: the same message (every key, in order) whose first block has
 * its `content` replaced by {@link dedupReplacementContent}; other blocks and fields are kept as they are.
 * Returns `undefined` when the first block is not an object (not a tool result).
 */
export function dedupReplacementMessage<M extends Message>(original: M, toolName: string): M | undefined {
  const first = original.content[0];
  if (!isRecord(first)) return undefined;
  const replacedFirst = { ...first, content: dedupReplacementContent(toolName) } as ContentBlock;
  return { ...original, content: [replacedFirst, ...original.content.slice(1)] };
}

/** True when a tool result's first block content is exactly one text block with a dedup text (for any tool name). */
export function isDedupReplacementContent(message: unknown): boolean {
  if (!isRecord(message) || !Array.isArray(message['content'])) return false;
  const first: unknown = message['content'][0];
  if (!isRecord(first) || !Array.isArray(first['content']) || first['content'].length !== 1) return false;
  const only: unknown = first['content'][0];
  return isRecord(only) && only['type'] === 'text' && typeof only['text'] === 'string' && DEDUP_TEXT_RE.test(only['text']);
}

/**
 * The purge checkpoint text (§8.4 rule 2): `[errored tool unit removed]\ntool: <name>\nerror: <error text>`,
 * where the error text is the result's inner text blocks joined by `\n`, or `tool failed (no error text)` when
 * that is empty.
 */
export function purgeText(toolName: string, innerTextBlocks: readonly string[]): string {
  const errorText = innerTextBlocks.join('\n');
  return `${PURGE_HEADER}\ntool: ${toolName}\nerror: ${errorText === '' ? PURGE_NO_ERROR_TEXT : errorText}`;
}

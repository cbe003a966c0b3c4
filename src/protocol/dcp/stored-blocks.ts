/**
 * Content blocks as a stored log may hold them. The storage boundary checks a message's shape (its source, that
 * `content` is an array, a tool result's one tool-result block) but not each block inside, so a log from another
 * writer may hold any value there. DCP reads such blocks through these guards, which skip what they do not match.
 */
import type { Message, TextBlock, ToolResultBlock } from '../events.js';
import { isRecord } from '../record-guard.js';

/** A tool-call block with the one field DCP requires; `name` and `arguments` are read as they are. */
export interface StoredToolCallBlock {
  readonly type: 'tool-call';
  readonly id: string;
  readonly name?: unknown;
  readonly arguments?: unknown;
}

/**
 * @param block - a content block, unchecked
 * @returns whether it is a text block with string text
 */
export function isTextBlock(block: unknown): block is TextBlock {
  return isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string';
}

/**
 * @param block - a content block, unchecked
 * @returns whether it is a record of type `tool-call`
 */
export function isToolCallBlock(block: unknown): block is { readonly type: 'tool-call' } {
  return isRecord(block) && block['type'] === 'tool-call';
}

/**
 * @param block - a content block, unchecked
 * @returns whether it is a tool-call block with a string id
 */
export function isIdentifiedToolCall(block: unknown): block is StoredToolCallBlock {
  return isToolCallBlock(block) && typeof (block as { readonly id?: unknown }).id === 'string';
}

/**
 * The tool-call id a validated tool result answers: its tool-result block's `toolCallId`, else `source.callId` (the
 * boundary requires the two to be equal, so either names the call).
 * @param message - the message of a `tool/result` event
 * @returns the id, or `undefined` when neither is a string
 */
export function resultCallId(message: Message): string | undefined {
  const first = message.content[0] as Partial<ToolResultBlock> | undefined;
  if (typeof first?.toolCallId === 'string') return first.toolCallId;
  const callId = message.source['callId'];
  return typeof callId === 'string' ? callId : undefined;
}

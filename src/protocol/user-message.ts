/**
 * Creating and freezing user messages (HOST.md §2.2 rule 4, SESSION-LOG.md §4.1).
 */
import { deepFreeze, freezeClone } from './deep-freeze.js';
import type { ContentBlock, Message, MessageSource } from './events.js';

/** A user-role message: what `createUserMessage` returns. */
export interface UserMessage extends Message {
  readonly role: 'user';
}

/**
 * A new frozen user message with key order `source, content, role, id` and a fresh
 * `crypto.randomUUID()` id. The inputs are cloned, never aliased.
 */
export function createUserMessage(input: { source: MessageSource; content: readonly ContentBlock[] }): UserMessage {
  const message = {
    source: structuredClone(input.source),
    content: structuredClone(input.content) as ContentBlock[],
    role: 'user' as const,
    id: globalThis.crypto.randomUUID(),
  };
  return deepFreeze(message);
}

/** A deep-frozen clone of a message, id and key order kept. */
export function freezeMessage<T extends Message>(message: T): T {
  return freezeClone(message);
}

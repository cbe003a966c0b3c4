/**
 * Creating and freezing model messages (HOST.md §2.2 rule 4, SESSION-LOG.md §4.1).
 */
import { deepFreeze, freezeClone } from './deep-freeze.js';
import type { ContentBlock, Message, MessageSource } from './events.js';

/** A user-role message. */
export interface UserMessage extends Message {
  readonly role: 'user';
}

/** The caller's part of a new user message; extra keys are kept, in order, before `role` and `id`. */
export interface UserMessageInput {
  readonly source: MessageSource;
  readonly content: readonly ContentBlock[];
  readonly [extra: string]: unknown;
}

/**
 * A new deep-frozen user message: a structured clone of `input` (its keys in order, so `source, content` for
 * the usual input) followed by `role: 'user'` and `id = crypto.randomUUID()`. The caller's objects stay mutable
 * and unshared. The id is drawn from the global `crypto`, exactly as dsh's `createMessage` draws it, so a host that
 * seeds `crypto.randomUUID` logs the same ids with either implementation (docs/DSH.md §4).
 */
export function createUserMessage<S extends MessageSource = MessageSource>(
  input: UserMessageInput & { readonly source: S },
): UserMessage & { readonly source: S } {
  const message = { ...structuredClone(input), role: 'user' as const, id: globalThis.crypto.randomUUID() };
  return deepFreeze(message) as UserMessage & { readonly source: S };
}

/**
 * A frozen user message built from one text block and a plugin source, without a clone: for hot paths such as the
 * boundary marker of every model step. Keys in `content, source, role, id` order (dsh-dcp's order for the messages
 * it writes); the id is drawn from the global `crypto`, as {@link createUserMessage} draws it.
 */
export function textUserMessage(text: string, source: { readonly kind: 'plugin'; readonly plugin: string }): UserMessage {
  const content = Object.freeze([Object.freeze({ type: 'text' as const, text })]);
  return Object.freeze({
    content,
    source: Object.freeze({ kind: source.kind, plugin: source.plugin }),
    role: 'user' as const,
    id: globalThis.crypto.randomUUID(),
  }) as unknown as UserMessage;
}

/** A deep-frozen structured clone of `message` (key order and `id` kept). */
export function freezeMessage<M extends Message>(message: M): M {
  return freezeClone(message);
}

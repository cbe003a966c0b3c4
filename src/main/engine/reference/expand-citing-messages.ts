/**
 * The expansion step of the outermost `agent/pre-step` listener (SESSION-REFERENCE.md §13.1): each direct user
 * message that cites sessions becomes the rewritten message (same id) followed by its snapshot; every other message
 * is kept as the same object. Shared by the stand-in host's plugin and the dsh plugin (`sessionctx/dsh`).
 */
import type { ContentBlock, Message } from '../../../protocol/events.js';
import { parseMessageContent } from '../../../protocol/uri/mention-parser.js';
import { freezeMessage } from '../../../protocol/user-message.js';
import { linkedAbort } from '../signal/abort.js';
import type { PreparedReferences, ReferenceTarget } from './reference-types.js';

/** `prepare()` as the expansion calls it. */
export type PrepareReferences = (
  agent: ReferenceTarget,
  content: readonly ContentBlock[],
  references: readonly unknown[],
  signal: AbortSignal,
) => Promise<PreparedReferences>;

/**
 * Expands `messages` in order. All preparations start at once; the first failure aborts its siblings (their work
 * is wasted, as dsh's `Promise.all` would leave it running) and rejects the expansion with that failure.
 */
export async function expandCitingMessages(
  agent: ReferenceTarget,
  messages: readonly Message[],
  prepare: PrepareReferences,
  signal: AbortSignal | undefined,
): Promise<Message[]> {
  const siblings = linkedAbort(signal);
  const expanded = await Promise.all(
    messages.map(async (message) => {
      try {
        return await expandMessage(agent, message, prepare, siblings.signal);
      } catch (error) {
        siblings.abort(error);
        throw error;
      }
    }),
  );
  return expanded.flat();
}

async function expandMessage(
  agent: ReferenceTarget,
  message: Message,
  prepare: PrepareReferences,
  signal: AbortSignal,
): Promise<readonly Message[]> {
  if (message.source.kind !== 'user') return [message];
  const parsed = parseMessageContent(message.content);
  if (parsed.references.length === 0) return [message];
  const prepared = await prepare(agent, parsed.content, parsed.references, signal);
  const direct = freezeMessage({ ...message, content: prepared.content });
  return prepared.additionalContext === undefined ? [direct] : [direct, prepared.additionalContext];
}

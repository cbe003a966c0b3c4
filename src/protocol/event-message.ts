/**
 * The message a surface event carries (SESSION-LOG.md §3.3) and whether it joins the derived model messages
 * (§5.4). Shared by the session's message cache and the token meter so that both read events the same way.
 */
import type { Message, SessionEvent } from './events.js';

/**
 * `data` for `user/message`, `data.message` for `assistant/message` (including one with empty content) and
 * `tool/result`; `undefined` for log-only types. Call only with validated events. O(1).
 */
export function eventMessage(event: SessionEvent): Message | undefined {
  switch (event.type) {
    case 'user/message':
      return event.data as Message;
    case 'assistant/message':
    case 'tool/result':
      return (event.data as { readonly message: Message }).message;
    default:
      return undefined;
  }
}

/** True when a surface event's `message` joins the derived messages: assistant messages with empty content do not. */
export function isModelVisible(event: SessionEvent, message: Message): boolean {
  return event.type !== 'assistant/message' || message.content.length > 0;
}

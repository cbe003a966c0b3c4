/**
 * The agent's inbox (HOST.md §6.1): queued user messages, each either for a later turn (followup) or for the
 * next step of the running turn (steering).
 */
import type { UserMessage } from '../../../protocol/user-message.js';

interface InboxEntry {
  readonly message: UserMessage;
  readonly steering: boolean;
}

/** A FIFO of user messages with a steering flag. */
export class Inbox {
  #entries: InboxEntry[] = [];

  /** The number of queued messages. */
  get size(): number {
    return this.#entries.length;
  }

  /** Queues `message` for a later turn. */
  followup(message: UserMessage): void {
    this.#entries.push({ message, steering: false });
  }

  /** Queues `message` for the next step of the running turn. */
  steer(message: UserMessage): void {
    this.#entries.push({ message, steering: true });
  }

  /** Removes and returns every queued message in queue order (claim at a turn's first pre-step). */
  claimAll(): UserMessage[] {
    const claimed = this.#entries.map((entry) => entry.message);
    this.#entries = [];
    return claimed;
  }

  /** Removes and returns the steering messages in queue order; followups stay queued. */
  claimSteering(): UserMessage[] {
    const claimed: UserMessage[] = [];
    const kept: InboxEntry[] = [];
    for (const entry of this.#entries) {
      if (entry.steering) claimed.push(entry.message);
      else kept.push(entry);
    }
    this.#entries = kept;
    return claimed;
  }
}

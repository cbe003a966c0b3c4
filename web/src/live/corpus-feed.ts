/**
 * The page's one event stream (issue 28 item 2, docs/WEB.md "Live updates"): an `EventSource` on `GET /api/events`,
 * opened on first use and shared by every view. A view subscribes to what changed (`change`: sessions added, removed
 * or with a new row) and to `reset` (read again what you show: a first connection, or a gap the server cannot
 * replay). The browser reconnects by itself after a dropped stream, sending the last event id, and the server
 * replays what was missed; when the browser gives up (a refused stream, a server that went away), the feed opens a
 * new stream after a growing pause, with the last id as `?since=`.
 */
import type { WebCorpusChange } from '../../../src/protocol/web/web-api.js';

/** What a subscriber is told. */
export type FeedEvent = { readonly kind: 'reset' } | { readonly kind: 'change'; readonly change: WebCorpusChange };

/** The stream's state, as the page shows it. */
export type FeedStatus = 'connecting' | 'live' | 'reconnecting';

/** The first pause before a new stream is opened after the browser gave up; doubled up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 500;
const MAX_PAUSE_MS = 15_000;
/** Changes kept for listings answered while they arrived (a listing is a second or two behind at most). */
const KEPT_RECENT = 64;

/** The shared stream and its subscribers. */
class CorpusFeed {
  readonly #listeners = new Set<(event: FeedEvent) => void>();
  readonly #statusListeners = new Set<(status: FeedStatus) => void>();
  #source: EventSource | undefined;
  #lastId: string | undefined;
  #status: FeedStatus = 'connecting';
  #pause = FIRST_PAUSE_MS;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #heard = false;
  #recent: WebCorpusChange[] = [];

  /** True once the stream delivered its first message (so a view knows a `reset` is not still coming). */
  get heard(): boolean {
    return this.#heard;
  }

  get status(): FeedStatus {
    return this.#status;
  }

  /**
   * Subscribes to changes (opening the stream on first use).
   *
   * @param listener called for each change and reset
   * @returns the function that ends the subscription
   */
  subscribe(listener: (event: FeedEvent) => void): () => void {
    this.#listeners.add(listener);
    this.#start();
    return () => this.#listeners.delete(listener);
  }

  /**
   * Follows the stream's state.
   *
   * @param listener called when the state changes
   * @returns the function that ends the subscription
   */
  watchStatus(listener: (status: FeedStatus) => void): () => void {
    this.#statusListeners.add(listener);
    this.#start();
    return () => this.#statusListeners.delete(listener);
  }

  #start(): void {
    if (this.#source === undefined && this.#timer === undefined) this.#connect();
  }

  #connect(): void {
    this.#timer = undefined;
    const source = new EventSource(this.#lastId === undefined ? '/api/events' : `/api/events?since=${encodeURIComponent(this.#lastId)}`);
    this.#source = source;
    source.addEventListener('open', () => {
      this.#pause = FIRST_PAUSE_MS;
      this.#setStatus('live');
    });
    source.addEventListener('reset', (message) => this.#deliver(message, { kind: 'reset' }));
    source.addEventListener('corpus', (message) => {
      let change: WebCorpusChange;
      try {
        change = JSON.parse(message.data) as WebCorpusChange;
      } catch {
        // Not ours (a proxy's page): read everything again instead.
        this.#deliver(message, { kind: 'reset' });
        return;
      }
      this.#deliver(message, { kind: 'change', change });
    });
    source.addEventListener('error', () => {
      this.#setStatus('reconnecting');
      // CONNECTING: the browser retries by itself. CLOSED: it gave up, so a new stream follows after a pause.
      if (source.readyState !== EventSource.CLOSED) return;
      source.close();
      this.#source = undefined;
      this.#timer = setTimeout(() => this.#connect(), this.#pause);
      this.#pause = Math.min(MAX_PAUSE_MS, this.#pause * 2);
    });
  }

  /**
   * The changes since the last reset, oldest first (at most {@link KEPT_RECENT}): a listing answered meanwhile is
   * brought up to date with those after its revision (`catchUpListing`).
   */
  get recent(): readonly WebCorpusChange[] {
    return this.#recent;
  }

  #deliver(message: MessageEvent, event: FeedEvent): void {
    if (message.lastEventId !== '') this.#lastId = message.lastEventId;
    this.#heard = true;
    if (event.kind === 'reset') this.#recent = [];
    else {
      this.#recent.push(event.change);
      if (this.#recent.length > KEPT_RECENT) this.#recent.shift();
    }
    for (const listener of [...this.#listeners]) listener(event);
  }

  #setStatus(status: FeedStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    for (const listener of [...this.#statusListeners]) listener(status);
  }
}

/** The page's one feed. */
export const corpusFeed = new CorpusFeed();

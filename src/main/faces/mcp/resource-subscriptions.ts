/**
 * `resources/subscribe` of the MCP server: the URIs a client subscribed to, and which of them changed after a change
 * below the root (the engine's warm corpus view reports that something changed, not what). Each subscribed resource
 * is read again (its snapshot text, from the source cache when its log is unchanged) and compared with what it was;
 * a changed text, or a resource that appeared or went away, is announced with `notifications/resources/updated`.
 * A URI the server does not serve is accepted and never announced (a session may appear under it later).
 */
import { createHash } from 'node:crypto';

/** What the subscriptions read and tell. */
export interface ResourceSubscriptionsOptions {
  /** The resource's text now; a rejection means it cannot be read now (gone, damaged, not ours). */
  readonly read: (uri: string) => Promise<string>;
  /** Announces that `uri` changed. */
  readonly updated: (uri: string) => Promise<void>;
}

/** What a resource was when last looked at: a digest of its text, or the code of why it could not be read. */
type Fingerprint = string;

/** The digest of a text, or of the failure to read one. */
async function fingerprintOf(read: () => Promise<string>): Promise<Fingerprint> {
  try {
    return `text:${createHash('sha256')
      .update(await read(), 'utf8')
      .digest('base64url')}`;
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    return `unreadable:${typeof code === 'string' ? code : 'error'}`;
  }
}

/** The subscriptions of one connected client. */
export class ResourceSubscriptions {
  readonly #options: ResourceSubscriptionsOptions;
  /** Subscribed URI → its fingerprint (a promise: the first read runs when the subscription is made). */
  readonly #subscribed = new Map<string, Promise<Fingerprint>>();
  /** Comparisons run one after another, so two bursts of changes never announce one change twice. */
  #queue: Promise<void> = Promise.resolve();

  /** @param options - how resources are read and changes announced. */
  constructor(options: ResourceSubscriptionsOptions) {
    this.#options = options;
  }

  /** The subscribed URIs, in subscription order. */
  get uris(): readonly string[] {
    return [...this.#subscribed.keys()];
  }

  /**
   * Subscribes to `uri` (again: no change). Its text is read now, so the first change after it is seen as one.
   * @param uri - the resource's URI.
   */
  subscribe(uri: string): void {
    if (this.#subscribed.has(uri)) return;
    this.#subscribed.set(
      uri,
      fingerprintOf(() => this.#options.read(uri)),
    );
  }

  /**
   * Ends the subscription to `uri` (none: no change).
   * @param uri - the resource's URI.
   */
  unsubscribe(uri: string): void {
    this.#subscribed.delete(uri);
  }

  /** Ends every subscription (the client went away). */
  clear(): void {
    this.#subscribed.clear();
  }

  /**
   * After a change below the root: reads every subscribed resource again and announces those whose text changed.
   * @returns when the comparison (and every announcement) is done.
   */
  corpusChanged(): Promise<void> {
    const run = this.#queue.then(() => this.#compare());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #compare(): Promise<void> {
    for (const [uri, before] of [...this.#subscribed]) {
      const now = fingerprintOf(() => this.#options.read(uri));
      const [was, is] = await Promise.all([before, now]);
      // Unsubscribed while it was read: nothing to say.
      if (this.#subscribed.get(uri) !== before) continue;
      this.#subscribed.set(uri, now);
      if (was !== is) await this.#options.updated(uri);
    }
  }
}

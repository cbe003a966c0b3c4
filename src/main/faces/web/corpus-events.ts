/**
 * The Web page's live updates (issue 28 item 2, docs/WEB.md "Live updates"): `GET /api/events` is a server-sent event
 * stream of corpus changes. The engine's warm corpus view says only *that* something changed below the root (the
 * catalog's `onCorpusChange`, the same signal MCP's `resources/subscribe` follows); this module lists the corpus again
 * (the rows `sessions/list` answers with), compares them with the rows of the last revision, and sends what differs —
 * sessions added, removed, or with a changed row (a new title, an appended message changes its size) — to every open
 * stream as one numbered revision.
 *
 * Catching up: every message's id is `<epoch>-<revision>` (the epoch is random per server run). A client that comes
 * back with `Last-Event-ID` (the browser's own reconnect) or `?since=` (a page that opened a new stream) gets the
 * changes after its revision from a bounded history; when they cannot be told (a first connection, another run, an id
 * older than the history) it gets `event: reset`, which means "read again what you show".
 *
 * Bounds: at most `maxStreams` streams per server (more are refused with `WEB_TOO_MANY_STREAMS` before anything is
 * written), a heartbeat comment every `heartbeatMs` (proxies and idle timers see traffic; a dead peer is found by the
 * failed write), a stream whose unsent bytes grow past {@link MAX_BUFFERED_BYTES} is cut (the client catches up when
 * it reconnects), and `close()` ends every stream.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { WebApi, WebCorpusChange, WebCorpusReset, WebSessionRow } from '../../../protocol/web/web-api.js';
import { WebServerError } from './web-server-error.js';

/** Default bound of open event streams per server (a person's tabs, with room to spare). */
const DEFAULT_MAX_EVENT_STREAMS = 32;
/** Default interval of the heartbeat comment. */
const DEFAULT_HEARTBEAT_MS = 15_000;
/** How many changes are kept for clients that reconnect. */
const KEPT_CHANGES = 256;
/** The reconnection delay the stream asks the browser for (`retry:`). */
const RETRY_MS = 1000;
/** Unsent bytes after which a stream is cut instead of buffering more for a client that does not read. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/**
 * The shortest pause between listings while changes keep coming (from the third listing in a row on; at least as long
 * as the last listing took): a root that changes all the time (a conversation being written) costs at most about half
 * a thread, not all of it.
 */
const MIN_RELIST_GAP_MS = 100;
/**
 * How long a `sessions/list` before the first listing waits for it before it is answered from the headers alone
 * ({@link CorpusEventsOptions.quickList}): a small root is listed with its titles well within it, a large cold one
 * (10,000 sessions whose titles were never read: seconds) paints its rows first and gets its titles on the stream.
 */
export const QUICK_LISTING_AFTER_MS = 250;
/** Default of {@link CorpusEventsOptions.quickListMinPending}: a root of a few hundred sessions is listed with its titles. */
export const QUICK_LISTING_MIN_PENDING = 1000;
/** The longest last-event id that is parsed (anything longer is not one of ours: a reset). */
const MAX_EVENT_ID_LENGTH = 64;

/** What the event streams are built from. */
export interface CorpusEventsOptions {
  /** The listing now (the `sessions/list` handler: rows newest first, and the damaged artifacts skipped). */
  readonly list: (signal: AbortSignal) => Promise<WebListing>;
  /**
   * The listing from the headers alone (rows whose title was not read are labelled by their id and marked
   * `titlePending`): what a `sessions/list` before the first listing is answered with when that listing takes longer
   * than {@link QUICK_LISTING_AFTER_MS} (a root whose titles were never read). Absent: such a call waits.
   */
  readonly quickList?: (signal: AbortSignal) => Promise<WebListing>;
  /**
   * The fewest rows still without a title for which the headers-only listing is answered (default
   * {@link QUICK_LISTING_MIN_PENDING}): a smaller root waits for its titles, which take well under a second.
   */
  readonly quickListMinPending?: number;
  /** The change signal (the catalog's `onCorpusChange`); `undefined` from it: no changes are ever sent. */
  readonly onCorpusChange: (listener: () => void) => (() => void) | undefined;
  /** Default {@link DEFAULT_MAX_EVENT_STREAMS}. */
  readonly maxStreams?: number;
  /** Default {@link DEFAULT_HEARTBEAT_MS}. */
  readonly heartbeatMs?: number;
  /** Told when a listing after a change fails (the stream goes on; the next change lists again). */
  readonly onError?: (error: unknown) => void;
}

/** What `sessions/list` answers. */
type WebListing = WebApi['sessions/list']['value'];

/** One open stream. */
interface OpenStream {
  readonly res: ServerResponse;
  readonly heartbeat: NodeJS.Timeout;
}

/** The changes between two listings, in listing order (`removed` in the old listing's order). */
function diffRows(
  before: ReadonlyMap<string, WebSessionRow>,
  after: readonly WebSessionRow[],
): Omit<WebCorpusChange, 'revision'> | undefined {
  const added: WebSessionRow[] = [];
  const changed: WebSessionRow[] = [];
  const present = new Set<string>();
  for (const row of after) {
    present.add(row.sessionId);
    const was = before.get(row.sessionId);
    if (was === undefined) added.push(row);
    else if (!sameRow(was, row)) changed.push(row);
  }
  const removed = [...before.keys()].filter((id) => !present.has(id));
  return added.length + changed.length + removed.length === 0 ? undefined : { added, removed, changed };
}

/** Field-by-field equality of two rows (every field is a primitive). */
function sameRow(a: WebSessionRow, b: WebSessionRow): boolean {
  return (
    a.label === b.label &&
    a.cwd === b.cwd &&
    a.createdAt === b.createdAt &&
    a.sizeBytes === b.sizeBytes &&
    a.live === b.live &&
    a.titlePending === b.titlePending
  );
}

/** One server's event streams and the revisions they send. */
export class CorpusEvents {
  readonly #options: CorpusEventsOptions;
  readonly #maxStreams: number;
  readonly #heartbeatMs: number;
  /** Per server run, so an id of another run is never taken for one of this run. */
  readonly #epoch = randomBytes(6).toString('hex');
  readonly #streams = new Set<OpenStream>();
  /** The kept changes, oldest first; the last one's revision is {@link #revision}. */
  readonly #history: WebCorpusChange[] = [];
  readonly #aborts = new AbortController();
  readonly #stopWatching: () => void;
  #revision = 0;
  /** The rows of the current revision, in listing order (`undefined` until the first listing came back). */
  #rows: Map<string, WebSessionRow> | undefined;
  /** The damaged artifacts the current revision's listing skipped. */
  #skipped = 0;
  /** The listing under way; a change meanwhile asks for one more after it. */
  #running: Promise<void> | undefined;
  /** Why the listing under way runs: a check behind a `sessions/list` answer is no change, so no pause follows it. */
  #runningFor: 'change' | 'revalidate' = 'change';
  /** Listings run back to back for changes that kept coming; from the second on, each waits a pause. */
  #streak = 0;
  #again = false;
  #closed = false;
  /** How long the last listing took (the pause before the next one is at least as long). */
  #lastListingMs = 0;
  /** The listing under way, shared by every caller that asks meanwhile. */
  #listing: Promise<WebListing> | undefined;
  /** The headers-only listing, started by the first `sessions/list` that waited {@link QUICK_LISTING_AFTER_MS}. */
  #quick: Promise<WebListing> | undefined;
  /**
   * The rows of the headers-only listing once a caller was answered with them: the first listing's differences from
   * them (the titles) go out as a revision, so a page that painted them is brought up to date.
   */
  #quickRows: Map<string, WebSessionRow> | undefined;

  /** @param options - the listing, the change signal and the bounds. */
  constructor(options: CorpusEventsOptions) {
    this.#options = options;
    this.#maxStreams = options.maxStreams ?? DEFAULT_MAX_EVENT_STREAMS;
    this.#heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.#stopWatching = options.onCorpusChange(() => this.#changed()) ?? (() => undefined);
    // The first listing is the revision every later one is compared with.
    this.#changed();
    // The headers-only listing starts with it, so a page that comes while titles are being read paints at once.
    this.#quick = options.quickList?.(this.#aborts.signal);
    this.#quick?.catch(() => undefined);
  }

  /**
   * The listing, as `sessions/list` answers it. On 10,000 sessions a listing is a second of work, so a page is not
   * kept waiting for one: once the stream has a revision, its rows are the answer at once, and a fresh listing starts
   * behind it, whose differences (a change only the engine's `stat` sweep found) go out on the stream as a revision.
   * Before that, the listing under way is shared (a page's first load would otherwise run one beside the stream's).
   * @param signal - aborts this caller's wait (a shared listing goes on for the others)
   * @returns the listing
   */
  listing(signal: AbortSignal): Promise<WebListing> {
    if (this.#rows !== undefined) {
      const answer: WebListing = { sessions: [...this.#rows.values()], skipped: this.#skipped, revision: this.#revision };
      this.#changed('revalidate');
      return Promise.resolve(answer);
    }
    const shared = this.#firstListing();
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /**
   * Before the first listing came back: that listing, or — once it has taken {@link QUICK_LISTING_AFTER_MS} — the
   * headers-only listing if it comes back first. Rows answered from the headers are at revision 0; the first
   * listing's titles then go out as revision 1.
   */
  #firstListing(): Promise<WebListing> {
    const full = this.#sharedListing().then((listing) => ({ ...listing, revision: this.#revision }));
    const quickList = this.#options.quickList;
    if (quickList === undefined) return full;
    const minPending = this.#options.quickListMinPending ?? QUICK_LISTING_MIN_PENDING;
    return new Promise((resolve, reject) => {
      let answered = false;
      const answer = (listing: WebListing): void => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        resolve(listing);
      };
      const timer = setTimeout(() => {
        this.#quick ??= quickList(this.#aborts.signal);
        this.#quick.then(
          (listing) => {
            // The first listing came back meanwhile: its rows are the answer (the full one resolves it); so it is for
            // a small root, whose titles come soon.
            const pending = listing.sessions.reduce((count, row) => count + (row.titlePending === true ? 1 : 0), 0);
            if (answered || this.#rows !== undefined || pending < minPending) return;
            this.#quickRows ??= new Map(listing.sessions.map((row) => [row.sessionId, row]));
            answer({ ...listing, revision: 0 });
          },
          // A failed quick listing leaves the answer to the full one.
          () => undefined,
        );
      }, QUICK_LISTING_AFTER_MS);
      timer.unref();
      full.then(answer, (error: unknown) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  /**
   * The listing under way, or a new one. After a change the stream needs a `fresh` one: a listing that began before
   * the change may not show it.
   */
  #sharedListing(fresh = false): Promise<WebListing> {
    if (this.#listing !== undefined && !fresh) return this.#listing;
    const listing = this.#options.list(this.#aborts.signal);
    this.#listing = listing;
    const clear = (): void => {
      if (this.#listing === listing) this.#listing = undefined;
    };
    listing.then(clear, clear);
    return listing;
  }

  /**
   * Opens a stream on `res` (the request already passed the header checks and carries the cookie): the headers, the
   * catch-up after `lastEventId`, then every change until the client goes away or the server closes.
   * @param res - the response to stream on
   * @param lastEventId - the client's last id (`Last-Event-ID` or `?since=`), if any
   * @throws WebServerError `WEB_TOO_MANY_STREAMS` when the server holds its limit of streams (nothing was written)
   */
  open(res: ServerResponse, lastEventId: string | undefined): void {
    if (this.#closed) throw new WebServerError('WEB_TOO_MANY_STREAMS', 'the server is closing');
    if (this.#streams.size >= this.#maxStreams) {
      throw new WebServerError('WEB_TOO_MANY_STREAMS', `the server already holds ${this.#maxStreams} open event streams`);
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
    });
    const heartbeat = setInterval(() => this.#write(stream, ': heartbeat\n\n'), this.#heartbeatMs);
    heartbeat.unref();
    const stream: OpenStream = { res, heartbeat };
    this.#streams.add(stream);
    // A client that goes away (a closed tab, a lost connection) ends its stream.
    res.once('close', () => this.#drop(stream));
    this.#write(stream, `retry: ${RETRY_MS}\n\n`);
    const missed = this.#missedSince(lastEventId);
    if (missed === undefined)
      this.#write(stream, this.#message('reset', this.#revision, { revision: this.#revision } satisfies WebCorpusReset));
    else for (const change of missed) this.#write(stream, this.#message('corpus', change.revision, change));
  }

  /** Ends every stream and stops following the corpus. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopWatching();
    this.#aborts.abort(new Error('the server is closing'));
    for (const stream of [...this.#streams]) {
      this.#drop(stream);
      stream.res.end();
    }
  }

  /**
   * The changes after `lastEventId`, or `undefined` when they cannot be told (no id, another run's, a malformed one, a
   * revision ahead of ours or older than the history).
   */
  #missedSince(lastEventId: string | undefined): readonly WebCorpusChange[] | undefined {
    if (lastEventId === undefined || lastEventId.length > MAX_EVENT_ID_LENGTH) return undefined;
    const match = /^([0-9a-f]+)-(\d{1,15})$/.exec(lastEventId);
    if (match === null || match[1] !== this.#epoch) return undefined;
    const seen = Number(match[2]);
    if (seen > this.#revision) return undefined;
    const oldest = this.#history[0]?.revision ?? this.#revision + 1;
    // Revision `seen` itself need not be kept: what the client lacks starts at `seen + 1`.
    if (seen + 1 < oldest && seen !== this.#revision) return undefined;
    return this.#history.filter((change) => change.revision > seen);
  }

  #message(event: 'corpus' | 'reset', revision: number, data: WebCorpusChange | WebCorpusReset): string {
    // JSON text has no raw line breaks, so the data is one `data:` line.
    return `id: ${this.#epoch}-${revision}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  }

  #write(stream: OpenStream, text: string): void {
    if (stream.res.destroyed || stream.res.writableEnded) return;
    stream.res.write(text);
    // A client that stopped reading: cut it rather than hold its backlog; it catches up when it reconnects.
    if (stream.res.writableLength > MAX_BUFFERED_BYTES) stream.res.destroy();
  }

  #drop(stream: OpenStream): void {
    clearInterval(stream.heartbeat);
    this.#streams.delete(stream);
  }

  /** A change was signalled: list again now, or once more after the listing under way. */
  #changed(reason: 'change' | 'revalidate' = 'change'): void {
    if (this.#closed) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    // This listing takes in every change signalled so far (those during a pause included).
    this.#again = false;
    this.#runningFor = reason;
    this.#running = this.#relist().finally(() => {
      if (!this.#again || this.#closed) {
        this.#running = undefined;
        this.#streak = 0;
        return;
      }
      // Changes came in meanwhile: one more listing takes them all in — at once the first time (a new session is a
      // short burst: its project, its directory, its file), after a pause while they keep coming (a root that changes
      // all the time); a change that came during a check behind a `sessions/list` answer never waits.
      this.#again = false;
      const sustained = this.#runningFor === 'change' && this.#streak > 0;
      this.#streak += 1;
      const pauseMs = sustained ? Math.max(MIN_RELIST_GAP_MS, this.#lastListingMs) : 0;
      const pause = setTimeout(() => {
        this.#running = undefined;
        this.#changed();
      }, pauseMs);
      pause.unref();
    });
  }

  async #relist(): Promise<void> {
    let rows: readonly WebSessionRow[];
    const started = performance.now();
    try {
      const listing = await this.#sharedListing(true);
      rows = listing.sessions;
      this.#skipped = listing.skipped;
    } catch (error) {
      if (!this.#closed) this.#options.onError?.(error);
      return;
    } finally {
      this.#lastListingMs = performance.now() - started;
    }
    if (this.#closed) return;
    // The first listing after a page was answered from the headers alone is compared with those rows.
    const before = this.#rows ?? this.#quickRows;
    this.#quickRows = undefined;
    // Answered only before the first listing came back: its rows are not needed again.
    this.#quick = undefined;
    this.#rows = new Map(rows.map((row) => [row.sessionId, row]));
    if (before === undefined) return;
    const diff = diffRows(before, rows);
    if (diff === undefined) return;
    this.#revision += 1;
    const change: WebCorpusChange = { revision: this.#revision, ...diff };
    this.#history.push(change);
    if (this.#history.length > KEPT_CHANGES) this.#history.shift();
    const text = this.#message('corpus', change.revision, change);
    for (const stream of this.#streams) this.#write(stream, text);
  }
}

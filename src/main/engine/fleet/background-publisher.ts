/**
 * Publishing in the background (issue 29): an engine with the postgres backend publishes its root at start and again
 * after every change it is told of (the warm corpus view's change signal), one publish at a time — changes that arrive
 * while one runs are folded into one more. A failed publish (the server unreachable, a refused schema, a listing that
 * failed) is retried with exponential backoff and jitter; changes during the wait do not cut it short, so a fleet of
 * hosts does not hammer a server that is down. Local work never waits for it.
 *
 * {@link BackgroundPublisher.close} stops it: the wait is cancelled, the publish in flight is aborted between batches
 * (the batch whose transaction is open commits or rolls back as a whole; the ones after it are abandoned and published
 * by the next process), and it resolves once nothing runs.
 */
import type { PublishProgress, PublishSummary } from './corpus-publisher.js';
import { FleetError } from './fleet-error.js';

/** What the publisher reports, in order: progress per committed batch, each publish, each failure and its retry. */
export type FleetPublishEvent =
  | { readonly kind: 'progress'; readonly stage: 'artifacts' | 'sources'; readonly done: number; readonly total: number }
  | { readonly kind: 'published'; readonly summary: PublishSummary }
  | {
      readonly kind: 'failed';
      /** The error's stable code (`FLEET_UNREACHABLE`, …), or `undefined` for an error without one. */
      readonly code: string | undefined;
      /** The error's message (a `FleetError`'s never names a credential). */
      readonly message: string;
      /** Failures in a row, this one included. */
      readonly attempt: number;
      /** When the next attempt starts. */
      readonly retryInMs: number;
    };

/** How long to wait before retrying. */
export interface PublishRetry {
  /** The first wait after a failure; default 1 000 ms. */
  readonly initialDelayMs?: number;
  /** The longest wait; default 60 000 ms. */
  readonly maxDelayMs?: number;
}

/** Construction options. */
export interface BackgroundPublisherOptions {
  /** One publish of the root (`CorpusPublisher.publish` over the engine). */
  readonly publish: (signal: AbortSignal, onProgress: PublishProgress, onDiscoverable: () => void) => Promise<PublishSummary>;
  /** Where events go (the engine's `onFleetEvent`). */
  readonly onEvent?: (event: FleetPublishEvent) => void;
  readonly retry?: PublishRetry;
}

interface Waiter {
  readonly resolve: (summary: PublishSummary) => void;
  readonly reject: (reason: unknown) => void;
}

const DEFAULT_INITIAL_DELAY_MS = 1000;
const DEFAULT_MAX_DELAY_MS = 60_000;

/** The wait before attempt `failures + 1`: doubling from the first, capped, with up to a quarter taken off at random. */
export function retryDelay(failures: number, retry: PublishRetry = {}): number {
  const initial = retry.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS;
  const max = retry.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const base = Math.min(max, initial * 2 ** Math.min(failures - 1, 30));
  // Jitter spreads the retries of hosts that lost the server at the same moment.
  return Math.round(base * (0.75 + Math.random() * 0.25));
}

/** One root's background publishing. */
export class BackgroundPublisher {
  readonly #options: BackgroundPublisherOptions;
  readonly #abort = new AbortController();
  #dirty = false;
  #closed = false;
  #failures = 0;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #waiters: Waiter[] = [];
  readonly #firstSettled: Promise<void>;
  #settleFirst: () => void = () => undefined;

  /** Keeps the options; publishes nothing before {@link start}. */
  constructor(options: BackgroundPublisherOptions) {
    this.#options = options;
    this.#firstSettled = new Promise((resolve) => {
      this.#settleFirst = resolve;
    });
  }

  /** Starts the first publish. */
  start(): void {
    this.changed();
  }

  /** Something below the root changed: publish again (after the publish in flight, or when the retry wait ends). */
  changed(): void {
    if (this.#closed) return;
    this.#dirty = true;
    if (this.#timer === undefined) this.#kick();
  }

  /**
   * Resolves once the first publish attempt has made the root discoverable or ended, either way (or the publisher
   * closed): what a fleet query waits for, so an engine's own sessions are in its first fleet answer whenever the
   * server allows (their source entries, a read of each log, may still be on their way).
   */
  firstAttempt(): Promise<void> {
    return this.#firstSettled;
  }

  /**
   * Publishes now (cutting a retry wait short) and resolves with a publish that started after this call.
   * @throws the publish's error (a `FleetError` for the database), `FleetError` `FLEET_CLOSED` once closed
   */
  publishNow(): Promise<PublishSummary> {
    if (this.#closed) return Promise.reject(new FleetError('FLEET_CLOSED', 'the engine was closed; nothing more is published'));
    return new Promise<PublishSummary>((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.#dirty = true;
      if (this.#timer !== undefined) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
      this.#kick();
    });
  }

  /** Stops: no new publish, the one in flight aborted after its open batch. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort.abort(new FleetError('FLEET_CLOSED', 'the engine was closed; the publish was abandoned'));
    await this.#running;
    this.#rejectWaiters(new FleetError('FLEET_CLOSED', 'the engine was closed; nothing more is published'));
    this.#settleFirst();
  }

  #kick(): void {
    if (this.#closed || this.#running !== undefined) return;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      if (this.#dirty && this.#timer === undefined && !this.#closed) this.#kick();
    });
  }

  async #run(): Promise<void> {
    while (this.#dirty && !this.#closed) {
      this.#dirty = false;
      const waiters = this.#waiters.splice(0);
      try {
        const summary = await this.#options.publish(
          this.#abort.signal,
          (done, total, stage) => this.#emit({ kind: 'progress', stage, done, total }),
          // The root is discoverable once its headers and titles are in; its sources may follow.
          () => this.#settleFirst(),
        );
        this.#failures = 0;
        this.#emit({ kind: 'published', summary });
        for (const waiter of waiters) waiter.resolve(summary);
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
        if (this.#closed) return;
        this.#failures += 1;
        const delay = retryDelay(this.#failures, this.#options.retry);
        this.#emit({
          kind: 'failed',
          code: codeOf(error),
          message: error instanceof Error ? error.message : String(error),
          attempt: this.#failures,
          retryInMs: delay,
        });
        this.#dirty = true;
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#kick();
        }, delay);
        // A one-shot process ends when its work does; the retry is no reason to stay.
        this.#timer.unref();
        return;
      } finally {
        this.#settleFirst();
      }
    }
  }

  /** Reports an event; a listener that throws never stops publishing (nor becomes an unhandled rejection). */
  #emit(event: FleetPublishEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // The listener's own failure is its own; publishing goes on.
    }
  }

  #rejectWaiters(reason: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.reject(reason);
  }
}

function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

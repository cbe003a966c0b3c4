/**
 * One dsh session as DCP's host API sees it (docs/DSH-DCP.md §3): dsh's `Session` exposes only its log and an array
 * of surface nodes, so the view keeps what DCP needs beside it — the indexed surface (O(1) seq → position), the open
 * turn and step, the compaction brackets, the token meter with the shadow-price claims, the tool-pairing counts, the
 * request header and the context windows dsh records — fed synchronously, event by event, from the host's
 * `session/event` notifications (the stand-in host's own fold, `main/stand-in/host/session-projections.ts`). Reads never touch
 * dsh's `events` snapshot after the first contact. Writes always go to dsh's session: its validation decides, and the
 * published event then reaches the view.
 */
import type { Message, SessionEvent, SessionHeader } from '../protocol/events.js';
import { isRecord, isSurfaceType } from '../protocol/events.js';
import type { RequestHeaderData, SessionEventMap, TypedEvent } from '../protocol/event-map.js';
import { eventMessage } from '../protocol/event-message.js';
import { SessionProjections } from '../main/host-kit/session-projections.js';
import type { SurfaceDelta, SurfaceReader } from '../protocol/surface-view.js';
import type {
  AppendOptions,
  HostEventType,
  HostSession,
  OpenBracket,
  OpenStep,
  RequestContext,
  SessionEventListener,
  SessionMeter,
  ToolPairingReader,
} from '../main/host-api/host-api.js';
import type { DshSession } from './dsh-dcp-host-shapes.js';

/** The event type dsh records a request's route and context window in (`{provider, model, contextWindow?}`). */
const REQUEST_CONTEXT = 'request/context';

/** A listener failure: the event stays folded and every other listener still runs. */
export type ViewListenerErrorHandler = (error: unknown, event: SessionEvent) => void;

/** Sees each event of the first fold with its delta and the view as it stands right after it (DCP's index build). */
export type InitialFoldObserver = (event: SessionEvent, delta: SurfaceDelta | undefined, view: DshSessionView) => void;

/** The key of a (provider, model) route in the window table. */
function routeKey(provider: string, model: string): string {
  return `${provider}\u0000${model}`;
}

/**
 * The view of one live dsh session. Build it when DCP first meets the session (it folds the log once), then hand it
 * every event dsh publishes for that session ({@link observe}); {@link append} writes through dsh's session.
 */
export class DshSessionView implements HostSession {
  readonly #session: DshSession;
  /** The log as folded and every projection of it: the stand-in host's own (`main/stand-in/host/session-projections`). */
  readonly #projections: SessionProjections;
  readonly #events: SessionEvent[];
  readonly #listeners = new Set<SessionEventListener>();
  /** The latest window dsh recorded per route (`request/context`). */
  readonly #windows = new Map<string, number>();
  readonly #onListenerError: ViewListenerErrorHandler;

  /** The fold that rides along the first fold (DCP's index), until the view is current. */
  #rider: InitialFoldObserver | undefined;
  /** dsh's log snapshot the first fold is reading; `undefined` once the view is current. */
  #snapshot: readonly SessionEvent[] | undefined;
  #current = false;

  /**
   * Folds `session`'s log as it stands (one read of dsh's `events` snapshot); `observe` sees every event of that fold
   * with the view's state right after it, so a caller can build its own fold (DCP's index) in the same pass. With
   * `deferred` the constructor folds nothing: the caller folds the log in slices with {@link foldFirst} (a long
   * restored log, docs/DSH-DCP.md §3), and the view ignores published events until it is {@link current}.
   */
  constructor(session: DshSession, onListenerError: ViewListenerErrorHandler, observe?: InitialFoldObserver, deferred = false) {
    this.#session = session;
    this.#onListenerError = onListenerError;
    this.#projections = new SessionProjections(() => this.requestContext()?.contextWindow);
    this.#events = this.#projections.events;
    this.#rider = observe;
    if (!deferred) this.foldFirst(Number.POSITIVE_INFINITY);
  }

  /** Whether the first fold reached the end of dsh's log (from then on events arrive through {@link observe}). */
  get current(): boolean {
    return this.#current;
  }

  /**
   * Folds up to `count` more events of dsh's log during the first fold and returns {@link current}. Events dsh
   * appended meanwhile are read from its log (its `events` snapshot is re-read only once the one in hand is used up).
   */
  foldFirst(count: number): boolean {
    if (this.#current) return true;
    let snapshot = this.#snapshot ?? this.#session.events;
    for (let folded = 0; folded < count; ) {
      const next = snapshot[this.#events.length];
      if (next === undefined) {
        const latest = this.#session.events;
        if (latest.length <= this.#events.length) {
          this.#current = true;
          break;
        }
        snapshot = latest;
        continue;
      }
      const delta = this.#fold(next);
      this.#rider?.(next, delta, this);
      folded += 1;
    }
    if (this.#current) {
      this.#snapshot = undefined;
      this.#rider = undefined;
    } else this.#snapshot = snapshot;
    return this.#current;
  }

  /** The dsh session behind the view. */
  get dshSession(): DshSession {
    return this.#session;
  }

  get id(): string {
    return this.#session.id;
  }

  get header(): SessionHeader {
    return this.#session.header;
  }

  /** The log as the view has folded it (the same frozen event objects as dsh's log). */
  get events(): readonly SessionEvent[] {
    return this.#events;
  }

  get surface(): SurfaceReader {
    return this.#projections.surface;
  }

  get meter(): SessionMeter {
    return this.#projections.meter;
  }

  get toolPairing(): ToolPairingReader {
    return this.#projections.pairing;
  }

  /**
   * Appends through dsh's session (its checks decide; a refusal throws dsh's error and changes nothing), then makes
   * sure the view has folded the stored event: dsh publishes it to the view before `append` returns, and a session
   * dsh does not publish (one outside its store) is folded here.
   */
  append<K extends HostEventType>(type: K, data: SessionEventMap[K], options?: AppendOptions): TypedEvent<K>;
  append(type: string, data: unknown, options: AppendOptions = {}): SessionEvent {
    if (options.ignorable !== undefined) throw new TypeError('a live append cannot be ignorable (SESSION-LOG.md §2.2)');
    const intent =
      isSurfaceType(type) || options.surfaceOp !== undefined || options.sourceEventSeqs !== undefined
        ? [
            {
              ...(options.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: options.sourceEventSeqs }),
              ...(options.surfaceOp === undefined ? {} : { surfaceOp: options.surfaceOp }),
            },
          ]
        : [];
    const event = this.#session.append(type, data, ...intent);
    this.observe(event);
    return event;
  }

  /**
   * Folds one event dsh published for this session and notifies the view's listeners. An event the view has folded
   * already is ignored; a gap (events the view was not handed) is filled from dsh's log first. Before the view is
   * {@link current} every event is ignored: the first fold reads it from dsh's log.
   */
  observe(event: SessionEvent): void {
    if (!this.#current || event.seq < this.#events.length) return;
    if (event.seq > this.#events.length) {
      for (const missed of this.#session.events.slice(this.#events.length, event.seq)) this.#publish(missed, this.#fold(missed));
    }
    this.#publish(event, this.#fold(event));
  }

  on(name: 'event', listener: SessionEventListener): () => void {
    if (name !== 'event') throw new TypeError(`unknown session notification "${String(name)}"`);
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** dsh's own derived messages: the view never derives them itself. */
  deriveMessages(): readonly Message[] {
    return this.#session.deriveMessages() as readonly Message[];
  }

  deriveEventMessage(event: SessionEvent): Message | undefined {
    return eventMessage(event);
  }

  openTurn(): { readonly turn: number } | null {
    return this.#projections.openTurn();
  }

  openStep(): OpenStep | null {
    return this.#projections.openStep();
  }

  openBrackets(): readonly OpenBracket[] {
    return this.#projections.openBrackets();
  }

  highestTurn(): number | null {
    return this.#projections.highestTurn();
  }

  latestRequestHeader(): RequestHeaderData['header'] | undefined {
    return this.#projections.latestRequestHeader();
  }

  /**
   * `{provider, model, contextWindow?}` of the latest `request/header`; the window is the one dsh last recorded for
   * that route in a `request/context` event (dsh's model registry resolved it for the request), absent when none.
   */
  requestContext(): RequestContext | undefined {
    const config = this.#projections.latestRequestHeader()?.config;
    if (!isRecord(config) || typeof config.provider !== 'string' || typeof config.model !== 'string') return undefined;
    const { provider, model } = config;
    const contextWindow = this.#windows.get(routeKey(provider, model));
    return contextWindow === undefined ? { provider, model } : { provider, model, contextWindow };
  }

  /** Folds one stored event into every projection and the window table; returns its surface delta. */
  #fold(event: SessionEvent): SurfaceDelta | undefined {
    if (event.type === REQUEST_CONTEXT) this.#readContext(event.data);
    return this.#projections.fold(event);
  }

  #publish(event: SessionEvent, delta: SurfaceDelta | undefined): void {
    for (const listener of this.#listeners) {
      try {
        listener(event, delta);
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }
  }

  #readContext(data: unknown): void {
    if (!isRecord(data)) return;
    const { provider, model, contextWindow } = data;
    if (typeof provider !== 'string' || typeof model !== 'string') return;
    const key = routeKey(provider, model);
    // dsh records a route's context whenever it changes, without `contextWindow` when the window is unknown.
    if (typeof contextWindow === 'number' && Number.isSafeInteger(contextWindow) && contextWindow > 0)
      this.#windows.set(key, contextWindow);
    else this.#windows.delete(key);
  }
}

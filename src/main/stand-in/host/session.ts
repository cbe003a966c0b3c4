/**
 * The host session (HOST.md §2): an append-only, validated, dsh-compatible event log with an indexed surface,
 * cached derived messages, turn/step accessors and synchronous append notifications. It satisfies the query
 * layer's `LiveSession` shape, so it can be attached to a live registry as is.
 */
import { randomUUID } from 'node:crypto';
import { deepFreeze } from '../../../protocol/deep-freeze.js';
import type { Message, SessionEvent, SessionHeader } from '../../../protocol/events.js';
import { isRecord } from '../../../protocol/events.js';
import { validateSessionHeader } from '../../../protocol/session-header.js';
import { SurfaceFold } from '../../../protocol/surface-fold.js';
import type { RequestHeaderData, SessionEventMap, TypedEvent } from '../../../protocol/event-map.js';
import { eventMessage, isModelVisible } from '../../../protocol/event-message.js';
import { ownFrozen } from './frozen-data.js';
import { SessionAppendError } from './session-append-error.js';
import type { SurfaceDelta, SurfaceReader } from '../../../protocol/surface-view.js';
import type { ToolPairingReader } from '../../host-kit/tool-pairing-index.js';
import { SessionProjections } from '../../host-kit/session-projections.js';
import { createHostValidationLayers } from './validation/default-layers.js';
import type { AppendCandidate, ValidationLayer, ValidationMode, ValidationState } from './validation/validation-layer.js';
import type {
  AppendOptions,
  ContextWindowLookup,
  HostEventType,
  HostSession,
  OpenBracket,
  OpenStep,
  RequestContext,
  SessionEventListener,
  SessionMeter,
} from '../../host-api/host-api.js';
export type {
  AppendOptions,
  SessionEventListener,
  ContextWindowLookup,
  RequestContext,
  OpenStep,
} from '../../host-api/host-api.js';

/** Construction options shared by `Session.create` and `fork`. */
export interface SessionRuntimeOptions {
  /** Clock for `time` of live appends; defaults to `Date.now`. */
  readonly now?: () => number;
  /** The model registry's context windows (HOST.md §2.5). */
  readonly contextWindowOf?: ContextWindowLookup;
  /**
   * A fresh validation-layer list for this session; defaults to the host layers of HOST.md §3. The session's
   * projections (turns, brackets, meter, pairing) read accepted payloads as the map types them, so a list without
   * the host layers must still refuse malformed payloads of the types they read.
   */
  readonly validationLayers?: () => ValidationLayer[];
  /**
   * Receives an error thrown by an append listener. The event stays appended and every other listener still
   * runs. Without a handler the first listener error is rethrown from `append` after publishing.
   */
  readonly onListenerError?: (error: unknown, event: SessionEvent) => void;
}

/** `Session.create` options (HOST.md §2.1). */
export interface SessionCreateOptions extends SessionRuntimeOptions {
  /** The session header; validated per SESSION-LOG.md §7.2 (its `id` must equal the session id). */
  readonly header: SessionHeader;
  /**
   * Events to replay in seed mode (HOST.md §3.8). Ownership passes to the session: accepted events are
   * deep-frozen in place and stored as they are.
   */
  readonly seed?: readonly unknown[];
}

/** `session.fork` options. */
export interface ForkOptions {
  /** The child's id; defaults to a random UUID. */
  readonly id?: string;
  /** The child's `createdAt`; defaults to the clock. */
  readonly createdAt?: number;
}

/** The record a listener-error collector keeps while publishing. */
interface ListenerFailure {
  readonly error: unknown;
}

/** Builds the stored event in writer key order (SESSION-LOG.md §2.2), deep-frozen, caller data not aliased. */
function buildEvent(candidate: AppendCandidate): SessionEvent {
  const event: { -readonly [K in keyof SessionEvent]: SessionEvent[K] } = {
    type: candidate.type,
    seq: candidate.seq,
    time: candidate.time,
    data: ownFrozen(candidate.data),
  };
  if (candidate.sourceEventSeqs !== undefined) event.sourceEventSeqs = ownFrozen(candidate.sourceEventSeqs as readonly number[]);
  if (candidate.surfaceOp !== undefined) event.surfaceOp = ownFrozen(candidate.surfaceOp as SessionEvent['surfaceOp']);
  return Object.freeze(event);
}

/**
 * A live session (HOST.md §2). Every append runs the validation layers first and is atomic: a failing append
 * throws `SessionAppendError` and changes nothing. Per-append work is O(1) amortised plus the size of the
 * event's data (lossless check and freeze); a replace adds O(k + chunk + chunks) (see `SurfaceView`), and the
 * next `deriveMessages()` after it rebuilds the message cache once, O(surface).
 */
export class Session implements HostSession {
  readonly #id: string;
  readonly #header: SessionHeader;
  readonly #fold = new SurfaceFold();
  /** The log and every projection of it (shared with sessionctx/dsh-dcp's view of a dsh session). */
  readonly #projections: SessionProjections;
  readonly #events: SessionEvent[];
  readonly #layers: readonly ValidationLayer[];
  readonly #listeners = new Set<SessionEventListener>();
  readonly #options: SessionRuntimeOptions;
  readonly #now: () => number;
  #mode: ValidationMode = 'live';
  #publishing = false;
  /** Derived messages in surface order, or `undefined` after a replace (rebuilt lazily). */
  #messages: Message[] | undefined = [];
  /** The frozen array `deriveMessages()` returned, valid until the surface changes. */
  #messagesSnapshot: readonly Message[] | undefined;
  readonly #state: ValidationState;

  private constructor(id: string, header: SessionHeader, options: SessionRuntimeOptions) {
    this.#id = id;
    this.#header = header;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#layers = (options.validationLayers ?? createHostValidationLayers)();
    this.#projections = new SessionProjections(() => this.requestContext()?.contextWindow);
    this.#events = this.#projections.events;
    const session = this;
    this.#state = {
      get mode() {
        return session.#mode;
      },
      sessionId: id,
      events: this.#events,
      fold: this.#fold,
      surface: this.#projections.surface,
      turns: this.#projections.turns,
      brackets: this.#projections.brackets,
      claim: this.#projections.claim,
      get publishing() {
        return session.#publishing;
      },
    };
  }

  /**
   * Builds a session (HOST.md §2.1). With a seed, every seed event is replayed through the validation layers in
   * seed mode and then `session/end-seed {}` is appended unless the seed already ends with one; any failure
   * rejects the whole seed and no session is created. Header failures throw SESSION-LOG.md §7.2's errors.
   */
  static create(id: string, options: SessionCreateOptions): Session {
    const header = validateSessionHeader(structuredClone(options.header), id);
    const session = new Session(id, header, options);
    if (options.seed !== undefined) {
      session.#replaySeed(options.seed, false);
      session.#appendEndSeed();
    }
    return session;
  }

  /** The session id. */
  get id(): string {
    return this.#id;
  }

  /** The frozen session header. */
  get header(): SessionHeader {
    return this.#header;
  }

  /** The whole log (seq `i` at index `i`); events are deep-frozen. Read it, never mutate it. */
  get events(): readonly SessionEvent[] {
    return this.#events;
  }

  /** The indexed current surface (HOST.md §2.4). */
  get surface(): SurfaceReader {
    return this.#projections.surface;
  }

  /** The token meter (HOST.md §4.2); its figures are heuristic estimates. */
  get meter(): SessionMeter {
    return this.#projections.meter;
  }

  /** The running tool-pairing count behind `toolPairingBalancedBefore/After` (HOST.md §5). */
  get toolPairing(): ToolPairingReader {
    return this.#projections.pairing;
  }

  /**
   * Appends one event (HOST.md §2.2): `seq = events.length`, `time` from the clock, every validation layer,
   * then store, update the surface and projections, and notify listeners. Returns the stored, deep-frozen event.
   */
  append<K extends HostEventType>(type: K, data: SessionEventMap[K], options?: AppendOptions): TypedEvent<K>;
  append(type: string, data: unknown, options: AppendOptions = {}): SessionEvent {
    const candidate: AppendCandidate = {
      type,
      seq: this.#events.length,
      time: this.#now(),
      data,
      sourceEventSeqs: options.sourceEventSeqs,
      surfaceOp: options.surfaceOp,
      ignorable: options.ignorable,
    };
    for (const layer of this.#layers) layer.check(candidate, this.#state);
    return this.#commit(buildEvent(candidate));
  }

  /** Subscribes to append notifications (HOST.md §2.3); returns the unsubscribe function. */
  on(name: 'event', listener: SessionEventListener): () => void {
    if (name !== 'event') throw new TypeError(`unknown session notification "${String(name)}"`);
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * The model messages of the current surface (SESSION-LOG.md §5.4) as a frozen array of the stored, frozen
   * message objects. The same array is returned until the surface changes; an append extends the cache in O(1).
   */
  deriveMessages(): readonly Message[] {
    if (this.#messagesSnapshot !== undefined) return this.#messagesSnapshot;
    const messages = (this.#messages ??= this.#rebuildMessages());
    this.#messagesSnapshot = Object.freeze(messages.slice());
    return this.#messagesSnapshot;
  }

  /**
   * The message a surface event carries: `data` for `user/message`, `data.message` for `assistant/message`
   * (including one with empty content) and `tool/result`; `undefined` for log-only events. O(1).
   */
  deriveEventMessage(event: SessionEvent): Message | undefined {
    return eventMessage(event);
  }

  /** The open turn, or `null` (HOST.md §2.5). */
  openTurn(): { readonly turn: number } | null {
    return this.#projections.openTurn();
  }

  /** The open step with its turn, or `null` (HOST.md §2.5). */
  openStep(): OpenStep | null {
    return this.#projections.openStep();
  }

  /**
   * The open, non-stale compaction brackets as `{compactionId, turn, startSeq, summarySeq?}` (HOST.md §2.5);
   * at most one. A bracket a seed left open is stale after `session/end-seed` and is not listed.
   */
  openBrackets(): readonly OpenBracket[] {
    return this.#projections.openBrackets();
  }

  /** The greatest turn number started in the log, or `null`. */
  highestTurn(): number | null {
    return this.#projections.highestTurn();
  }

  /** The `data.header` of the latest `request/header` event, or `undefined`. */
  latestRequestHeader(): RequestHeaderData['header'] | undefined {
    return this.#projections.latestRequestHeader();
  }

  /**
   * `{provider, model, contextWindow?}` from the latest `request/header` config (HOST.md §2.5); `undefined`
   * when there is no header. `contextWindow` comes from the model registry and is absent when unknown.
   */
  requestContext(): RequestContext | undefined {
    const config = this.#projections.latestRequestHeader()?.config;
    // Only a session built without the envelope layer can hold a header without a config record.
    if (!isRecord(config)) return undefined;
    const { provider, model } = config;
    const contextWindow = this.#options.contextWindowOf?.(provider, model);
    return contextWindow === undefined ? { provider, model } : { provider, model, contextWindow };
  }

  /**
   * A child session whose seed is `events[0..atSeq)` (HOST.md §2.1 rule 3). The cut must be at a turn
   * boundary (no open turn or step, and for the host layers no open non-stale compaction bracket), else
   * `HOST_FORK`. The child header carries `parentSession` and `seedLength = atSeq` and keeps this session's
   * `cwd` and `agentPreset`.
   */
  fork(atSeq: number, options: ForkOptions = {}): Session {
    if (!Number.isSafeInteger(atSeq) || atSeq < 0 || atSeq > this.#events.length) {
      throw new SessionAppendError('HOST_FORK', `fork seq ${String(atSeq)} is outside the log (length ${this.#events.length})`);
    }
    const parent = this.#header;
    const id = options.id ?? randomUUID();
    const header: Record<string, unknown> = { version: 0, id, createdAt: options.createdAt ?? this.#now() };
    if (parent.cwd !== undefined) header['cwd'] = parent.cwd;
    header['parentSession'] = this.#id;
    header['seedLength'] = atSeq;
    if (parent.agentPreset !== undefined) header['agentPreset'] = parent.agentPreset;
    const child = new Session(id, validateSessionHeader(header, id), this.#options);
    // The parent's events are deep-frozen already; the child stores the same objects.
    child.#replaySeed(this.#events.slice(0, atSeq), true);
    const violation = child.#boundaryViolation();
    if (violation !== undefined) {
      throw new SessionAppendError('HOST_FORK', `fork at seq ${atSeq} is not at a turn boundary (${violation})`);
    }
    child.#appendEndSeed();
    return child;
  }

  /** Replays seed events in seed mode (HOST.md §3.8): all layers, `time` kept, events stored as given. */
  #replaySeed(seed: readonly unknown[], alreadyFrozen: boolean): void {
    this.#mode = 'seed';
    try {
      for (const value of seed) {
        const candidate = value as AppendCandidate;
        for (const layer of this.#layers) layer.check(candidate, this.#state);
        this.#commit(alreadyFrozen ? (value as SessionEvent) : deepFreeze(value as SessionEvent));
      }
    } finally {
      this.#mode = 'live';
    }
  }

  #appendEndSeed(): void {
    if (this.#events.at(-1)?.type !== 'session/end-seed') this.append('session/end-seed', {});
  }

  /** The first objection to cutting the log after its last event, or `undefined`. */
  #boundaryViolation(): string | undefined {
    const { openTurn, openStep } = this.#projections.turns;
    if (openTurn !== null || openStep !== null) {
      return `open turn ${openTurn === null ? 'none' : openTurn}, open step ${openStep === null ? 'none' : openStep}`;
    }
    for (const layer of this.#layers) {
      const violation = layer.boundaryViolation?.(this.#state);
      if (violation !== undefined) return violation;
    }
    return undefined;
  }

  /** Stores an accepted event and updates every projection, then notifies listeners. */
  #commit(event: SessionEvent): SessionEvent {
    for (const layer of this.#layers) layer.commit?.(event, this.#state);
    const delta = this.#projections.fold(event);
    if (delta !== undefined) this.#updateMessages(event);
    if (this.#listeners.size > 0) this.#publish(event, delta);
    return event;
  }

  /** Keeps the message cache in step with a surface event the projections folded. */
  #updateMessages(event: SessionEvent): void {
    this.#messagesSnapshot = undefined;
    if (event.surfaceOp === 'append') {
      const message = eventMessage(event) as Message;
      if (this.#messages !== undefined && isModelVisible(event, message)) this.#messages.push(message);
      return;
    }
    // A replace may remove messages anywhere; rebuild lazily on the next read.
    this.#messages = undefined;
  }

  #rebuildMessages(): Message[] {
    const messages: Message[] = [];
    const { surface } = this.#projections;
    for (let position = 0; position < surface.length; position++) {
      const event = this.#events[surface.at(position) as number] as SessionEvent;
      const message = eventMessage(event) as Message;
      if (isModelVisible(event, message)) messages.push(message);
    }
    return messages;
  }

  /** Notifies every listener with appends locked (SESSION-LOG.md §2.4 rule 5). */
  #publish(event: SessionEvent, delta: SurfaceDelta | undefined): void {
    const failures: ListenerFailure[] = [];
    this.#publishing = true;
    try {
      for (const listener of [...this.#listeners]) this.#notify(listener, event, delta, failures);
    } finally {
      this.#publishing = false;
    }
    const first = failures[0];
    if (first !== undefined && this.#options.onListenerError === undefined) throw first.error;
  }

  #notify(listener: SessionEventListener, event: SessionEvent, delta: SurfaceDelta | undefined, failures: ListenerFailure[]): void {
    try {
      listener(event, delta);
    } catch (error) {
      // One failing listener must not keep the others from seeing the event that is already stored.
      failures.push({ error });
      this.#options.onListenerError?.(error, event);
    }
  }
}

/**
 * The views of the plugin's live dsh sessions (docs/DSH-DCP.md §3): one {@link DshSessionView} per dsh `Session`
 * object, built when DCP first meets the session (a pre-step, a tool call, a command), fed by every `session/event`
 * dsh publishes for it, and dropped when dsh disposes the session. Events of sessions DCP never met cost one map
 * lookup. A long log (a restored session) is folded in slices that yield to the event loop, so meeting it does not
 * stall the host; a caller that needs the view at once finishes the fold synchronously.
 */
import type { SessionEvent } from '../protocol/events.js';
import type { HostSession, SessionDirectory } from '../main/host-api/host-api.js';
import { yieldToEventLoop } from '../io/yield-to-event-loop.js';
import { DshDcpError } from './dsh-dcp-error.js';
import type { DshSession, DshSessionStore } from './dsh-dcp-host-shapes.js';
import type { InitialFoldObserver, ViewListenerErrorHandler } from './dsh-session-view.js';
import { DshSessionView } from './dsh-session-view.js';

/** A fold that rides along a new view's first fold of its log, and what to do with it once the view is built. */
export interface FirstFold {
  readonly observe: InitialFoldObserver;
  done(view: DshSessionView): void;
}

/** When a first fold runs in slices. */
export interface GradualFold {
  /** Logs with fewer events are folded at once (about a millisecond per thousand events). */
  readonly minEvents: number;
  /** The length of one slice of the fold, in milliseconds. */
  readonly sliceMs: number;
}

/** The default {@link GradualFold}: slices of 2 ms, well inside DCP.md §19 D6's 5 ms stall budget, from 4,096 events. */
export const DEFAULT_GRADUAL_FOLD: GradualFold = Object.freeze({ minEvents: 4096, sliceMs: 2 });

/** Events folded between two clock reads of a slice. */
const SLICE_BATCH_EVENTS = 256;

/** A view whose first fold is still under way. */
interface Building {
  readonly view: DshSessionView;
  readonly rider: FirstFold | undefined;
  /** The sliced fold, once someone waits for it. */
  sliced: Promise<DshSessionView> | undefined;
}

/** Every view of one plugin instance. */
export class SessionViews {
  readonly #views = new Map<DshSession, DshSessionView>();
  readonly #building = new Map<DshSession, Building>();
  readonly #onListenerError: ViewListenerErrorHandler;
  readonly #firstFold: (() => FirstFold | undefined) | undefined;
  readonly #gradual: GradualFold;

  /**
   * `firstFold`, asked once per new view, may return what rides along the view's first fold: DCP's index, built in
   * the same pass and adopted when the fold is done (one fold of a long log, not two).
   */
  constructor(onListenerError: ViewListenerErrorHandler, firstFold?: () => FirstFold | undefined, gradual = DEFAULT_GRADUAL_FOLD) {
    this.#onListenerError = onListenerError;
    this.#firstFold = firstFold;
    this.#gradual = gradual;
  }

  /** The view of `session`, its first fold finished now if it is still under way (or started and finished now). */
  viewOf(session: DshSession): DshSessionView {
    const view = this.#views.get(session) ?? this.#start(session);
    if (!view.current) {
      try {
        view.foldFirst(Number.POSITIVE_INFINITY);
      } catch (error) {
        this.#abandon(session, view);
        throw error;
      }
      this.#complete(session, view);
    }
    return view;
  }

  /**
   * The view of `session` once its first fold is done: at once (no promise) for a view that is current or a short
   * log; otherwise a promise of the sliced fold, shared by every caller. Rejects with `DSH_DCP_SESSION_DISPOSED`
   * when dsh disposes the session meanwhile.
   */
  ready(session: DshSession): DshSessionView | Promise<DshSessionView> {
    const known = this.#views.get(session);
    if (known?.current === true) return known;
    if (known === undefined && session.events.length < this.#gradual.minEvents) return this.viewOf(session);
    const view = known ?? this.#start(session);
    const building = this.#building.get(session) as Building;
    building.sliced ??= this.#foldInSlices(session, view);
    return building.sliced;
  }

  /** The view of `session` when DCP has met it and its first fold is done, else `undefined`. */
  peek(session: DshSession): DshSessionView | undefined {
    const view = this.#views.get(session);
    return view?.current === true ? view : undefined;
  }

  /** Hands a published event to its session's view, if DCP has met the session. O(1). */
  observe(session: DshSession, event: SessionEvent): void {
    this.#views.get(session)?.observe(event);
  }

  /** Removes the view of a session dsh disposed and returns it (for DCP's runtime to forget). */
  drop(session: DshSession): DshSessionView | undefined {
    const view = this.#views.get(session);
    this.#views.delete(session);
    this.#building.delete(session);
    return view;
  }

  /** How many sessions have a view. */
  get size(): number {
    return this.#views.size;
  }

  /** Drops every view (a fold under way stops at its next slice). */
  clear(): void {
    this.#views.clear();
    this.#building.clear();
  }

  /** The live session directory of the host API over dsh's session store (views built on lookup). */
  directory(store: DshSessionStore): SessionDirectory {
    return {
      get: (id: string): HostSession | undefined => {
        const session = store.get(id);
        return session === undefined ? undefined : this.viewOf(session);
      },
      list: (): string[] => store.list().map((session) => session.id),
    };
  }

  /** A new view of `session` whose first fold has not run yet. */
  #start(session: DshSession): DshSessionView {
    const rider = this.#firstFold?.();
    const view = new DshSessionView(session, this.#onListenerError, rider?.observe, true);
    this.#views.set(session, view);
    this.#building.set(session, { view, rider, sliced: undefined });
    return view;
  }

  /** The first fold of `view` is done: the rider is told once. */
  #complete(session: DshSession, view: DshSessionView): void {
    const building = this.#building.get(session);
    if (building?.view !== view) return;
    this.#building.delete(session);
    building.rider?.done(view);
  }

  /** A first fold that failed is not kept half-built: the next contact starts again (and meets the failure again). */
  #abandon(session: DshSession, view: DshSessionView): void {
    if (this.#views.get(session) === view) this.drop(session);
  }

  /** The sliced first fold: slices of about `sliceMs`, a macrotask hop between them, until the view is current. */
  async #foldInSlices(session: DshSession, view: DshSessionView): Promise<DshSessionView> {
    try {
      for (;;) {
        const deadline = performance.now() + this.#gradual.sliceMs;
        while (!view.foldFirst(SLICE_BATCH_EVENTS) && performance.now() < deadline);
        if (view.current) break;
        await yieldToEventLoop();
        if (this.#views.get(session) !== view) {
          throw new DshDcpError(
            'DSH_DCP_SESSION_DISPOSED',
            `sessionctx/dsh-dcp: session "${session.id}" was disposed while DCP read its log`,
          );
        }
      }
    } catch (error) {
      this.#abandon(session, view);
      throw error;
    }
    this.#complete(session, view);
    return view;
  }
}

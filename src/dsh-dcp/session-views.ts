/**
 * The views of the plugin's live dsh sessions (docs/DSH-DCP.md §3): one {@link DshSessionView} per dsh `Session`
 * object, built when DCP first meets the session (a pre-step, a tool call, a command), fed by every `session/event`
 * dsh publishes for it, and dropped when dsh disposes the session. Events of sessions DCP never met cost one map
 * lookup.
 */
import type { SessionEvent } from '../protocol/events.js';
import type { HostSession, SessionDirectory } from '../main/host-api/host-api.js';
import type { DshSession, DshSessionStore } from './dsh-dcp-host-shapes.js';
import type { InitialFoldObserver, ViewListenerErrorHandler } from './dsh-session-view.js';
import { DshSessionView } from './dsh-session-view.js';

/** A fold that rides along a new view's first fold of its log, and what to do with it once the view is built. */
export interface FirstFold {
  readonly observe: InitialFoldObserver;
  done(view: DshSessionView): void;
}

/** Every view of one plugin instance. */
export class SessionViews {
  readonly #views = new Map<DshSession, DshSessionView>();
  readonly #onListenerError: ViewListenerErrorHandler;
  readonly #firstFold: (() => FirstFold | undefined) | undefined;

  /**
   * `firstFold`, asked once per new view, may return what rides along the view's first fold: DCP's index, built in
   * the same pass and adopted when the fold is done (one fold of a long log, not two).
   */
  constructor(onListenerError: ViewListenerErrorHandler, firstFold?: () => FirstFold | undefined) {
    this.#onListenerError = onListenerError;
    this.#firstFold = firstFold;
  }

  /** The view of `session`, built (one fold of its log) on first contact. */
  viewOf(session: DshSession): DshSessionView {
    let view = this.#views.get(session);
    if (view === undefined) {
      const rider = this.#firstFold?.();
      view = new DshSessionView(session, this.#onListenerError, rider?.observe);
      rider?.done(view);
      this.#views.set(session, view);
    }
    return view;
  }

  /** The view of `session` when DCP has met it, else `undefined`. */
  peek(session: DshSession): DshSessionView | undefined {
    return this.#views.get(session);
  }

  /** Hands a published event to its session's view, if DCP has met the session. O(1). */
  observe(session: DshSession, event: SessionEvent): void {
    this.#views.get(session)?.observe(event);
  }

  /** Removes the view of a session dsh disposed and returns it (for DCP's runtime to forget). */
  drop(session: DshSession): DshSessionView | undefined {
    const view = this.#views.get(session);
    this.#views.delete(session);
    return view;
  }

  /** Every view, in the order DCP met their sessions. */
  all(): DshSessionView[] {
    return [...this.#views.values()];
  }

  /** How many sessions have a view. */
  get size(): number {
    return this.#views.size;
  }

  /** Drops every view. */
  clear(): void {
    this.#views.clear();
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
}

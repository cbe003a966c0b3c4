/**
 * The DCP runtime of one plugin instance: the validated configuration, the work counters, and one index per live
 * session. An index is built by a cold replay the first time DCP meets a session (its load, from DCP's point of
 * view) and is then kept current by the session's append notifications (DCP.md §3).
 */
import type { DcpConfig } from '../../../protocol/dcp/config.js';
import type { ControlBody } from '../../../protocol/dcp/control-message.js';
import { globMatcher } from '../../../protocol/dcp/glob.js';
import type { PluginLogger } from '../../host-api/host-api.js';
import type { ContextWindowLookup, HostSession } from '../../host-api/host-api.js';
import type { PluginStorage } from '../../host-api/host-api.js';
import { replayDcpIndex } from './cold-replay.js';
import type { DcpIndexOptions } from './dcp-index.js';
import { DcpIndex } from './dcp-index.js';
import type { DcpSessionContext } from './dcp-session-context.js';
import { DomainStatsStore } from './domain-stats-store.js';
import type { FullLogTasks } from './ledger-service.js';
import { LedgerService } from './ledger-service.js';
import { DcpWorkCounters } from './work-counters.js';

/**
 * The context windows a cold replay uses for the nudge fold: the session's current `requestContext()` window for
 * its current (provider, model). The host's model registry is not part of the plugin context, so windows of other
 * models that earlier headers named are unknown here (their markers fold as "no pressure data").
 */
export function currentWindowLookup(session: HostSession): ContextWindowLookup {
  return (provider, model) => {
    const context = session.requestContext();
    return context !== undefined && context.provider === provider && context.model === model ? context.contextWindow : undefined;
  };
}

/** A queued control (§11.5): its body, the session it was queued for and the notifier of the command that queued it. */
export interface PendingControl {
  readonly body: ControlBody;
  /** The id of the session whose command queued it (dropped with the session, {@link DcpRuntime.forget}). */
  readonly sessionId: string;
  notify(text: string, level?: 'info' | 'warn' | 'error'): void;
}

/** Per-plugin DCP state. */
export class DcpRuntime {
  readonly config: DcpConfig;
  readonly counters: DcpWorkCounters;
  /** The compiled `protectedFilePatterns`. */
  readonly matchesProtectedFile: (path: string) => boolean;
  /**
   * Pending controls (§11.5): commandId → body, in memory only. Command ids are unique across sessions, so one
   * table serves every session of the plugin.
   */
  readonly pendingControls = new Map<string, PendingControl>();
  /** The cross-session aggregate store of `/dcp stats` (§15.3). */
  readonly domainStats: DomainStatsStore;
  /** The full-log folds behind `/dcp stats` (§19 D6: on the pool for large logs when tasks are wired). */
  readonly ledgers: LedgerService;
  readonly #logger: PluginLogger;
  readonly #indexes = new WeakMap<HostSession, DcpIndex>();
  /** The append subscription of every session DCP follows, by session. */
  readonly #followed = new Map<HostSession, () => void>();

  /**
   * `storage` is read whenever `/dcp stats` syncs: plugin storage may be missing or arrive late (HOST.md §11).
   * `fullLogTasks` moves large full-log folds to a task runner; without it they run on the calling thread.
   */
  constructor(
    config: DcpConfig,
    logger: PluginLogger,
    counters = new DcpWorkCounters(),
    storage: () => PluginStorage | undefined = () => undefined,
    fullLogTasks?: FullLogTasks,
  ) {
    this.config = config;
    this.counters = counters;
    this.domainStats = new DomainStatsStore(storage);
    this.ledgers = new LedgerService(fullLogTasks, logger);
    this.#logger = logger;
    this.matchesProtectedFile = globMatcher(config.protectedFilePatterns);
  }

  /** The index options this configuration implies. */
  indexOptions(): DcpIndexOptions {
    return {
      manualDefault: this.config.manualMode.default,
      nudgeMinRatio: this.config.nudge.minRatio,
      counters: this.counters,
      // §6.4: one warning per undecodable checkpoint; never in the log, never model-visible.
      onDiagnostic: (seq, diagnostic) =>
        this.#logger.warn(`DCP checkpoint s${seq} has unreadable metadata (${diagnostic.code}): ${diagnostic.message}`),
    };
  }

  /**
   * The index of `session`: built by a cold replay on first contact, then subscribed to the session's append
   * notifications. O(log) once, O(1) afterwards.
   */
  indexFor(session: HostSession): DcpIndex {
    const known = this.#indexes.get(session);
    if (known !== undefined) return known;
    const index = replayDcpIndex(session.events, this.indexOptions(), currentWindowLookup(session));
    this.#follow(session, index);
    return index;
  }

  /**
   * An index built by the caller's own fold of `session`'s log instead of a cold replay: a host whose session view
   * is itself built by folding the log event by event (`sessionctx/dsh-dcp`, docs/DSH-DCP.md §3) hands each event,
   * its surface delta and the view as it stands after that event to {@link DcpIndex.apply}, so the log is folded
   * once, not twice; then calls {@link adoptIndex}. Counts one fold, as a replay does.
   */
  createIndex(): DcpIndex {
    const index = new DcpIndex(this.indexOptions());
    index.counters.folds += 1;
    return index;
  }

  /**
   * Follows `session` with `index`, which the caller folded over the whole log so far ({@link createIndex}); from
   * here on it is the session's index, kept current by its append notifications. A session DCP follows already
   * keeps its index.
   */
  adoptIndex(session: HostSession, index: DcpIndex): void {
    if (!this.#indexes.has(session)) this.#follow(session, index);
  }

  #follow(session: HostSession, index: DcpIndex): void {
    this.#indexes.set(session, index);
    this.ledgers.follow(session);
    this.#followed.set(
      session,
      session.on('event', (event, delta) => {
        index.apply(event, delta, session);
        this.ledgers.follow(session);
      }),
    );
  }

  /**
   * Drops everything DCP holds for `session` (a session its host disposed): the append subscription, the index, the
   * ledger's byte log and the controls its commands queued. A later contact builds a fresh index by cold replay.
   * @returns whether DCP was following the session
   */
  forget(session: HostSession): boolean {
    const unsubscribe = this.#followed.get(session);
    for (const [commandId, control] of this.pendingControls) if (control.sessionId === session.id) this.pendingControls.delete(commandId);
    if (unsubscribe === undefined) return false;
    unsubscribe();
    this.#followed.delete(session);
    this.#indexes.delete(session);
    this.ledgers.forget(session);
    return true;
  }

  /** How many sessions DCP follows now (each has an index and an append subscription). */
  get followedSessions(): number {
    return this.#followed.size;
  }

  /** `session` with its index (built on first contact, as {@link indexFor}) and this runtime, as one value. */
  sessionContext(session: HostSession): DcpSessionContext {
    return { runtime: this, index: this.indexFor(session), session };
  }

  /** The plugin logger. */
  get logger(): PluginLogger {
    return this.#logger;
  }

  /** Stops following every session. */
  dispose(): void {
    for (const session of [...this.#followed.keys()]) this.forget(session);
  }
}

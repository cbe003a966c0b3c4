/**
 * The host API (HOST.md §1–§11) as interfaces: everything a plugin — DCP, the session-reference plugin — may
 * use of the harness host it runs in. `main/stand-in/host/` implements it (its classes say `implements`); plugins import
 * only this module, never a host class, so any host that satisfies these shapes can mount them.
 *
 * Types only: no classes, no functions, no values. Event payloads come from the typed vocabulary of
 * `protocol/event-map.ts` (`SessionEventMap`, extensible by declaration merging).
 */
import type { KnownEventType, RequestHeaderData, SessionEventMap, TypedEvent } from '../../protocol/event-map.js';
import type { ContentBlock, Message, MessageSource, SessionEvent, SessionHeader, ToolCallBlock } from '../../protocol/events.js';
import type { SurfaceDelta, SurfaceReader } from '../../protocol/surface-view.js';
import type { UserMessage } from '../../protocol/user-message.js';
import type { LiveSession } from '../engine/corpus/live-registry.js';
import type { SessionQuery } from '../engine/corpus/session-query.js';

// ---------------------------------------------------------------------------------------------------------------
// Session: append, surface, derived messages, turn/step and bracket accessors (HOST.md §2)
// ---------------------------------------------------------------------------------------------------------------

/** An event type a session accepts: a key of {@link SessionEventMap}, including plugin-declared ones. */
export type HostEventType = KnownEventType;

/** Surface metadata and markers of a live append (HOST.md §2.2). */
export interface AppendOptions {
  readonly surfaceOp?: unknown;
  readonly sourceEventSeqs?: unknown;
  /** Rejected on live appends: sessionctx never writes `ignorable` (SESSION-LOG.md §2.2); seeds may carry it. */
  readonly ignorable?: true;
}

/** An append listener (HOST.md §2.3). `delta` is `undefined` for log-only events. Listeners must not append. */
export type SessionEventListener = (event: SessionEvent, delta: SurfaceDelta | undefined) => void;

/** The model's context window in tokens for (provider, model), or `undefined` when unknown (HOST.md §2.5). */
export type ContextWindowLookup = (provider: string, model: string) => number | undefined;

/** `requestContext()` (HOST.md §2.5), keys in this order; `contextWindow` is absent when unknown. */
export interface RequestContext {
  readonly provider: string;
  readonly model: string;
  readonly contextWindow?: number;
}

/** `openStep()`: the open turn and step. */
export interface OpenStep {
  readonly turn: number;
  readonly step: number;
}

/** An open, non-stale compaction bracket as `openBrackets()` returns it (HOST.md §2.5). */
export interface OpenBracket {
  readonly compactionId: string;
  /** The bracket's turn, or `null` for a standalone bracket. */
  readonly turn: number | null;
  readonly startSeq: number;
  /** The seq of its `compaction/summary`, once recorded. */
  readonly summarySeq?: number;
}

/** `measure()` (HOST.md §4.2), keys in this order; `contextWindow` and `ratio` only when the window is known. */
export interface TokenMeasure {
  /** Σ `estimateEvent` over the current surface nodes. */
  readonly surfaceTokens: number;
  /** Σ `estimateMessage` over `deriveMessages()` (assistant messages with empty content are skipped). */
  readonly messageTokens: number;
  /** `⌈len(system)/4⌉ + 4` for the latest header's system text, else 0. */
  readonly systemTokens: number;
  /** Σ `⌈len(JSON.stringify(def))/4⌉ + 4` over the latest header's tools. */
  readonly toolsTokens: number;
  /** `messageTokens + systemTokens + toolsTokens`. */
  readonly totalTokens: number;
  /** The running surface total priced by the claim rule. */
  readonly projectedTokens: number;
  readonly contextWindow?: number;
  /** `totalTokens / contextWindow`. */
  readonly ratio?: number;
}

/** The token meter as a session exposes it (HOST.md §4.2); every figure is a heuristic estimate. */
export interface SessionMeter {
  /** The current figures. O(1). */
  measure(): TokenMeasure;
  /**
   * The cached `estimateEvent` of `seq` when that event is or was a surface node (shadowed nodes keep theirs),
   * else `undefined`. Writers use it for `shadowedTokenCount = Σ estimateOf(shadowed)`. O(1).
   */
  estimateOf(seq: number): number | undefined;
}

/** Read access to the running tool-pairing count (HOST.md §5). */
export interface ToolPairingReader {
  /**
   * The count over the nodes at positions `0..position` inclusive; 0 for `position = -1`. O(1) amortised.
   * Call with `-1 <= position < surface.length`.
   */
  countThrough(position: number): number;
}

/** What the tool-pairing balance functions read from a session (HOST.md §5). */
export interface PairingSource {
  readonly surface: SurfaceReader;
  readonly toolPairing: ToolPairingReader;
}

/**
 * A live session (HOST.md §2): an append-only, validated event log with an indexed surface. Every append is
 * atomic: a refused append throws and changes nothing.
 */
export interface HostSession extends LiveSession, PairingSource {
  /** The session id. */
  readonly id: string;
  /** The frozen session header. */
  readonly header: SessionHeader;
  /** The whole log (seq `i` at index `i`); events are deep-frozen. */
  readonly events: readonly SessionEvent[];
  /** The indexed current surface (HOST.md §2.4). */
  readonly surface: SurfaceReader;
  /** The token meter (HOST.md §4.2). */
  readonly meter: SessionMeter;
  /** The running tool-pairing count (HOST.md §5). */
  readonly toolPairing: ToolPairingReader;
  /**
   * Appends one event (HOST.md §2.2) whose payload has the map's type for `type`; returns the stored,
   * deep-frozen event.
   * @param type - the event type (a key of {@link SessionEventMap}; plugins declare theirs by merging)
   * @param data - its payload
   * @param options - surface operation and source seqs
   * @returns the stored event
   */
  append<K extends HostEventType>(type: K, data: SessionEventMap[K], options?: AppendOptions): TypedEvent<K>;
  /**
   * Subscribes to append notifications (HOST.md §2.3).
   * @returns the unsubscribe function
   */
  on(name: 'event', listener: SessionEventListener): () => void;
  /** The model messages of the current surface (SESSION-LOG.md §5.4), frozen. */
  deriveMessages(): readonly Message[];
  /** The message a surface event carries, `undefined` for log-only events. O(1). */
  deriveEventMessage(event: SessionEvent): Message | undefined;
  /** The open turn, or `null`. */
  openTurn(): { readonly turn: number } | null;
  /** The open step with its turn, or `null`. */
  openStep(): OpenStep | null;
  /** The open, non-stale compaction brackets (at most one). */
  openBrackets(): readonly OpenBracket[];
  /** The greatest turn number started in the log, or `null`. */
  highestTurn(): number | null;
  /** The `data.header` of the latest `request/header` event, or `undefined`. */
  latestRequestHeader(): RequestHeaderData['header'] | undefined;
  /** `{provider, model, contextWindow?}` of the latest `request/header` (HOST.md §2.5), or `undefined`. */
  requestContext(): RequestContext | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Waterfalls and hooks (HOST.md §1, §6.3, §7.2)
// ---------------------------------------------------------------------------------------------------------------

/** One waterfall listener (HOST.md §6.3): it may call `next()` at most once; what it returns is its decision. */
export type WaterfallListener<P, D> = (payload: P, next: () => Promise<D>) => D | Promise<D>;

/**
 * The read-only payload of one pre-step. `messages` are the messages claimed for this step; `step` is the
 * number of steps already entered in this turn (0 at the turn's first pre-step, HOST.md §3.4 rule 3 note).
 */
export interface PreStepPayload {
  readonly agent: HostAgent;
  readonly session: HostSession;
  readonly messages: readonly UserMessage[];
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
}

/** Stop the turn as blocked. */
export interface RejectDecision {
  readonly kind: 'reject';
}

/** Enter a step with these messages as its decision messages (HOST.md §6.4). */
export interface EnterDecision {
  readonly kind: 'enter';
  readonly messages: readonly UserMessage[];
}

/** A pre-step decision. */
export type PreStepDecision = RejectDecision | EnterDecision;

/** An `agent/pre-step` listener. */
export type PreStepListener = WaterfallListener<PreStepPayload, PreStepDecision>;

/**
 * A runtime failure report (never logged, never model-visible). For a pre-step failure `error` is what the
 * listener threw and `messages` are the messages claimed for that step, which the loop does not re-queue.
 */
export interface AgentErrorEvent {
  readonly error: unknown;
  readonly turn: number;
  /** The pre-step index (0 = first pre-step) or, after `step/start`, the step number. */
  readonly step: number;
  readonly messages: readonly UserMessage[];
}

/** Every name `on` accepts, with its listener type. */
export interface HostHookMap {
  'agent/pre-step': PreStepListener;
  'tool/approve': ToolApproveListener;
  'agent/error': (event: AgentErrorEvent) => void;
  /** A command's text for the human (HOST.md §9 rule 4); never logged, never model-visible. */
  'command/notify': (notification: CommandNotification) => void;
  /**
   * Storage appeared (HOST.md §11). Fires once, for listeners registered before it appeared; later listeners
   * read `storage` directly. A listener's failure stays with that listener.
   */
  'storage/available': (storage: PluginStorage) => void | Promise<void>;
}

/** A host hook name. */
export type HostHookName = keyof HostHookMap;

/** `on` options. */
export interface ListenOptions {
  /** Put the listener in front of the list (the outermost waterfall position). */
  readonly prepend?: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Tools (HOST.md §7)
// ---------------------------------------------------------------------------------------------------------------

/**
 * What a tool execution sees. `parent` is only set for code-mode sub-calls, which this host does not run. The
 * stand-in host always sets `agent` and `session`; a host may run a tool outside an agent (dsh's tool runtime types
 * `exec.agent` optional), so a tool that needs them checks (DCP.md §7.3 step 2).
 */
export interface ToolExecutionContext {
  readonly callId: string;
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
  readonly agent?: HostAgent;
  readonly session?: HostSession;
  readonly parent?: unknown;
}

/** What a tool returns: text (one text block) or content blocks. */
export type ToolOutput = string | readonly ContentBlock[];

/**
 * A model tool. `parameters` is shown to the model and never enforced by the host: tools validate their own
 * arguments so that their error texts reach the model unchanged. `concurrencySafe` tools may run together with
 * neighbouring concurrency-safe calls; every other tool runs alone (HOST.md §7.3).
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
  readonly concurrencySafe?: boolean;
  execute(args: unknown, exec: ToolExecutionContext): ToolOutput | Promise<ToolOutput>;
}

/** The payload of the `tool/approve` waterfall. */
export interface ToolApprovePayload {
  readonly agent: HostAgent;
  readonly session: HostSession;
  readonly call: ToolCallBlock;
  readonly tool: ToolDefinition;
}

/** An approval decision; the default is allow. */
export type ToolApprovalDecision = { readonly kind: 'allow' } | { readonly kind: 'deny'; readonly reason: string };

/** A `tool/approve` listener. */
export type ToolApproveListener = WaterfallListener<ToolApprovePayload, ToolApprovalDecision>;

// ---------------------------------------------------------------------------------------------------------------
// Commands and notifications (HOST.md §9)
// ---------------------------------------------------------------------------------------------------------------

/** A command's answer to the human. Nothing of it enters model history. */
export interface CommandResult {
  readonly kind: 'success' | 'error';
  readonly text: string;
}

/** How prominently a notification is shown. */
export type CommandNotifyLevel = 'info' | 'warn' | 'error';

/** A text a command shows to the human, now or later; never logged, never model-visible. */
export interface CommandNotification {
  readonly commandId: string;
  /** The command's name (no slash). */
  readonly name: string;
  readonly text: string;
  readonly level: CommandNotifyLevel;
}

/** What a handler receives (HOST.md §9 rule 4). */
export interface CommandContext {
  readonly agent: HostAgent;
  readonly session: HostSession;
  readonly commandId: string;
  /**
   * Queues `message` through `agent.followup`. A plugin-sourced message (`source.kind === 'plugin'`) is queued
   * as a frozen copy with `source.commandId` set to this command's id (same message id); other messages as
   * they are.
   */
  followup(message: UserMessage): void;
  /** Shows `text` to the human (default level `info`). Callable after the handler returned, e.g. after a control turn. */
  notify(text: string, level?: CommandNotifyLevel): void;
}

/**
 * A slash command. `name` has no slash (`dcp`, `dcp-compress`); `hint` describes the arguments; `description` is the
 * one-line summary a host's command list shows (hosts that list commands, such as dsh, require one).
 */
export interface CommandDefinition {
  readonly name: string;
  readonly hint?: string;
  readonly description?: string;
  handler(context: CommandContext, args: string | undefined): CommandResult | Promise<CommandResult>;
}

// ---------------------------------------------------------------------------------------------------------------
// System sections (HOST.md §8) and storage (HOST.md §11)
// ---------------------------------------------------------------------------------------------------------------

/** A system-prompt section. `render()` must be deterministic for a fixed configuration. */
export interface SystemSection {
  readonly name: string;
  readonly order: number;
  render(): string;
}

/** `open` options: the schema version of the domain. Values written under one version are not seen under another. */
export interface StorageOpenOptions {
  readonly version: number;
}

/** One stored entry as `list()` returns it. */
export interface StorageEntry {
  readonly key: string;
  readonly value: unknown;
}

/**
 * An open domain. Reads see completed writes; writes to one domain are applied in call order. Values are JSON
 * (SESSION-LOG.md §2.4 rule 2's lossless JSON); each read returns a fresh copy. After `close()` every call
 * rejects.
 */
export interface StorageDomain {
  /** The value under `key`, or `undefined`. */
  get(key: string): Promise<unknown>;
  /** Stores `value` under `key`; rejects (and keeps the old value) when the value is not JSON or the write fails. */
  put(key: string, value: unknown): Promise<void>;
  /** Every entry, sorted by key (code-unit order). */
  list(): Promise<readonly StorageEntry[]>;
  /** Releases the handle. Idempotent. */
  close(): Promise<void>;
}

/** The storage a host may hand to plugins (HOST.md §11). */
export interface PluginStorage {
  /**
   * Where this storage keeps its data, in words `/dcp stats` shows (`persistent domain: current (<scope>)`); absent for
   * the usual per-process storage (`single-process scope`).
   */
  readonly scope?: string;
  /** Opens `domain` at `version`. Domain names are `[A-Za-z0-9][A-Za-z0-9_.-]*`; versions non-negative safe integers. */
  open(domain: string, options: StorageOpenOptions): Promise<StorageDomain>;
}

// ---------------------------------------------------------------------------------------------------------------
// Agent and plugin context (HOST.md §1, §6)
// ---------------------------------------------------------------------------------------------------------------

/** Why a running turn is aborted (SESSION-LOG.md §3.4 `aborted` reasons a host may give). */
export type TurnAbortReason =
  | { readonly kind: 'user' }
  | { readonly kind: 'parent' }
  | { readonly kind: 'disposed' }
  | { readonly kind: 'hook'; readonly reason: string };

/** The agent loop of one session as plugins see it (HOST.md §6). */
export interface HostAgent {
  /** The agent id: its session's id. */
  readonly id: string;
  /** The session this agent writes. */
  readonly session: HostSession;
  /** True while a turn is open. */
  readonly running: boolean;
  /** The registered tools in registration order. */
  readonly tools: readonly ToolDefinition[];
  /** The registered commands in registration order. */
  readonly commands: readonly CommandDefinition[];
  /** The plugin storage (HOST.md §11), or `undefined` while none is wired. */
  readonly storage: PluginStorage | undefined;
  /**
   * Subscribes to a host event or joins a waterfall (HOST.md §1).
   * @returns the unsubscribe function
   */
  on<K extends HostHookName>(name: K, listener: HostHookMap[K], options?: ListenOptions): () => void;
  /** Adds a model tool; a second tool with the same name throws. */
  registerTool(definition: ToolDefinition): void;
  /** Adds a slash command (HOST.md §9 rule 1); a second command with the same name throws. */
  registerCommand(definition: CommandDefinition): void;
  /** Adds a system-prompt section (HOST.md §8). */
  registerSystemSection(section: SystemSection): void;
  /** Runs a command line such as `/dcp stats` (HOST.md §9); the result is for the human only. */
  runCommand(input: string, source?: MessageSource): Promise<CommandResult>;
  /** Queues human input as a user message with `source {kind:'user'}` and returns it (HOST.md §6.1). */
  prompt(content: string | readonly ContentBlock[]): UserMessage;
  /** Queues `message` for a later turn. */
  followup(message: UserMessage): void;
  /** Queues `message` for the next step of the running turn; without a running turn it is a followup. */
  steer(message: UserMessage): void;
  /** Aborts the running turn's signal (HOST.md §6.2); does nothing when no turn runs. */
  abort(reason?: TurnAbortReason): void;
  /** Resolves when the inbox is empty and no turn is running. */
  runUntilIdle(): Promise<void>;
  /** Registers cleanup; `dispose()` calls the functions in reverse order. */
  addDisposer(fn: () => void | Promise<void>): void;
  /** Aborts a running turn with reason `disposed`, then runs the cleanup functions in reverse order. */
  dispose(): Promise<void>;
}

/** Plugin diagnostics; never written to the log, never model-visible. */
export interface PluginLogger {
  debug(text: string, detail?: unknown): void;
  info(text: string, detail?: unknown): void;
  warn(text: string, detail?: unknown): void;
  error(text: string, detail?: unknown): void;
}

/** The live session registry as plugins see it (HOST.md §10). */
export interface SessionDirectory {
  /** The live session with this id, or `undefined`. */
  get(id: string): HostSession | undefined;
  /** The live session ids. */
  list(): string[];
}

/** The plugin context (HOST.md §1): the one object a plugin receives. */
export interface PluginContext {
  /**
   * Subscribes to a host event or joins a waterfall.
   * @returns the unsubscribe function
   */
  on<K extends HostHookName>(name: K, listener: HostHookMap[K], options?: ListenOptions): () => void;
  registerTool(definition: ToolDefinition): void;
  registerCommand(definition: CommandDefinition): void;
  registerSystemSection(section: SystemSection): void;
  /** The plugin's frozen configuration for `namespace`, or `undefined` when none was given. */
  config<T = unknown>(namespace: string): T | undefined;
  readonly logger: PluginLogger;
  readonly sessions: SessionDirectory | undefined;
  readonly sessionQuery: SessionQuery | undefined;
  /**
   * Optional storage (HOST.md §11), read at each access: it may appear after the plugin started, and then
   * `on('storage/available', fn)` fires once. A failing `storage/available` listener is logged, nothing more.
   */
  readonly storage: PluginStorage | undefined;
  /** Registers cleanup; the host calls the functions in reverse registration order. */
  dispose(fn: () => void | Promise<void>): void;
}

/** A plugin: named, applied once to its context. */
export interface Plugin {
  readonly name: string;
  apply(context: PluginContext): void;
}

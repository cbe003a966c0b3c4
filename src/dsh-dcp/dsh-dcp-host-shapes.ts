/**
 * The parts of a real dsh host that `sessionctx/dsh-dcp` touches, as structural types (docs/DSH-DCP.md §2). No dsh
 * package is imported for them: the plugin mounts on any host whose objects have these shapes (dsh 0.1.0-rc.6 with
 * cordis 4.0.1, 0.1.0-rc.8 with cordis 4.0.4 and later), and the shapes name exactly what it relies on.
 */
import type { ContentBlock, SessionEvent, SessionHeader } from '../protocol/events.js';
import type { UserMessage } from '../protocol/user-message.js';

/** What dsh's `Session.append` accepts as its third argument for a surface event (`SurfaceIntent`). */
export interface DshSurfaceIntent {
  readonly surfaceOp?: unknown;
  readonly sourceEventSeqs?: unknown;
}

/**
 * A live dsh `Session` (`@deepseek-ai/dsh-session`). `events` is an immutable snapshot rebuilt after every append
 * (O(n) to read once the log grew), so the plugin reads it only when it first meets a session.
 */
export interface DshSession {
  readonly id: string;
  readonly header: SessionHeader;
  readonly events: readonly SessionEvent[];
  /** The ordered surface: seqs of the current surface nodes. */
  readonly surface: { readonly nodes: readonly number[] };
  /** Appends one event and publishes it (`session/event`) before returning. Throws when dsh refuses it. */
  append(type: string, data: unknown, ...intent: DshSurfaceIntent[]): SessionEvent;
  /** The derived model messages (dsh's own fold). */
  deriveMessages(): readonly unknown[];
}

/** A dsh agent (`@deepseek-ai/dsh-agent` `Agent`): the members the plugin uses. */
export interface DshAgent {
  readonly id: string;
  readonly session: DshSession;
  readonly status: 'idle' | 'running';
  followup(message: UserMessage): void;
  steer(message: UserMessage): void;
  cancel(cause: { readonly kind: string; readonly reason?: string }): void;
  whenIdle(): Promise<void>;
}

/** The `agent/pre-step` payload (`@deepseek-ai/dsh-agent`). `step` is 1 at a turn's first pre-step. */
export interface DshPreStepPayload {
  readonly agent: DshAgent;
  readonly messages: readonly UserMessage[];
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
}

/** A pre-step decision of the waterfall. */
export type DshPreStepDecision = { readonly kind: 'reject' } | { readonly kind: 'enter'; readonly messages: UserMessage[] };

/** The execution context dsh's tool runtime hands a tool (`ToolRunContext`): the members the plugin uses. */
export interface DshToolRunContext {
  readonly callId: string;
  readonly agent?: DshAgent;
  /** Set for Code Mode sub-dispatches (`run_code`), never for a model-direct call. */
  readonly parent?: unknown;
  readonly signal: AbortSignal;
}

/** A tool as dsh's `ctx.tools.register` takes it (`ToolDefinition`; `output` is mandatory since rc.6). */
export interface DshToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
  readonly output: {
    readonly schema: unknown;
    render(args: unknown, value: unknown): ContentBlock[];
  };
  execute(args: unknown, exec: DshToolRunContext): Promise<unknown>;
  isConcurrencySafe?(args: unknown): boolean;
}

/** `ctx.tools` (`@deepseek-ai/dsh-tools`): registration only. */
export interface DshToolRuntime {
  register(definition: DshToolDefinition): () => void;
}

/** One command invocation (`@deepseek-ai/dsh-commands` `CommandInvocation`). `rawInput` keeps the separator. */
export interface DshCommandInvocation {
  readonly commandId: string;
  readonly agent: DshAgent;
  readonly rawInput: string;
  readonly signal: AbortSignal;
}

/** A command result as dsh's registry accepts it. */
export type DshCommandResult = { readonly kind: 'success'; readonly text?: string } | { readonly kind: 'error'; readonly text: string };

/** A command as `ctx.commands.register` takes it. */
export interface DshCommandDefinition {
  readonly name: string;
  readonly description: string;
  readonly input?: { readonly hint: string };
  handler(invocation: DshCommandInvocation): DshCommandResult | Promise<DshCommandResult>;
}

/** `ctx.commands` (`@deepseek-ai/dsh-commands`): registration only. */
export interface DshCommandRuntime {
  register(definition: DshCommandDefinition): () => void;
}

/** `ctx.systemPrompt` (`@deepseek-ai/dsh-system-prompt`): section registration only. */
export interface DshSystemPrompt {
  section(section: { readonly name: string; readonly order: number; readonly text: string | (() => string) }): () => void;
}

/** `ctx.sessions` (`@deepseek-ai/dsh-session`): the live session store. */
export interface DshSessionStore {
  get(id: string): DshSession | undefined;
  list(): readonly DshSession[];
}

/** One table of an open storage domain (`@deepseek-ai/dsh-storage-domain` `KvTable`). */
export interface DshKvTable {
  get(key: string): unknown;
  entries(): IterableIterator<[string, unknown]>;
  put(key: string, value: unknown): Promise<void>;
}

/** An open storage domain. */
export interface DshDomain {
  table(name: string): DshKvTable;
  close(): Promise<void>;
}

/** The declaration `open` takes (`DomainSpec`); a table's `valueSchema` only needs `parse`. */
export interface DshDomainSpec {
  readonly name: string;
  readonly version: number;
  readonly tables: Readonly<Record<string, { readonly valueSchema: { parse(value: unknown): unknown } }>>;
}

/** `ctx.storageDomain` (`@deepseek-ai/dsh-storage-domain` `DomainFacility`), optional in a host. */
export interface DshDomainFacility {
  open(spec: DshDomainSpec): Promise<DshDomain>;
}

/** A cordis logger facade (`ctx.logger(name)`): printf-style methods. */
export interface DshLogger {
  debug(format: string, ...params: unknown[]): void;
  info(format: string, ...params: unknown[]): void;
  warn(format: string, ...params: unknown[]): void;
  error(format: string, ...params: unknown[]): void;
}

/** A cordis plugin runtime as the registry lists it. */
export interface DshPluginRuntime {
  readonly name?: string;
  readonly fibers: Iterable<unknown>;
}

/** A cordis fiber as `internal/plugin` announces it. */
export interface DshFiber {
  readonly runtime: DshPluginRuntime | null;
}

/**
 * The cordis context of the plugin with the services it injects, loosely typed: dsh's event names are not in
 * cordis's own `Events`, and the services are dsh's.
 */
export interface DshDcpContext {
  readonly sessions: DshSessionStore;
  readonly systemPrompt: DshSystemPrompt;
  readonly tools: DshToolRuntime;
  readonly commands: DshCommandRuntime;
  readonly registry: { values(): Iterable<DshPluginRuntime> };
  logger(name: string): DshLogger;
  on(name: string, listener: (...args: never[]) => unknown, options?: { readonly prepend?: boolean }): () => void;
  emit(name: string, ...args: unknown[]): void;
  get(name: string): unknown;
  provide(name: string, value: unknown): () => void;
  effect(execute: () => () => void | Promise<void>, label?: string): unknown;
}

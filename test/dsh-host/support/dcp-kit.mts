/**
 * What the DCP real-host tests need of one dsh release, as values: the packages' plugins and classes, and the few
 * calls whose signatures differ between releases. `dcp-kit-rc8.mts` (this package, dsh 0.1.0-rc.8, cordis 4.0.4)
 * and `test/dsh-host-rc6/support/dcp-kit-rc6.mts` (dsh 0.1.0-rc.6, cordis 4.0.1) fill it from their own
 * `node_modules`, so one host builder and one scenario runner (`dcp-host.mts`, `dcp-scenario.mts`) drive both
 * releases the same way. Types only here; nothing of a dsh package is loaded by this file.
 */

/** A cordis plugin of any shape (function, class, `{apply}` object, module namespace). */
export type KitPlugin = unknown;

/** The cordis `Context` as the tests use it. */
export interface KitContext {
  plugin(plugin: KitPlugin, config?: unknown): PromiseLike<{ readonly state: number }> & { readonly state: number };
  on(name: string, listener: (...args: never[]) => unknown, options?: { readonly prepend?: boolean }): () => void;
  get(name: string): unknown;
  provide(name: string, value: unknown): () => void;
  readonly fiber: { dispose(): Promise<void> | void };
  readonly logger: {
    exporter(exporter: {
      levels?: Record<string, number>;
      export(message: { name: string; type: string; args: unknown[] }): void;
    }): unknown;
  };
  readonly [service: string]: unknown;
}

/** A dsh session as the tests read it. */
export interface KitSession {
  readonly id: string;
  readonly events: readonly { readonly type: string; readonly seq: number; readonly data: unknown; readonly surfaceOp?: unknown }[];
  readonly surface: { readonly nodes: readonly number[] };
  deriveMessages(): readonly unknown[];
}

/** A dsh agent as the tests drive it. */
export interface KitAgent {
  readonly id: string;
  readonly session: KitSession;
  readonly status: string;
  followup(message: unknown): void;
  steer(message: unknown): void;
  whenIdle(): Promise<void>;
}

/** A settled command execution (`CommandExecution`). */
export interface KitCommandExecution {
  readonly commandId: string;
  readonly result: { readonly kind: 'success' | 'error'; readonly text?: string };
}

/** One dsh release. */
export interface DcpDshKit {
  /** `dsh 0.1.0-rc.8`, `dsh 0.1.0-rc.6`. */
  readonly label: string;
  readonly Context: new () => KitContext;
  readonly plugins: {
    readonly llm: KitPlugin;
    readonly sessions: KitPlugin;
    readonly systemPrompt: KitPlugin;
    readonly tools: KitPlugin;
    readonly agents: KitPlugin;
    readonly agentLoop: KitPlugin;
    readonly commands: KitPlugin;
    readonly invariants: KitPlugin;
    readonly storage: KitPlugin;
    readonly storageDomain: KitPlugin;
  };
  /** The `./invariant` companions of the packages mounted (agent loop, session, tools, commands, compaction, …). */
  readonly invariantCompanions: readonly KitPlugin[];
  /** `@deepseek-ai/dsh-llm`'s adapter base class, error class, call-id brand and message builder. */
  readonly LlmAdapter: abstract new () => object;
  readonly LlmError: new (message: string, code: string, options?: object) => Error;
  readonly CallId: (id: string) => string;
  readonly createUserMessage: (input: { content: unknown[]; source: { kind: string } }) => { readonly id: string };
  /** `@deepseek-ai/dsh-session`'s brand and cold fold: a detached session from cloned events, and the folded header. */
  readonly SessionId: (id: string) => string;
  coldDerivedMessages(id: string, events: readonly unknown[]): readonly unknown[];
  foldRequestHeader(events: readonly unknown[]): { readonly system?: string; readonly tools?: readonly unknown[] } | undefined;
  /** `ctx.commands.execute` (rc.6: `(agent, line, signal)`; rc.8 adds the composer images before the signal). */
  executeCommand(ctx: KitContext, agent: KitAgent, line: string, signal: AbortSignal): Promise<KitCommandExecution | undefined>;
  /** `sessionctx/dsh-dcp` as this package installed it (the packed tarball). */
  readonly dcpPlugin: KitPlugin;
}

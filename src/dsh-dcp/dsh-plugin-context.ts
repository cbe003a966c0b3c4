/**
 * The host API's plugin context over a real dsh host (docs/DSH-DCP.md §2, §4): what `dcpPlugin()` registers through
 * it lands in dsh's own services — tools in `ctx.tools`, commands in `ctx.commands`, sections in `ctx.systemPrompt`,
 * the pre-step listener in dsh's `agent/pre-step` waterfall — and every payload it receives carries the view of the
 * session and a facade of the agent instead of dsh's objects. Registrations are cordis effects of the plugin's fiber,
 * so they go when the fiber goes.
 */
import type {
  AgentErrorEvent,
  CommandDefinition,
  CommandNotification,
  HostHookMap,
  HostHookName,
  ListenOptions,
  PluginContext,
  PluginLogger,
  PluginStorage,
  PreStepListener,
  SessionDirectory,
  SystemSection,
  ToolDefinition,
} from '../main/host-api/host-api.js';
import type { SessionQuery } from '../main/engine/corpus/session-query.js';
import { DshAgentFacade } from './dsh-agent-facade.js';
import type { CommandNotifier } from './dsh-command-adapter.js';
import { dshCommand } from './dsh-command-adapter.js';
import { registerOwn } from './dsh-dcp-conflict.js';
import { DshDcpError } from './dsh-dcp-error.js';
import type { DshAgent, DshDcpContext, DshPreStepDecision, DshPreStepPayload } from './dsh-dcp-host-shapes.js';
import type { DshSessionView } from './dsh-session-view.js';
import type { SessionViews } from './session-views.js';
import type { DshAgentResolver } from './dsh-tool-adapter.js';
import { dshTool } from './dsh-tool-adapter.js';

/** What the context is built from. */
export interface DshPluginContextOptions {
  readonly ctx: DshDcpContext;
  /** The `dcp` namespace as the host configured the plugin. */
  readonly config: unknown;
  readonly logger: PluginLogger;
  readonly views: SessionViews;
  /** The storage DCP reads at each sync. */
  readonly storage: () => PluginStorage | undefined;
  /** Where command notices go besides this context's `command/notify` listeners. */
  readonly notify: (notification: CommandNotification, agent: DshAgent) => void;
}

/** One plugin's context on a dsh host. */
export class DshPluginContext implements PluginContext, DshAgentResolver {
  readonly logger: PluginLogger;
  readonly sessions: SessionDirectory;
  readonly sessionQuery: SessionQuery | undefined = undefined;
  readonly #options: DshPluginContextOptions;
  readonly #facades = new WeakMap<DshAgent, DshAgentFacade>();
  readonly #tools: ToolDefinition[] = [];
  readonly #commands: CommandDefinition[] = [];
  readonly #notifyListeners = new Set<HostHookMap['command/notify']>();
  readonly #disposers: Array<() => void | Promise<void>> = [];

  constructor(options: DshPluginContextOptions) {
    this.#options = options;
    this.logger = options.logger;
    this.sessions = options.views.directory(options.ctx.sessions);
  }

  get storage(): PluginStorage | undefined {
    return this.#options.storage();
  }

  /** The view of the agent's session (built on first contact). */
  view(agent: DshAgent): DshSessionView {
    return this.#options.views.viewOf(agent.session);
  }

  /** The view of the agent's session once its first fold is done (a long log is folded in slices first). */
  ready(agent: DshAgent): DshSessionView | Promise<DshSessionView> {
    return this.#options.views.ready(agent.session);
  }

  /** The host-API face of a dsh agent, one per agent. */
  facade(agent: DshAgent): DshAgentFacade {
    let facade = this.#facades.get(agent);
    if (facade === undefined) {
      facade = new DshAgentFacade(agent, {
        session: this.view(agent),
        tools: () => this.#tools,
        commands: () => this.#commands,
        storage: () => this.storage,
      });
      this.#facades.set(agent, facade);
    }
    return facade;
  }

  on<K extends HostHookName>(name: K, listener: HostHookMap[K], options?: ListenOptions): () => void {
    const { ctx } = this.#options;
    switch (name) {
      case 'agent/pre-step': {
        const preStep = listener as PreStepListener;
        return ctx.on(
          'agent/pre-step',
          ((payload: DshPreStepPayload, next: () => Promise<DshPreStepDecision>): Promise<DshPreStepDecision> => {
            const run = (): Promise<DshPreStepDecision> => {
              const hostPayload = {
                agent: this.facade(payload.agent),
                session: this.view(payload.agent),
                messages: payload.messages,
                turn: payload.turn,
                step: payload.step,
                signal: payload.signal,
              };
              // No `.then` of our own (every extra hop is paid by every step): dsh types the decision's messages as a
              // mutable array and never writes to it, so the host API's readonly decision is passed as it is.
              const decision = preStep(hostPayload, next) as DshPreStepDecision | Promise<DshPreStepDecision>;
              return decision instanceof Promise ? decision : Promise.resolve(decision);
            };
            // The first pre-step of a long restored session waits for the view's sliced fold; the host keeps serving.
            const ready = this.ready(payload.agent);
            return ready instanceof Promise ? ready.then(run) : run();
          }) as (...args: never[]) => unknown,
          options?.prepend === true ? { prepend: true } : undefined,
        );
      }
      case 'agent/error': {
        const onError = listener as HostHookMap['agent/error'];
        return ctx.on('agent/error', ((payload: { agent: DshAgent; turn: number; step: number; error: unknown }) => {
          const event: AgentErrorEvent = { error: payload.error, turn: payload.turn, step: payload.step, messages: [] };
          onError(event);
        }) as (...args: never[]) => unknown);
      }
      case 'command/notify': {
        const onNotify = listener as HostHookMap['command/notify'];
        this.#notifyListeners.add(onNotify);
        return () => {
          this.#notifyListeners.delete(onNotify);
        };
      }
      default:
        throw new DshDcpError('DSH_DCP_UNSUPPORTED', `sessionctx/dsh-dcp: the host hook "${name}" is not available on a dsh host`);
    }
  }

  registerTool(definition: ToolDefinition): void {
    registerOwn('tool', definition.name, () => this.#options.ctx.tools.register(dshTool(definition, this)));
    this.#tools.push(definition);
  }

  registerCommand(definition: CommandDefinition): void {
    const notify: CommandNotifier = (invocation, name, text, level) => {
      const notification: CommandNotification = { commandId: invocation.commandId, name, text, level };
      for (const listener of this.#notifyListeners) listener(notification);
      this.#options.notify(notification, invocation.agent);
    };
    registerOwn('command', definition.name, () => this.#options.ctx.commands.register(dshCommand(definition, this, notify)));
    this.#commands.push(definition);
  }

  registerSystemSection(section: SystemSection): void {
    registerOwn('section', section.name, () =>
      this.#options.ctx.systemPrompt.section({ name: section.name, order: section.order, text: () => section.render() }),
    );
  }

  config<T = unknown>(namespace: string): T | undefined {
    return namespace === 'dcp' ? (this.#options.config as T | undefined) : undefined;
  }

  dispose(fn: () => void | Promise<void>): void {
    this.#disposers.push(fn);
  }

  /** Runs the cleanup functions, last registered first; a failing one is logged and the rest still run. */
  async close(): Promise<void> {
    while (this.#disposers.length > 0) {
      const fn = this.#disposers.pop() as () => void | Promise<void>;
      try {
        await fn();
      } catch (error) {
        this.logger.warn(`sessionctx/dsh-dcp: a cleanup failed: ${error instanceof Error ? error.message : String(error)}`, error);
      }
    }
  }
}

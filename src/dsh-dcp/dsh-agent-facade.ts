/**
 * A dsh agent as the host API's `HostAgent` (docs/DSH-DCP.md §3): what a pre-step, a tool call or a command hands a
 * plugin as `agent`. Inbox, cancel and idle map to dsh's agent; a plugin registers tools, commands and sections
 * through its context (which maps them to dsh's services), so the agent's own registration methods, `on`,
 * `runCommand` and the disposer list are not offered (`DSH_DCP_UNSUPPORTED`). DCP reads none of them.
 */
import type { ContentBlock } from '../protocol/events.js';
import type { UserMessage } from '../protocol/user-message.js';
import { createUserMessage } from '../protocol/user-message.js';
import type {
  CommandDefinition,
  CommandResult,
  HostAgent,
  HostHookMap,
  HostHookName,
  HostSession,
  PluginStorage,
  SystemSection,
  ToolDefinition,
  TurnAbortReason,
} from '../main/host-api/host-api.js';
import { DshDcpError } from './dsh-dcp-error.js';
import type { DshAgent } from './dsh-dcp-host-shapes.js';

/** What the facade reads from the plugin: the view of the agent's session and what the plugin registered. */
export interface AgentFacadeHost {
  readonly session: HostSession;
  readonly tools: () => readonly ToolDefinition[];
  readonly commands: () => readonly CommandDefinition[];
  readonly storage: () => PluginStorage | undefined;
}

function unsupported(member: string): DshDcpError {
  return new DshDcpError(
    'DSH_DCP_UNSUPPORTED',
    `sessionctx/dsh-dcp: agent.${member} is not available on a dsh host; register through the plugin context or use dsh's own agent API`,
  );
}

/** One dsh agent behind the host API. */
export class DshAgentFacade implements HostAgent {
  readonly #agent: DshAgent;
  readonly #host: AgentFacadeHost;

  constructor(agent: DshAgent, host: AgentFacadeHost) {
    this.#agent = agent;
    this.#host = host;
  }

  get id(): string {
    return this.#agent.id;
  }

  get session(): HostSession {
    return this.#host.session;
  }

  get running(): boolean {
    return this.#agent.status === 'running';
  }

  /** The tools this plugin registered, in registration order. */
  get tools(): readonly ToolDefinition[] {
    return this.#host.tools();
  }

  /** The commands this plugin registered, in registration order. */
  get commands(): readonly CommandDefinition[] {
    return this.#host.commands();
  }

  get storage(): PluginStorage | undefined {
    return this.#host.storage();
  }

  on<K extends HostHookName>(_name: K, _listener: HostHookMap[K]): () => void {
    throw unsupported('on');
  }

  registerTool(_definition: ToolDefinition): void {
    throw unsupported('registerTool');
  }

  registerCommand(_definition: CommandDefinition): void {
    throw unsupported('registerCommand');
  }

  registerSystemSection(_section: SystemSection): void {
    throw unsupported('registerSystemSection');
  }

  runCommand(): Promise<CommandResult> {
    return Promise.reject(unsupported('runCommand'));
  }

  /** Queues human input as dsh does: a follow-up user message with `source {kind:'user'}`. */
  prompt(content: string | readonly ContentBlock[]): UserMessage {
    const blocks: ContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
    const message = createUserMessage({ content: blocks, source: { kind: 'user' } });
    this.#agent.followup(message);
    return message;
  }

  followup(message: UserMessage): void {
    this.#agent.followup(message);
  }

  steer(message: UserMessage): void {
    this.#agent.steer(message);
  }

  abort(reason: TurnAbortReason = { kind: 'user' }): void {
    this.#agent.cancel(reason);
  }

  runUntilIdle(): Promise<void> {
    return this.#agent.whenIdle();
  }

  addDisposer(): void {
    throw unsupported('addDisposer');
  }

  dispose(): Promise<void> {
    return Promise.reject(unsupported('dispose'));
  }
}

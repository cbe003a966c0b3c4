/**
 * A real dsh host for the DCP tests, built from one release's kit (`dcp-kit.mts`): dsh's own LLM runtime, session
 * store, system prompt, tool runtime, agent registry and loop, command registry, the invariant registry with every
 * mounted package's `./invariant` companion, optionally dsh's storage hub with a memory backend and the storage-domain
 * facility, and `sessionctx/dsh-dcp` (or nothing, or any other DCP plugin). Only the model is scripted; ids and the
 * clock are seeded (`harness/determinism.mts`), so a run is reproducible and two releases can be compared.
 *
 * Every request is checked when the scripted adapter receives it (after dsh's whole `llm/stream` waterfall, the
 * invariant companion's request check included): its messages must equal a cold fold of the session log as it stands
 * (dsh's `Session.create` over cloned events), its system and tools the folded request header, and the view
 * sessionctx/dsh-dcp keeps of the session must list dsh's surface nodes. Mismatches are collected, never thrown, so a
 * test reports them all.
 */
import { createClock, createUuidSequence, leaseDeterminism } from '../harness/determinism.mts';
import type { DcpDshKit, KitAgent, KitCommandExecution, KitContext, KitPlugin, KitSession } from './dcp-kit.mts';

/** cordis `FiberState.ACTIVE`. */
const FIBER_ACTIVE = 2;

/** The scripted model's route, as dsh-dcp's fixture generator named it. */
export const SCRIPTED_PROVIDER = 'scripted';
export const SCRIPTED_MODEL = 'scripted-1';

/** The usage the fixture generator's model reports for every reply. */
const USAGE = Object.freeze({ inputTokens: 10, outputTokens: 5 });

/** One scripted reply, in `sessionctx script run`'s scenario form. */
export interface ScriptReply {
  readonly text?: string;
  readonly reasoning?: string;
  readonly toolCalls?: ReadonlyArray<{ readonly id?: string; readonly name: string; readonly args?: unknown }>;
  /** A provider failure with this message. */
  readonly error?: string;
}

/** A canned tool, in the scenario form. */
export interface CannedTool {
  readonly name: string;
  readonly description?: string;
  readonly result?: string;
  readonly results?: readonly string[];
  readonly error?: string;
}

/** One model request as the adapter received it (detached). */
export interface RecordedModelRequest {
  readonly messages: readonly Record<string, unknown>[];
  readonly system: string;
  readonly tools: readonly { name: string; description: string; parameters: unknown }[];
}

/** A log line some plugin wrote (cordis logger). */
export interface LogLine {
  readonly name: string;
  readonly type: string;
  readonly text: string;
}

/** Options of {@link bootDcpHost}. */
export interface DcpHostOptions {
  readonly kit: DcpDshKit;
  /** The `dcp` namespace for sessionctx/dsh-dcp; `null` boots without it. Default `{}`. */
  readonly dcp?: unknown;
  /** The scripted replies, in order. */
  readonly replies?: readonly ScriptReply[];
  readonly tools?: readonly CannedTool[];
  /** The model's context window (dsh records it in `request/context`); none by default. */
  readonly contextWindow?: number;
  /** Mount dsh's storage hub, a memory backend and the storage-domain facility. Default false. */
  readonly storage?: boolean;
  /** Plugins mounted before sessionctx/dsh-dcp (after the core) and after it. */
  readonly before?: readonly KitPlugin[];
  readonly after?: readonly KitPlugin[];
  /** Seed of the id sequence. */
  readonly seed?: string;
  /** Check every request as the module comment says (default true; benchmarks turn it off, it costs O(log) per request). */
  readonly checks?: boolean;
  /** Mount the invariant registry and the companions (default true). */
  readonly invariants?: boolean;
  /** Keep a detached copy of every request (default true; `false` keeps only their number, for benchmarks). */
  readonly record?: boolean;
  /** Seed the ids and script the clock (default true); benchmarks use the platform's own. */
  readonly deterministic?: boolean;
}

/** A booted host. */
export interface DcpHost {
  readonly ctx: KitContext;
  readonly kit: DcpDshKit;
  readonly requests: readonly RecordedModelRequest[];
  /** Every request-time check that failed (empty when all held). */
  readonly mismatches: readonly string[];
  /** Every `agent/error`. */
  readonly agentErrors: readonly unknown[];
  /** Every line a plugin logged (info, warn, error). */
  readonly logs: readonly LogLine[];
  createAgent(id: string, options?: { readonly cwd?: string; readonly seed?: readonly unknown[] }): Promise<KitAgent>;
  /** Disposes one agent's handle: dsh stops it and disposes its session (`session/disposed`). */
  closeAgent(agent: KitAgent): Promise<void>;
  /** A direct user message; resolves when the agent is idle again. */
  prompt(agent: KitAgent, text: string): Promise<void>;
  steer(agent: KitAgent, text: string): Promise<void>;
  /** A slash command through dsh's registry; resolves when the agent is idle again (a control turn ran). */
  command(agent: KitAgent, line: string): Promise<KitCommandExecution | undefined>;
  /** Disposes every agent, then the root fiber; restores the clock and the id source. Idempotent. */
  dispose(): Promise<void>;
}

/** A cordis log record's arguments as text: printf-style `%s`/`%d`/`%o` directives filled, the rest appended. */
function formatLogArgs(args: readonly unknown[]): string {
  const rest = [...args];
  const first = rest.shift();
  const show = (value: unknown): string =>
    value instanceof Error ? value.message : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof first !== 'string') return [first, ...rest].map(show).join(' ');
  const text = first.replace(/%([a-zA-Z%])/g, (match, kind: string) => (kind === '%' ? '%' : rest.length > 0 ? show(rest.shift()) : match));
  return [text, ...rest.map(show)].join(' ');
}

/** The memory storage backend of the tests: dsh's `KvFacet` over maps, provided as `storage.backend.memory`. */
function memoryBackendPlugin(): KitPlugin {
  return {
    name: 'sessionctx-test-memory-backend',
    inject: ['storage'],
    apply(ctx: KitContext) {
      const units = new Map<string, { tables: Record<string, Record<string, unknown>>; global: unknown }>();
      const backend = {
        kv: {
          open: async (descriptor: { name: string; version: number; tables: readonly string[] }) => {
            const key = `${descriptor.name}@${descriptor.version}`;
            const tables: Record<string, Record<string, unknown>> = Object.fromEntries(descriptor.tables.map((table) => [table, {}]));
            const unit = units.get(key) ?? { tables, global: null };
            units.set(key, unit);
            return {
              loadAll: async () => structuredClone(unit),
              putRecord: async (table: string, recordKey: string, value: unknown) => {
                (unit.tables[table] ??= {})[recordKey] = structuredClone(value);
              },
              deleteRecord: async (table: string, recordKey: string) => {
                delete unit.tables[table]?.[recordKey];
              },
              setGlobal: async (value: unknown) => {
                unit.global = structuredClone(value);
              },
              close: async () => {},
            };
          },
        },
        close: async () => {},
      };
      const registry = (ctx['storage'] as { backend: { register(name: string, backend: unknown): () => void } }).backend;
      const unregister = registry.register('memory', backend);
      ctx.provide('storage.backend.memory', backend);
      return unregister;
    },
  };
}

/** Boots a host; dispose it at the end of the test. */
export async function bootDcpHost(options: DcpHostOptions): Promise<DcpHost> {
  const { kit } = options;
  const clock = createClock();
  const uuids = createUuidSequence(options.seed ?? 'sessionctx-dsh-dcp');
  const release = options.deterministic === false ? () => {} : leaseDeterminism(clock, uuids);
  const ctx = new kit.Context();
  const requests: RecordedModelRequest[] = [];
  const mismatches: string[] = [];
  const agentErrors: unknown[] = [];
  const logs: LogLine[] = [];
  const handles: Array<{ readonly agent: KitAgent; dispose(): Promise<void> }> = [];
  const replies = [...(options.replies ?? [])];
  let disposed: Promise<void> | undefined;

  const dispose = (): Promise<void> =>
    (disposed ??= (async () => {
      try {
        for (const handle of handles.splice(0).reverse()) await handle.dispose();
        await ctx.fiber.dispose();
      } finally {
        release();
      }
    })());

  const mount = async (label: string, plugin: KitPlugin, config?: unknown): Promise<void> => {
    const fiber = await ctx.plugin(plugin, config);
    if (fiber.state !== FIBER_ACTIVE) throw new Error(`dcp host: ${label} did not activate (fiber state ${fiber.state})`);
  };

  /** The request-time checks of the module comment. */
  const check = (sessionId: string, request: RecordedModelRequest): void => {
    const at = `request ${requests.length - 1}`;
    const sessions = ctx['sessions'] as { get(id: string): KitSession | undefined };
    const session = sessions.get(sessionId);
    if (session === undefined) {
      mismatches.push(`${at}: no live session ${sessionId}`);
      return;
    }
    const events = session.events;
    if (JSON.stringify(request.messages) !== JSON.stringify(kit.coldDerivedMessages(sessionId, events))) {
      mismatches.push(`${at}: the messages differ from a cold fold of the log`);
    }
    const header = kit.foldRequestHeader(events);
    if (
      header === undefined ||
      (header.system ?? '') !== request.system ||
      JSON.stringify(header.tools ?? []) !== JSON.stringify(request.tools)
    ) {
      mismatches.push(`${at}: system or tools differ from the folded request header`);
    }
    const service = ctx.get('sessionctxDcp') as
      | { view(session: unknown): { surface: { length: number; at(i: number): number | undefined } } | undefined }
      | undefined;
    const view = service?.view(session);
    if (service !== undefined && view !== undefined) {
      const nodes = Array.from({ length: view.surface.length }, (_, position) => view.surface.at(position));
      if (JSON.stringify(nodes) !== JSON.stringify(session.surface.nodes)) mismatches.push(`${at}: the view's surface differs from dsh's`);
    }
  };

  class ScriptedAdapter extends kit.LlmAdapter {
    resolveModel(provider: string, model: string): Promise<object> {
      return Promise.resolve({
        provider,
        id: model,
        name: model,
        ...(options.contextWindow === undefined ? {} : { context: { contextWindow: options.contextWindow } }),
      });
    }

    async *stream(generate: Record<string, unknown>): AsyncIterable<unknown> {
      const request: RecordedModelRequest =
        options.record === false
          ? { messages: [], system: '', tools: [] }
          : {
              messages: structuredClone(generate['messages'] as Record<string, unknown>[]),
              system: (generate['system'] as string | undefined) ?? '',
              tools: structuredClone((generate['tools'] as RecordedModelRequest['tools'] | undefined) ?? []),
            };
      requests.push(request);
      if (options.checks !== false) check(String(generate['sessionId']), request);
      const reply = replies.shift();
      if (reply === undefined) throw new kit.LlmError(`scripted model has no reply for request ${requests.length}`, 'SCRIPT_EXHAUSTED');
      if (reply.error !== undefined) throw new kit.LlmError(reply.error, 'PROVIDER_ERROR');
      let index = 0;
      const chunks: unknown[] = [];
      if (reply.reasoning !== undefined && reply.reasoning !== '') {
        chunks.push(
          { type: 'block-start', index, blockType: 'reasoning' },
          { type: 'reasoning-delta', index, text: reply.reasoning },
          { type: 'block-end', index, block: { type: 'reasoning', text: reply.reasoning } },
        );
        index += 1;
      }
      if (reply.text !== undefined && reply.text !== '') {
        chunks.push(
          { type: 'block-start', index, blockType: 'text' },
          { type: 'text-delta', index, text: reply.text },
          { type: 'block-end', index, block: { type: 'text', text: reply.text } },
        );
        index += 1;
      }
      for (const call of reply.toolCalls ?? []) {
        const id = kit.CallId(call.id ?? `call-${requests.length}-${index}`);
        const args = JSON.stringify(call.args ?? {});
        chunks.push(
          { type: 'block-start', index, blockType: 'tool-call' },
          { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: args },
          { type: 'block-end', index, block: { type: 'tool-call', id, name: call.name, arguments: args } },
        );
        index += 1;
      }
      chunks.push(
        { type: 'usage', usage: { ...USAGE } },
        { type: 'finish', reason: { kind: (reply.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop' } },
      );
      for (const chunk of chunks) yield chunk;
    }
  }

  try {
    (ctx.logger as KitContext['logger']).exporter({
      // cordis ranks warn (2) below info (1): without a level of its own an exporter never sees a warning.
      levels: { default: 3 },
      export: (message) => {
        if (message.type !== 'debug') logs.push({ name: message.name, type: message.type, text: formatLogArgs(message.args) });
      },
    });
    if (options.invariants !== false) {
      await mount('dsh-invariants', kit.plugins.invariants);
      for (const [index, companion] of kit.invariantCompanions.entries()) {
        await ctx.plugin(companion).then(
          () => undefined,
          (error: unknown) => {
            throw new Error(`dcp host: invariant companion ${index} failed`, { cause: error });
          },
        );
      }
    }
    await mount('dsh-llm', kit.plugins.llm);
    (ctx['llm'] as { registerAdapter(providers: string[], adapter: object): void }).registerAdapter(
      [SCRIPTED_PROVIDER],
      new ScriptedAdapter(),
    );
    await mount('dsh-session', kit.plugins.sessions);
    await mount('dsh-system-prompt', kit.plugins.systemPrompt, { includeHarnessIdentity: false, persona: '' });
    await mount('dsh-tools', kit.plugins.tools, {});
    await mount('dsh-agent', kit.plugins.agents);
    await mount('dsh-commands', kit.plugins.commands);
    if (options.storage === true) {
      await mount('dsh-storage', kit.plugins.storage);
      await mount('memory backend', memoryBackendPlugin());
      await mount('dsh-storage-domain', kit.plugins.storageDomain, { backend: 'memory' });
    }
    await mount('dsh-agent-loop', kit.plugins.agentLoop, { agents: [] });
    ctx.on('agent/error', ((payload: { error: unknown }) => {
      agentErrors.push(payload.error);
    }) as (...args: never[]) => unknown);
    for (const [index, plugin] of (options.before ?? []).entries()) await mount(`before[${index}]`, plugin);
    const tools = ctx['tools'] as { register(definition: unknown): () => void };
    for (const tool of options.tools ?? []) {
      let next = 0;
      tools.register({
        name: tool.name,
        description: tool.description ?? `canned ${tool.name}`,
        parameters: { type: 'object' },
        output: { schema: { type: 'string' }, render: (_args: unknown, value: unknown) => [{ type: 'text', text: String(value) }] },
        execute: async () => {
          if (tool.error !== undefined) throw new Error(tool.error);
          if (tool.results !== undefined) return tool.results[Math.min(next++, tool.results.length - 1)] ?? '';
          return tool.result ?? '';
        },
      });
    }
    if (options.dcp !== null) await mount('sessionctx/dsh-dcp', kit.dcpPlugin, options.dcp ?? {});
    for (const [index, plugin] of (options.after ?? []).entries()) await mount(`after[${index}]`, plugin);
  } catch (error) {
    await dispose();
    throw error;
  }

  const agents = ctx['agents'] as {
    create(options: unknown): Promise<{ readonly agent: KitAgent; dispose(): Promise<void> }>;
  };
  const idle = async (agent: KitAgent): Promise<void> => {
    await agent.whenIdle();
  };
  return {
    ctx,
    kit,
    requests,
    mismatches,
    agentErrors,
    logs,
    async createAgent(id, agentOptions = {}) {
      const handle = await agents.create({
        sessionId: kit.SessionId(id),
        ...(agentOptions.cwd === undefined ? {} : { meta: { cwd: agentOptions.cwd } }),
        ...(agentOptions.seed === undefined ? {} : { seed: agentOptions.seed }),
        agentOptions: { provider: SCRIPTED_PROVIDER, model: SCRIPTED_MODEL },
      });
      handles.push(handle);
      return handle.agent;
    },
    async closeAgent(agent) {
      const at = handles.findIndex((handle) => handle.agent === agent);
      if (at === -1) return;
      const [handle] = handles.splice(at, 1);
      await handle?.dispose();
    },
    async prompt(agent, text) {
      agent.followup(kit.createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }));
      await idle(agent);
    },
    async steer(agent, text) {
      agent.steer(kit.createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }));
      await idle(agent);
    },
    async command(agent, line) {
      const execution = await kit.executeCommand(ctx, agent, line, new AbortController().signal);
      await idle(agent);
      return execution;
    },
    dispose,
  };
}

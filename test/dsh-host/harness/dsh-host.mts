/**
 * Boot a real DeepSeek Harness 0.1.0-rc.8 host from dsh's own published plugins, for tests that compare dsh's
 * session-reference resolver with a replacement plugin under the very same agent loop.
 *
 * Mount order (one root cordis Context; every plugin is dsh's own, only the model is scripted):
 *
 *  1. `@deepseek-ai/dsh-llm`                          `ctx.llm`, plus the scripted adapter ({@link ScriptedModel})
 *  2. `@deepseek-ai/dsh-session`                      `ctx.sessions` (live session store, flush barrier)
 *  3. `@deepseek-ai/dsh-system-prompt`                `ctx.systemPrompt` (the loop assembles every request from it)
 *  4. `@deepseek-ai/dsh-tools`                        `ctx.tools`
 *  5. `@deepseek-ai/dsh-agent`                        `ctx.agents` (registry the loop publishes agents into)
 *  6. `@deepseek-ai/dsh-session-persistence-jsonl`    `ctx.sessionPersistence` over `options.root`
 *  7. `@deepseek-ai/dsh-session-checkpoint-policy`    flushes at pre-step, before each model call and tool dispatch
 *  8. `@deepseek-ai/dsh-session-query-sqlite`         `ctx.sessionQuery` (exact reads over live + persisted sessions)
 *  9. `@deepseek-ai/dsh-agent-loop`                   `ctx.agentLoop`, the agent factory behind `ctx.agents.create/resume`
 * 10. `options.setup` / `options.plugins`            caller extras (tools, prompt sections, other dsh plugins)
 * 11. `options.resolver` with `options.resolverConfig` (e.g. dsh's `@deepseek-ai/dsh-session-reference`) — optional
 *
 * @module
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Context } from '@deepseek-ai/cordis';
import type { Plugin } from '@deepseek-ai/cordis';
import AgentRegistry from '@deepseek-ai/dsh-agent';
import type { Agent, AgentHandle, AgentOptions } from '@deepseek-ai/dsh-agent';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';
import LlmRuntime, { createUserMessage } from '@deepseek-ai/dsh-llm';
import type { ContentBlock, UserMessage } from '@deepseek-ai/dsh-llm';
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session';
import type { AgentCancelCause, Session, SessionEvent, TurnEndReason } from '@deepseek-ai/dsh-session';
import * as checkpointPolicy from '@deepseek-ai/dsh-session-checkpoint-policy';
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl';
import type { JsonlCompression } from '@deepseek-ai/dsh-session-persistence-jsonl';
import SqliteSessionQueryEngine from '@deepseek-ai/dsh-session-query-sqlite';
import type { Config as SqliteSessionQueryConfig } from '@deepseek-ai/dsh-session-query-sqlite';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import type { Config as SystemPromptConfig } from '@deepseek-ai/dsh-system-prompt';
import ToolRuntime from '@deepseek-ai/dsh-tools';
import type { Config as ToolRuntimeConfig } from '@deepseek-ai/dsh-tools';
import { createClock, createUuidSequence, leaseDeterminism } from './determinism.mts';
import type { ClockOptions, HostClock, UuidSequence } from './determinism.mts';
import { ScriptedModel } from './scripted-model.mts';
import type { RecordedRequest, ScriptedModelOptions, ScriptedReply } from './scripted-model.mts';

export type { ClockOptions, HostClock, UuidSequence } from './determinism.mts';
export { DEFAULT_CLOCK_START_MS, createClock, createUuidSequence } from './determinism.mts';
export type { RecordedRequest, ScriptedModelOptions, ScriptedReply, ScriptedToolCall } from './scripted-model.mts';
export { ScriptedModel } from './scripted-model.mts';

/** Default seed of the id sequence. */
export const DEFAULT_UUID_SEED = 'sessionctx-dsh-host';

/**
 * Default write-behind window of the JSONL backend: the largest timer delay, so only dsh's semantic flushes
 * (checkpoint policy, `ctx.sessions.flush`, session retirement) commit batches. dsh's own default is 200 ms; with it,
 * a slow machine may split a batch in two, which changes zstd frame boundaries (never the raw JSONL bytes).
 */
export const DEFAULT_WRITE_BATCH_MAX_DELAY_MS = 2_147_483_647;

/** cordis `FiberState.ACTIVE` (a `const enum`, so not importable at run time). */
const FIBER_ACTIVE = 2;

/** One extra plugin to mount after the core and before the resolver. */
export interface ExtraPlugin {
  readonly plugin: Plugin;
  readonly config?: unknown;
}

/** Options of {@link bootDshHost}. */
export interface DshHostOptions {
  /** Existing JSONL session root (e.g. a temporary copy of test/fixtures/dsh-small/raw). Never a fixture in place. */
  readonly root: string;
  /** Physical encoding of the root. Default: `zstd` when the root holds any `session.jsonl.zstd`, else `none`. */
  readonly compression?: JsonlCompression;
  /** JSONL `packChunks` (dsh's default true: runs of chunk deltas become `text-chunks`/… rows). */
  readonly packChunks?: boolean;
  /** JSONL `writeBatchMaxDelayMs`. Default {@link DEFAULT_WRITE_BATCH_MAX_DELAY_MS}. */
  readonly writeBatchMaxDelayMs?: number;
  /**
   * The session-reference resolver plugin, e.g. the default export of `@deepseek-ai/dsh-session-reference`, or a
   * replacement. Omit (or pass `null`) to boot without any resolver.
   */
  readonly resolver?: Plugin | null;
  /** Config passed to `ctx.plugin(resolver, resolverConfig)`. Default `{}`. */
  readonly resolverConfig?: unknown;
  /** The scripted model route (provider, model, context window, default max tokens). */
  readonly model?: ScriptedModelOptions;
  /** Initial scripted replies; more can be pushed with {@link DshHost.reply}. */
  readonly replies?: readonly ScriptedReply[];
  /** `@deepseek-ai/dsh-system-prompt` config. Default `{ persona: '' }`. */
  readonly systemPrompt?: SystemPromptConfig;
  /** `@deepseek-ai/dsh-tools` config. Default `{}`. */
  readonly tools?: ToolRuntimeConfig;
  /**
   * `@deepseek-ai/dsh-session-query-sqlite` config. Default `{ path: ':memory:', openAt: 'never' }`, the product's
   * base-bundle row: exact reads (listSessions, readSurface, readTitleSnapshots) work, full-text search is disabled.
   */
  readonly sessionQuery?: SqliteSessionQueryConfig;
  /** Agent options for every agent the host creates or resumes. Default: the scripted provider and model. */
  readonly agentOptions?: AgentOptions;
  /** Seed of the deterministic `randomUUID` sequence. Default {@link DEFAULT_UUID_SEED}. */
  readonly seed?: string;
  /** The scripted `Date.now()` clock. */
  readonly clock?: ClockOptions;
  /** Runs after the core plugins, before `plugins` and the resolver (register tools, prompt sections, …). */
  readonly setup?: (ctx: Context) => void | Promise<void>;
  /** Extra plugins mounted after `setup`, before the resolver. */
  readonly plugins?: readonly ExtraPlugin[];
}

/** One `agent/error` notification. */
export interface AgentErrorRecord {
  readonly sessionId: SessionId;
  readonly turn: number;
  readonly step: number;
  readonly error: unknown;
}

/** A live agent the host created or resumed, and its session. */
export interface DshTarget {
  readonly id: SessionId;
  readonly agent: Agent;
  /** The live session; `session.events` is its in-memory log (persisted history first, for a resumed session). */
  readonly session: Session;
  /** Where the JSONL backend keeps this session's log (`<root>/<project>/<id>/session.jsonl[.zstd]`). */
  readonly logPath: string;
}

/** Options of {@link DshHost.runTurn}. */
export interface RunTurnOptions {
  /** Aborting it cancels the agent (`agent.cancel({ kind: 'user' })`, dsh's own cancel path). */
  readonly signal?: AbortSignal;
  /** Set the clock to this epoch time before the message is submitted. */
  readonly at?: number;
  /** Content blocks to send instead of one text block (the `text` argument is then ignored). */
  readonly content?: readonly ContentBlock[];
  /**
   * Called once per `agent/pre-step` of this agent during the turn, from the outermost pre-step listener, right
   * after the rest of the chain (the resolver included) has started. Cancelling here cancels the turn while the
   * resolver is preparing; awaiting here holds the step until the hook settles (the chain keeps running).
   */
  readonly onPreStep?: (info: PreStepInfo) => void | Promise<void>;
}

/** What {@link RunTurnOptions.onPreStep} receives. */
export interface PreStepInfo {
  readonly agent: Agent;
  readonly turn: number;
  readonly step: number;
  /** The turn's cancellation signal. */
  readonly signal: AbortSignal;
  /** The messages the loop claimed from the inbox for this step, before any listener rewrote them. */
  readonly messages: readonly UserMessage[];
  /** Cancel the turn through dsh's own path (`agent.cancel(cause)`, default `{ kind: 'user' }`). */
  cancel(cause?: AgentCancelCause): void;
  /** Settles with the rest of the pre-step chain (the resolver's decision), or rejects with its failure. */
  readonly downstream: Promise<unknown>;
}

/** What one {@link DshHost.runTurn} did. */
export interface TurnResult {
  /** The direct user message that was submitted (`source: { kind: 'user' }`). */
  readonly message: UserMessage;
  /** The model requests recorded during the turn, in order. */
  readonly requests: RecordedRequest[];
  /** Every `agent/error` the target agent emitted during the turn. */
  readonly errors: AgentErrorRecord[];
  /** The session events appended during the turn (snapshots). */
  readonly events: SessionEvent[];
  /** The turn's number, from its `turn/start` (undefined when no turn opened). */
  readonly turn: number | undefined;
  /** The turn's `turn/end` reason (`completed`, `aborted`, `error`, `blocked`, `max-tokens`), if the turn closed. */
  readonly outcome: TurnEndReason | undefined;
}

/** A booted dsh host. */
export interface DshHost {
  /** The root cordis Context every plugin is mounted on (`ctx.sessionReferenceResolver` when a resolver is mounted). */
  readonly ctx: Context;
  /** The scripted adapter (`model.requests` holds every request of the host's life). */
  readonly model: ScriptedModel;
  /** Every request recorded so far (same array as `model.requests`). */
  readonly requests: readonly RecordedRequest[];
  /** Every `agent/error` of every agent so far. */
  readonly errors: readonly AgentErrorRecord[];
  /** The scripted clock (`Date.now()`). */
  readonly clock: HostClock;
  /** The id sequence (`crypto.randomUUID()`). */
  readonly uuids: UuidSequence;
  /** The session root the JSONL backend serves. */
  readonly root: string;
  /** The root's physical encoding. */
  readonly compression: JsonlCompression;
  /** Append scripted replies. */
  reply(...replies: ScriptedReply[]): void;
  /** Create a fresh session and agent (`ctx.agents.create`), optionally in a working directory. */
  createSession(options: { id: string; cwd?: string; agentOptions?: AgentOptions }): Promise<DshTarget>;
  /** Resume a session persisted in the root (`ctx.agents.resume`; dsh repairs a crashed log's open turn in memory). */
  openSession(id: string, options?: { agentOptions?: AgentOptions }): Promise<DshTarget>;
  /**
   * Dispose one agent (its `AgentHandle`): stop and drain it, flush and retire its session. The session leaves the
   * live corpus; a materialized one stays listed from the root.
   */
  closeSession(target: DshTarget): Promise<void>;
  /** Submit a direct user message (`agent.followup`) and run its turn to completion (`agent.whenIdle()`), then flush. */
  runTurn(target: DshTarget, text: string, options?: RunTurnOptions): Promise<TurnResult>;
  /** Cancel whatever the agent is doing (`agent.cancel`, default cause `{ kind: 'user' }`). */
  cancel(target: DshTarget, cause?: AgentCancelCause): void;
  /** Durability barrier: `ctx.sessions.flush(session)`. */
  flush(target: DshTarget): Promise<void>;
  /** Flush, then read the session's persisted log file bytes (still zstd-framed when the root is zstd). */
  readLog(target: DshTarget): Promise<Buffer>;
  /** Dispose every agent, then the root fiber; restores `Date.now` and `randomUUID`. Idempotent. */
  dispose(): Promise<void>;
}

/** Whether any session under `root/<project>/<session>/` is zstd-encoded. */
function detectCompression(root: string): JsonlCompression {
  for (const project of readdirSync(root, { withFileTypes: true })) {
    if (!project.isDirectory()) continue;
    for (const session of readdirSync(join(root, project.name), { withFileTypes: true })) {
      if (!session.isDirectory()) continue;
      const files = readdirSync(join(root, project.name, session.name));
      if (files.includes('session.jsonl.zstd')) return 'zstd';
      if (files.includes('session.jsonl')) return 'none';
    }
  }
  return 'none';
}

/**
 * Boot one dsh host. See the module comment for what it mounts and in which order.
 * @param options - root, resolver, script, determinism.
 * @returns the host; call {@link DshHost.dispose} when done (the process can then exit on its own).
 */
export async function bootDshHost(options: DshHostOptions): Promise<DshHost> {
  const clock = createClock(options.clock);
  const uuids = createUuidSequence(options.seed ?? DEFAULT_UUID_SEED);
  const release = leaseDeterminism(clock, uuids);
  const compression = options.compression ?? detectCompression(options.root);
  const model = new ScriptedModel(options.model, options.replies ?? []);
  const agentOptions: AgentOptions = options.agentOptions ?? { provider: model.provider, model: model.model };
  const ctx = new Context();
  const errors: AgentErrorRecord[] = [];
  const handles = new Map<SessionId, AgentHandle>();
  let disposed: Promise<void> | undefined;

  const dispose = (): Promise<void> =>
    (disposed ??= (async () => {
      try {
        // Agents first (stop, drain, retire their sessions through the persistence coordinator), then the rest.
        await Promise.all([...handles.values()].map((handle) => handle.dispose()));
        handles.clear();
        await ctx.fiber.dispose();
      } finally {
        release();
      }
    })());

  /** Mount one plugin and insist that it activated: cordis resolves `ctx.plugin()` even when an inject is unmet. */
  const mount = async (label: string, plugin: Plugin, config?: unknown): Promise<void> => {
    const fiber = await ctx.plugin(plugin, config as never);
    if (fiber.state !== FIBER_ACTIVE) {
      throw new Error(`dsh host: plugin ${label} did not activate (fiber state ${fiber.state}; is one of its injected services missing?)`);
    }
  };

  try {
    await mount('@deepseek-ai/dsh-llm', LlmRuntime);
    ctx.llm.registerAdapter([model.provider], model);
    await mount('@deepseek-ai/dsh-session', SessionStore);
    await mount('@deepseek-ai/dsh-system-prompt', SystemPrompt, options.systemPrompt ?? { persona: '' });
    await mount('@deepseek-ai/dsh-tools', ToolRuntime, options.tools ?? {});
    await mount('@deepseek-ai/dsh-agent', AgentRegistry);
    await mount('@deepseek-ai/dsh-session-persistence-jsonl', JsonlSessionPersistence, {
      root: options.root,
      compression,
      packChunks: options.packChunks ?? true,
      writeBatchMaxDelayMs: options.writeBatchMaxDelayMs ?? DEFAULT_WRITE_BATCH_MAX_DELAY_MS,
    });
    await mount('@deepseek-ai/dsh-session-checkpoint-policy', checkpointPolicy);
    await mount(
      '@deepseek-ai/dsh-session-query-sqlite',
      SqliteSessionQueryEngine,
      options.sessionQuery ?? { path: ':memory:', openAt: 'never' },
    );
    await mount('@deepseek-ai/dsh-agent-loop', AgentLoop, { agents: [] });
    ctx.on('agent/error', ({ agent, turn, step, error }) => {
      errors.push({ sessionId: agent.id, turn, step, error });
    });
    await options.setup?.(ctx);
    for (const [index, extra] of (options.plugins ?? []).entries()) await mount(`plugins[${index}]`, extra.plugin, extra.config);
    if (options.resolver !== undefined && options.resolver !== null) {
      await mount('resolver', options.resolver, options.resolverConfig ?? {});
    }
  } catch (error) {
    await dispose();
    throw error;
  }

  const persistence = ctx.sessionPersistence;
  if (persistence === undefined) {
    await dispose();
    throw new Error('dsh host: ctx.sessionPersistence is missing after boot');
  }
  const toTarget = (handle: AgentHandle): DshTarget => {
    const { agent } = handle;
    handles.set(agent.id, handle);
    const location = persistence.locate(agent.session.header);
    if (location === undefined) throw new Error(`dsh host: the JSONL backend cannot locate "${agent.id}"`);
    return { id: agent.id, agent, session: agent.session, logPath: location.path };
  };

  const assertLive = (): void => {
    if (disposed !== undefined) throw new Error('dsh host is disposed');
  };

  const flush = async (target: DshTarget): Promise<void> => {
    await ctx.sessions.flush(target.session);
  };

  const runTurn = async (target: DshTarget, text: string, turnOptions: RunTurnOptions = {}): Promise<TurnResult> => {
    assertLive();
    const { agent } = target;
    if (agent.status !== 'idle') throw new Error(`agent "${agent.id}" is not idle`);
    if (turnOptions.at !== undefined) clock.set(turnOptions.at);
    const requestStart = model.requests.length;
    const errorStart = errors.length;
    const eventStart = target.session.events.length;
    const content: ContentBlock[] =
      turnOptions.content === undefined ? [{ type: 'text', text }] : structuredClone([...turnOptions.content]);
    const message = createUserMessage({ content, source: { kind: 'user' } });

    const cleanups: (() => void)[] = [];
    const { signal, onPreStep } = turnOptions;
    if (signal !== undefined) {
      signal.throwIfAborted();
      const onAbort = () => agent.cancel({ kind: 'user' });
      signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', onAbort));
    }
    if (onPreStep !== undefined) {
      // Registered last with `prepend`, so it is the outermost pre-step listener: outside the resolver's.
      const off = ctx.on(
        'agent/pre-step',
        async (payload, next) => {
          if (payload.agent.id !== agent.id) return next();
          const downstream = next();
          downstream.catch(() => {});
          await onPreStep({
            agent: payload.agent,
            turn: payload.turn,
            step: payload.step,
            signal: payload.signal,
            messages: payload.messages,
            cancel: (cause) => payload.agent.cancel(cause ?? { kind: 'user' }),
            downstream,
          });
          return downstream;
        },
        { prepend: true },
      );
      cleanups.push(() => void off());
    }
    try {
      agent.followup(message);
      await agent.whenIdle();
      await flush(target);
    } finally {
      for (const cleanup of cleanups) cleanup();
    }

    const events = target.session.events.slice(eventStart).map((event) => structuredClone(event));
    const start = events.find((event) => event.type === 'turn/start');
    const end = events.findLast((event) => event.type === 'turn/end');
    return {
      message,
      requests: model.requests.slice(requestStart),
      errors: errors.slice(errorStart).filter((record) => record.sessionId === agent.id),
      events,
      turn: start?.type === 'turn/start' ? start.data.turn : undefined,
      outcome: end?.type === 'turn/end' ? end.data.reason : undefined,
    };
  };

  return {
    ctx,
    model,
    requests: model.requests,
    errors,
    clock,
    uuids,
    root: options.root,
    compression,
    reply: (...replies) => model.push(...replies),
    async createSession({ id, cwd, agentOptions: own }) {
      assertLive();
      const handle = await ctx.agents.create({
        sessionId: SessionId(id),
        ...(cwd === undefined ? {} : { meta: { cwd } }),
        agentOptions: own ?? agentOptions,
      });
      return toTarget(handle);
    },
    async openSession(id, openOptions = {}) {
      assertLive();
      const handle = await ctx.agents.resume({ resumeSessionId: SessionId(id), agentOptions: openOptions.agentOptions ?? agentOptions });
      return toTarget(handle);
    },
    async closeSession(target) {
      const handle = handles.get(target.id);
      if (handle === undefined) return;
      handles.delete(target.id);
      await handle.dispose();
    },
    runTurn,
    cancel: (target, cause) => target.agent.cancel(cause ?? { kind: 'user' }),
    flush,
    async readLog(target) {
      await flush(target);
      return readFile(target.logPath);
    },
    dispose,
  };
}

/**
 * Runs a scripted scenario on the real host: a new session, the scripted model, canned tools,
 * the session-reference service (and any extra plugins such as DCP) mounted, the person's steps
 * in order; then writes the session into the store in dsh's format. The scenario's `contextWindow` is the
 * session's window (its pressure, nudges and expansion caps use it) and is recorded in the log as dsh records it.
 * What went wrong — a turn that ended with an error, a command step whose result was an error — is read back from
 * what happened and returned in `errors`; the session is written either way, as the record of the run.
 */
import { asSessionId } from '../../../protocol/events.js';
import type { SessionEvent, SessionHeader, SessionSurfaceSnapshot } from '../../../protocol/events.js';
import { createUserMessage } from '../../../protocol/user-message.js';
import { InMemoryLiveRegistry } from '../../engine/corpus/live-registry.js';
import { SessionQuery } from '../../engine/corpus/session-query.js';
import { Agent } from '../host/agent.js';
import { silentLogger } from '../../host-kit/silent-logger.js';
import { createPluginContext } from '../host/plugin-context.js';
import type { Plugin, PluginLogger, ToolDefinition } from '../../host-api/host-api.js';
import { ScriptedModel } from '../host/scripted-model.js';
import { Session } from '../host/session.js';
import { SessionReferenceService } from '../../engine/reference/session-reference-service.js';
import { sessionReferencePlugin } from '../../engine/reference/session-reference-plugin.js';
import type { JsonlSessionStore } from '../../engine/store/jsonl-store.js';
import { contextRecordingModel } from './context-recording-model.js';
import type { Scenario, ScenarioTool } from './scenario.js';
import type { ModelClient, ModelRequest } from '../host/model-client.js';

/** `model` with each request shown to `observe` first; `model` itself when there is no observer. */
function observedModel(model: ModelClient, observe: ((request: ModelRequest) => void) | undefined): ModelClient {
  if (observe === undefined) return model;
  return {
    provider: model.provider,
    model: model.model,
    ...(model.contextWindow === undefined ? {} : { contextWindow: model.contextWindow }),
    stream(request, options) {
      observe(request);
      return model.stream(request, options);
    },
  };
}

/** What one tool call returned, as the model saw it. */
export interface ScenarioToolResult {
  readonly callId: string;
  readonly name: string;
  readonly isError: boolean;
  readonly text: string;
}

/** What one command returned to the person. */
export interface ScenarioCommandResult {
  readonly input: string;
  readonly kind: string;
  readonly text: string;
}

/** `SCENARIO_COMMAND_FAILED`: a command step's result was an error (an unknown command, a refused `/dcp` command). */
export const SCENARIO_COMMAND_FAILED = 'SCENARIO_COMMAND_FAILED';

/** One thing that went wrong in a run. */
export type ScenarioFailure =
  | {
      /** A turn ended with an error: the scripted model had no reply left or replied `{error}`, a reference failed… */
      readonly kind: 'turn';
      /** The turn number. */
      readonly turn: number;
      /** The code the turn's `turn/end` records (`UNKNOWN` for a model failure, as dsh writes; `SESSION_REFERENCE_*`). */
      readonly code: string;
      readonly message: string;
    }
  | {
      /** A command step's result was an error. */
      readonly kind: 'command';
      /** The index of the step in `scenario.steps`. */
      readonly step: number;
      readonly input: string;
      /** Always {@link SCENARIO_COMMAND_FAILED}. */
      readonly code: string;
      readonly message: string;
    }
  | {
      /** The host reported a failure (`agent/error`) that no turn end of the log records. */
      readonly kind: 'host';
      readonly turn: number;
      /** The error's own `code`, else `UNKNOWN`. */
      readonly code: string;
      readonly message: string;
    };

/** The outcome of a run. */
export interface ScenarioRun {
  readonly sessionId: string;
  readonly path: string;
  readonly surface: SessionSurfaceSnapshot;
  readonly toolResults: readonly ScenarioToolResult[];
  readonly commands: readonly ScenarioCommandResult[];
  readonly modelRequests: number;
  /** What went wrong, in the order it happened; empty for a run that went as scripted. */
  readonly errors: readonly ScenarioFailure[];
}

function cannedTool(tool: ScenarioTool): ToolDefinition {
  let next = 0;
  return {
    name: tool.name,
    description: tool.description,
    parameters: { type: 'object' },
    execute: () => {
      if (tool.error !== undefined) throw new Error(tool.error);
      if (tool.results !== undefined) {
        const result = tool.results[Math.min(next, tool.results.length - 1)] ?? '';
        next += 1;
        return result;
      }
      return tool.result ?? '';
    },
  };
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { type?: unknown; text?: unknown; content?: unknown }) =>
      block.type === 'text' ? String(block.text) : block.type === 'tool-result' ? textOf(block.content) : '',
    )
    .join('\n');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Every failure of the run in log order: the `turn/end` records whose reason is an error (the log is the truth of
 * how a turn ended, whichever part of the host failed), the failed command steps, and host errors of turns the log
 * records no error end for (a turn that could not even be opened or closed).
 */
function collectFailures(
  events: readonly SessionEvent[],
  commands: ReadonlyArray<{ readonly at: number; readonly failure: ScenarioFailure }>,
  hostErrors: ReadonlyArray<{ readonly at: number; readonly turn: number; readonly error: unknown }>,
): ScenarioFailure[] {
  const found: Array<{ readonly at: number; readonly failure: ScenarioFailure }> = [...commands];
  const failedTurns = new Set<number>();
  for (const event of events) {
    if (event.type !== 'turn/end') continue;
    const data = event.data as { turn?: unknown; reason?: { kind?: unknown; error?: { message?: unknown; code?: unknown } } };
    if (data.reason?.kind !== 'error' || typeof data.turn !== 'number') continue;
    failedTurns.add(data.turn);
    const code = typeof data.reason.error?.code === 'string' ? data.reason.error.code : 'UNKNOWN';
    const message = typeof data.reason.error?.message === 'string' ? data.reason.error.message : 'the turn ended with an error';
    found.push({ at: event.seq, failure: { kind: 'turn', turn: data.turn, code, message } });
  }
  for (const { at, turn, error } of hostErrors) {
    if (failedTurns.has(turn)) continue;
    const code = (error as { code?: unknown } | null | undefined)?.code;
    found.push({ at, failure: { kind: 'host', turn, code: typeof code === 'string' ? code : 'UNKNOWN', message: errorText(error) } });
  }
  // Stable sort: a command failure recorded at the same position as a turn end keeps its step order.
  return found.sort((a, b) => a.at - b.at).map((entry) => entry.failure);
}

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  /** More host plugins (DCP) beside the reference service; they receive `scenario.config`. */
  readonly plugins?: readonly Plugin[];
  /** The clock of the session header. Default `Date.now`. */
  readonly now?: () => number;
  /** Where plugins log (never the session log or the model). Default: dropped. */
  readonly logger?: PluginLogger;
  /**
   * Sees every model request as the scripted model receives it, in order (the fixture comparison checks what the model
   * was shown, which the log alone does not carry: the tool descriptors).
   */
  readonly onModelRequest?: (request: ModelRequest) => void;
}

/** Runs `scenario` and persists the session in `store`. */
export async function runScenario(scenario: Scenario, store: JsonlSessionStore, options: RunScenarioOptions = {}): Promise<ScenarioRun> {
  const { plugins: extraPlugins = [], now = Date.now, logger = silentLogger, onModelRequest } = options;
  const header: SessionHeader = {
    version: 0,
    id: asSessionId(scenario.session.id),
    createdAt: now(),
    ...(scenario.session.cwd !== undefined ? { cwd: scenario.session.cwd } : {}),
    delegationDepth: 0,
  };
  const model = new ScriptedModel({
    script: scenario.model,
    ...(scenario.contextWindow !== undefined ? { contextWindow: scenario.contextWindow } : {}),
  });
  // The scripted model is the session's model registry (HOST.md §2.5, §12), as in the test harness.
  const contextWindowOf = (provider: string, name: string): number | undefined =>
    provider === model.provider && name === model.model ? model.contextWindow : undefined;
  const session = Session.create(scenario.session.id, { header, contextWindowOf });
  const agent = new Agent({ session, model: contextRecordingModel(observedModel(model, onModelRequest), session) });
  const registry = new InMemoryLiveRegistry();
  registry.attach(session);
  const sessionQuery = new SessionQuery({ registry, storage: store });
  const failures: Array<{ readonly at: number; readonly failure: ScenarioFailure }> = [];
  const hostErrors: Array<{ readonly at: number; readonly turn: number; readonly error: unknown }> = [];
  agent.on('agent/error', (event) => {
    hostErrors.push({ at: session.events.length, turn: event.turn, error: event.error });
  });
  const reference = new SessionReferenceService({ sessionQuery, config: (scenario.config.reference ?? {}) as Record<string, unknown> });
  for (const plugin of [sessionReferencePlugin(reference), ...extraPlugins])
    plugin.apply(createPluginContext(agent, { config: scenario.config, sessionQuery, logger }));
  // The scenario's tools after the plugins' (compress first), the registration order dsh's header shows (HOST.md §8).
  for (const tool of scenario.tools) agent.registerTool(cannedTool(tool));

  const commands: ScenarioCommandResult[] = [];
  for (const [index, step] of scenario.steps.entries()) {
    if ('prompt' in step) agent.prompt(step.prompt);
    else if ('steer' in step) agent.steer(createUserMessage({ content: [{ type: 'text', text: step.steer }], source: { kind: 'user' } }));
    else {
      const at = session.events.length;
      const result = await agent.runCommand(step.command);
      commands.push({ input: step.command, kind: result.kind, text: result.text });
      if (result.kind === 'error')
        failures.push({
          at,
          failure: { kind: 'command', step: index, input: step.command, code: SCENARIO_COMMAND_FAILED, message: result.text },
        });
    }
    await agent.runUntilIdle();
  }
  await agent.dispose();
  const errors = collectFailures(session.events, failures, hostErrors);

  const path = await store.create(header, session.events);
  const names = new Map<string, string>();
  const toolResults: ScenarioToolResult[] = [];
  for (const event of session.events) {
    const data = event.data as {
      callId?: string;
      name?: string;
      message?: { source?: { callId?: string }; content?: unknown };
      error?: unknown;
    };
    if (event.type === 'tool/call' && data.callId !== undefined) names.set(data.callId, String(data.name));
    if (event.type === 'tool/result' && event.surfaceOp === 'append') {
      const callId = data.message?.source?.callId ?? '';
      const block = (data.message?.content as Array<{ isError?: boolean; content?: unknown }> | undefined)?.[0];
      toolResults.push({ callId, name: names.get(callId) ?? '', isError: block?.isError === true, text: textOf(block?.content) });
    }
  }
  registry.detach(asSessionId(session.id));
  const surface = await sessionQuery.readSurface(asSessionId(scenario.session.id));
  return { sessionId: scenario.session.id, path, surface, toolResults, commands, modelRequests: model.dispatchCount, errors };
}

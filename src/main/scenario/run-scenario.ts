/**
 * Runs a scripted scenario on the real host: a new session, the scripted model, canned tools,
 * the session-reference service (and any extra plugins such as DCP) mounted, the person's steps
 * in order; then writes the session into the store in dsh's format.
 */
import { asSessionId } from '../../protocol/events.js';
import type { SessionHeader, SessionSurfaceSnapshot } from '../../protocol/events.js';
import { createUserMessage } from '../../protocol/user-message.js';
import { InMemoryLiveRegistry } from '../corpus/live-registry.js';
import { SessionQuery } from '../corpus/session-query.js';
import { Agent } from '../host/agent.js';
import { createPluginContext, silentLogger } from '../host/plugin-context.js';
import type { PluginLogger } from '../host/plugin-context.js';
import type { Plugin } from '../host/plugin-context.js';
import { ScriptedModel } from '../host/scripted-model.js';
import { Session } from '../host/session.js';
import type { ToolDefinition } from '../host/tool-definition.js';
import { SessionReferenceService } from '../reference/session-reference-service.js';
import { sessionReferencePlugin } from '../reference/session-reference-plugin.js';
import type { JsonlSessionStore } from '../store/jsonl-store.js';
import type { Scenario, ScenarioTool } from './scenario.js';

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

/** The outcome of a run. */
export interface ScenarioRun {
  readonly sessionId: string;
  readonly path: string;
  readonly surface: SessionSurfaceSnapshot;
  readonly toolResults: readonly ScenarioToolResult[];
  readonly commands: readonly ScenarioCommandResult[];
  readonly modelRequests: number;
  /** Turn failures the host reported (for example a failed reference preparation). */
  readonly errors: readonly string[];
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
  return content.map((block: { type?: unknown; text?: unknown; content?: unknown }) => (block.type === 'text' ? String(block.text) : block.type === 'tool-result' ? textOf(block.content) : '')).join('\n');
}

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  /** More host plugins (DCP) beside the reference service; they receive `scenario.config`. */
  readonly plugins?: readonly Plugin[];
  /** The clock of the session header. Default `Date.now`. */
  readonly now?: () => number;
  /** Where plugins log (never the session log or the model). Default: dropped. */
  readonly logger?: PluginLogger;
}

/** Runs `scenario` and persists the session in `store`. */
export async function runScenario(scenario: Scenario, store: JsonlSessionStore, options: RunScenarioOptions = {}): Promise<ScenarioRun> {
  const { plugins: extraPlugins = [], now = Date.now, logger = silentLogger } = options;
  const header: SessionHeader = { version: 0, id: asSessionId(scenario.session.id), createdAt: now(), ...(scenario.session.cwd !== undefined ? { cwd: scenario.session.cwd } : {}), delegationDepth: 0 };
  const session = Session.create(scenario.session.id, { header });
  const model = new ScriptedModel({ script: scenario.model, ...(scenario.contextWindow !== undefined ? { contextWindow: scenario.contextWindow } : {}) });
  const agent = new Agent({ session, model });
  const registry = new InMemoryLiveRegistry();
  registry.attach(session);
  const sessionQuery = new SessionQuery({ registry, storage: store });
  const errors: string[] = [];
  agent.on('agent/error', (event) => {
    errors.push(event.error instanceof Error ? event.error.message : String(event.error));
  });
  for (const tool of scenario.tools) agent.registerTool(cannedTool(tool));
  const reference = new SessionReferenceService({ sessionQuery, config: (scenario.config.reference ?? {}) as Record<string, unknown> });
  for (const plugin of [sessionReferencePlugin(reference), ...extraPlugins]) plugin.apply(createPluginContext(agent, { config: scenario.config, sessionQuery, logger }));

  const commands: ScenarioCommandResult[] = [];
  for (const step of scenario.steps) {
    if ('prompt' in step) agent.prompt(step.prompt);
    else if ('steer' in step) agent.steer(createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: step.steer }] }));
    else {
      const result = await agent.runCommand(step.command);
      commands.push({ input: step.command, kind: result.kind, text: result.text });
    }
    await agent.runUntilIdle();
  }
  await agent.dispose();

  const path = await store.create(header, session.events);
  const names = new Map<string, string>();
  const toolResults: ScenarioToolResult[] = [];
  for (const event of session.events) {
    const data = event.data as { callId?: string; name?: string; message?: { source?: { callId?: string }; content?: unknown }; error?: unknown };
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

/**
 * The test harness of HOST.md §12: a real session, the real agent loop and a scripted model, with the request
 * invariant checked against a cold fold on every dispatch. Nothing mocks around append validation.
 */
import type { MessageSource, SessionEvent, SessionHeader } from '../../../protocol/events.js';
import { asSessionId } from '../../../protocol/events.js';
import { Agent } from './agent.js';
import { createPluginContext } from './plugin-context.js';
import { assertRequestMatchesColdFold } from './request-invariant.js';
import type { ScriptEntry } from './scripted-model.js';
import { ScriptedModel } from './scripted-model.js';
import { Session } from './session.js';
import type { ToolDefinition } from './tool-definition.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import type { AgentErrorEvent, CommandNotification, CommandResult, Plugin, PluginLogger, PluginStorage } from '../../host-api/host-api.js';

/** The harness clock's first value (2026-01-01T00:00:00Z); each reading adds 1 ms, so logs are reproducible. */
export const HARNESS_EPOCH_MS = 1_767_225_600_000;

/** `createTestHarness` options. */
export interface TestHarnessOptions {
  readonly plugins?: readonly Plugin[];
  readonly tools?: readonly ToolDefinition[];
  readonly script?: readonly ScriptEntry[];
  /** Plugin configuration by namespace. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** The scripted model's context window. */
  readonly contextWindow?: number;
  /** The session id; defaults to `test-session`. */
  readonly sessionId?: string;
  /** Events to seed the session with. */
  readonly seed?: readonly SessionEvent[];
  /** Plugin storage wired before the plugins start; omit it to test late storage (`agent.provideStorage`). */
  readonly storage?: PluginStorage;
}

/** One logger call the harness recorded. */
export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly text: string;
  readonly detail?: unknown;
}

/** The harness (HOST.md §12). */
export interface TestHarness {
  readonly agent: Agent;
  readonly session: Session;
  readonly model: ScriptedModel;
  /** Every `agent/error` report, in order. */
  readonly errors: AgentErrorEvent[];
  /** Every plugin logger call, in order. */
  readonly logs: LoggedLine[];
  /** Every command notification shown to the human, in order. */
  readonly notifications: CommandNotification[];
  /** Queues `text` as a user prompt and returns the message. */
  prompt(text: string): UserMessage;
  /** Runs a command line through the command runtime (HOST.md §9); `source` defaults to `{kind:'user'}`. */
  runCommand(input: string, source?: MessageSource): Promise<CommandResult>;
  /** Resolves when the agent is idle. */
  runUntilIdle(): Promise<void>;
  /** A new session rebuilt from a structured clone of this session's events (HOST.md §2.1 rule 4). */
  reload(): Session;
}

/** A deterministic clock: `HARNESS_EPOCH_MS`, then +1 ms per reading. */
function harnessClock(): () => number {
  let now = HARNESS_EPOCH_MS - 1;
  return () => {
    now += 1;
    return now;
  };
}

/** Builds the harness: session, scripted model, agent, tools, then every plugin applied in order. */
export function createTestHarness(options: TestHarnessOptions = {}): TestHarness {
  const id = options.sessionId ?? 'test-session';
  const model = new ScriptedModel({ script: options.script ?? [], contextWindow: options.contextWindow });
  const now = harnessClock();
  const header: SessionHeader = { version: 0, id: asSessionId(id), createdAt: HARNESS_EPOCH_MS };
  const contextWindowOf = (provider: string, name: string): number | undefined =>
    provider === model.provider && name === model.model ? model.contextWindow : undefined;
  const session = Session.create(
    id,
    options.seed === undefined ? { header, now, contextWindowOf } : { header, now, contextWindowOf, seed: structuredClone(options.seed) },
  );
  const agent = new Agent({
    session,
    model,
    checkRequest: (request, current) => assertRequestMatchesColdFold(request, current.events),
    storage: options.storage,
  });
  const errors: AgentErrorEvent[] = [];
  agent.on('agent/error', (event) => {
    errors.push(event);
  });
  const notifications: CommandNotification[] = [];
  agent.on('command/notify', (notification) => {
    notifications.push(notification);
  });
  const logs: LoggedLine[] = [];
  const record =
    (level: LoggedLine['level']) =>
    (text: string, detail?: unknown): void => {
      logs.push(detail === undefined ? { level, text } : { level, text, detail });
    };
  const logger: PluginLogger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  for (const tool of options.tools ?? []) agent.registerTool(tool);
  for (const plugin of options.plugins ?? []) {
    plugin.apply(createPluginContext(agent, { config: options.config ?? {}, logger }));
  }
  return {
    agent,
    session,
    model,
    errors,
    logs,
    notifications,
    prompt: (text) => agent.prompt(text),
    runCommand: (input, source) => agent.runCommand(input, source),
    runUntilIdle: () => agent.runUntilIdle(),
    reload: () => Session.create(id, { header: session.header, now, contextWindowOf, seed: structuredClone(session.events) }),
  };
}

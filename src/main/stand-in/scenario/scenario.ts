/**
 * The scripted-scenario format of `sessionctx script run` (see the README), validated at the
 * boundary: a session, the scripted model's replies, canned tools, and the steps a person takes.
 */
import type { ScriptedReply } from '../host/scripted-model.js';
import { ScenarioError } from './scenario-error.js';

/** A canned tool: returns `result` (or the next of `results`), or fails with `error`. */
export interface ScenarioTool {
  readonly name: string;
  readonly description: string;
  readonly result?: string;
  readonly results?: readonly string[];
  readonly error?: string;
}

/** One thing the person does. */
export type ScenarioStep = { readonly prompt: string } | { readonly command: string } | { readonly steer: string };

/** A whole scenario. */
export interface Scenario {
  readonly session: { readonly id: string; readonly cwd?: string };
  /** Plugin configuration by namespace (e.g. `dcp`), and reference limits under `reference`. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly model: readonly ScriptedReply[];
  readonly tools: readonly ScenarioTool[];
  readonly steps: readonly ScenarioStep[];
  readonly contextWindow?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expectString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new ScenarioError(`${path} must be a string`);
  return value;
}

function expectArray(value: unknown, path: string): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ScenarioError(`${path} must be an array`);
  return value;
}

function parseStep(value: unknown, index: number): ScenarioStep {
  const path = `steps[${index}]`;
  if (!isRecord(value)) throw new ScenarioError(`${path} must be an object with one of prompt, command or steer`);
  const keys = Object.keys(value);
  if (keys.length !== 1)
    throw new ScenarioError(
      `${path} must have exactly one of prompt, command or steer, got ${keys.map((key) => JSON.stringify(key)).join(', ') || 'none'}`,
    );
  const [key] = keys as [string];
  switch (key) {
    case 'prompt':
      return { prompt: expectString(value.prompt, `${path}.prompt`) };
    case 'command':
      return { command: expectString(value.command, `${path}.command`) };
    case 'steer':
      return { steer: expectString(value.steer, `${path}.steer`) };
    default:
      throw new ScenarioError(`${path} has unknown kind ${JSON.stringify(key)}; use prompt, command or steer`);
  }
}

function parseReply(value: unknown, index: number): ScriptedReply {
  const path = `model[${index}]`;
  if (!isRecord(value))
    throw new ScenarioError(`${path} must be an object such as {"text": "…"} or {"toolCalls": [{"name": "…", "args": {…}}]}`);
  const allowed = new Set(['text', 'reasoning', 'toolCalls', 'error', 'usage']);
  const unknown = Object.keys(value).filter((key) => !allowed.has(key));
  if (unknown.length > 0)
    throw new ScenarioError(`${path} has unknown key ${JSON.stringify(unknown[0])}; allowed: ${[...allowed].join(', ')}`);
  if (value.text !== undefined) expectString(value.text, `${path}.text`);
  if (value.reasoning !== undefined) expectString(value.reasoning, `${path}.reasoning`);
  expectArray(value.toolCalls, `${path}.toolCalls`).forEach((call, callIndex) => {
    if (!isRecord(call) || typeof call.name !== 'string')
      throw new ScenarioError(`${path}.toolCalls[${callIndex}] must be {"name": string, "args": value, "id"?: string}`);
  });
  return value as ScriptedReply;
}

function parseTool(value: unknown, index: number): ScenarioTool {
  const path = `tools[${index}]`;
  if (!isRecord(value)) throw new ScenarioError(`${path} must be an object`);
  const name = expectString(value.name, `${path}.name`);
  const results =
    value.results === undefined
      ? undefined
      : expectArray(value.results, `${path}.results`).map((result, resultIndex) => expectString(result, `${path}.results[${resultIndex}]`));
  return {
    name,
    description: value.description === undefined ? `canned ${name}` : expectString(value.description, `${path}.description`),
    ...(value.result !== undefined ? { result: expectString(value.result, `${path}.result`) } : {}),
    ...(results !== undefined ? { results } : {}),
    ...(value.error !== undefined ? { error: expectString(value.error, `${path}.error`) } : {}),
  };
}

/** Validates a parsed scenario file. */
export function parseScenario(value: unknown): Scenario {
  if (!isRecord(value)) throw new ScenarioError('a scenario must be a JSON object with session, model and steps');
  const session = value.session === undefined ? {} : value.session;
  if (!isRecord(session)) throw new ScenarioError('session must be an object {"id"?: string, "cwd"?: string}');
  const id = session.id === undefined ? `scenario-${globalThis.crypto.randomUUID()}` : expectString(session.id, 'session.id');
  if (id === '') throw new ScenarioError('session.id must not be empty');
  const cwd = session.cwd === undefined ? undefined : expectString(session.cwd, 'session.cwd');
  if (cwd !== undefined && !cwd.startsWith('/'))
    throw new ScenarioError(`session.cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  const config = value.config === undefined ? {} : value.config;
  if (!isRecord(config)) throw new ScenarioError('config must be an object of plugin namespaces');
  const contextWindow = value.contextWindow;
  if (contextWindow !== undefined && (!Number.isSafeInteger(contextWindow) || (contextWindow as number) <= 0))
    throw new ScenarioError('contextWindow must be a positive integer');
  const steps = expectArray(value.steps, 'steps').map(parseStep);
  if (steps.length === 0) throw new ScenarioError('steps must contain at least one step');
  return {
    session: cwd === undefined ? { id } : { id, cwd },
    config,
    model: expectArray(value.model, 'model').map(parseReply),
    tools: expectArray(value.tools, 'tools').map(parseTool),
    steps,
    ...(contextWindow !== undefined ? { contextWindow: contextWindow as number } : {}),
  };
}

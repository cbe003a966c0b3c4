/**
 * `sessionctx/host`: the stand-in harness host of HOST.md — the validated `Session`, the `Agent` loop, plugin
 * contexts, the scripted model and the test harness. It implements the host API (`HostSession`, `HostAgent`,
 * `PluginContext`, … in the main entry `sessionctx`), so plugins written against those interfaces can be run and
 * tested here; a real harness provides its own implementation instead.
 */
export { Session } from './host/session.js';
export type { SessionCreateOptions, SessionRuntimeOptions, ForkOptions } from './host/session.js';
export { SessionAppendError } from './host/session-append-error.js';
export type { SessionAppendErrorCode } from './host/session-append-error.js';
export { Agent } from './host/agent.js';
export type { AgentOptions, TurnEndReason } from './host/agent.js';
export { createPluginContext, silentLogger } from './host/plugin-context.js';
export type { PluginHostOptions } from './host/plugin-context.js';
export { ScriptedModel } from './host/scripted-model.js';
export type { ScriptEntry, ScriptedModelOptions, ScriptedReply, ScriptedToolCall } from './host/scripted-model.js';
export type { ModelChunk, ModelClient, ModelFailure, ModelRequest, ToolDescriptor } from './host/model-client.js';
export { createTestHarness, HARNESS_EPOCH_MS } from './host/test-harness.js';
export type { LoggedLine, TestHarness, TestHarnessOptions } from './host/test-harness.js';
export type * from './host-api/host-api.js';
export { MemoryStorage } from './host/storage/memory-storage.js';
export { JsonFileStorage } from './host/storage/json-file-storage.js';
export { PluginStorageError } from './host/storage/plugin-storage.js';
export type { PluginStorageErrorCode } from './host/storage/plugin-storage.js';
// The scenario runner drives the stand-in host with a scripted model (`sessionctx script run`).
export { runScenario } from './scenario/run-scenario.js';
export type { RunScenarioOptions, ScenarioRun } from './scenario/run-scenario.js';
export { parseScenario } from './scenario/scenario.js';
export type { Scenario } from './scenario/scenario.js';

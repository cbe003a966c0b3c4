/**
 * `sessionctx/host`: the stand-in harness host of HOST.md — the validated `Session`, the `Agent` loop, plugin
 * contexts, the scripted model and the test harness. It implements the host API (`HostSession`, `HostAgent`,
 * `PluginContext`, … in the main entry `sessionctx`), so plugins written against those interfaces can be run and
 * tested here; a real harness provides its own implementation instead.
 */
export { Session } from './stand-in/host/session.js';
export type { SessionCreateOptions, SessionRuntimeOptions, ForkOptions } from './stand-in/host/session.js';
export { SessionAppendError } from './stand-in/host/session-append-error.js';
export type { SessionAppendErrorCode } from './stand-in/host/session-append-error.js';
export { Agent } from './stand-in/host/agent.js';
export type { AgentOptions, TurnEndReason } from './stand-in/host/agent.js';
export { silentLogger } from './host-kit/silent-logger.js';
export { createPluginContext } from './stand-in/host/plugin-context.js';
export type { PluginHostOptions } from './stand-in/host/plugin-context.js';
export { ScriptedModel } from './stand-in/host/scripted-model.js';
export type { ScriptEntry, ScriptedModelOptions, ScriptedReply, ScriptedToolCall } from './stand-in/host/scripted-model.js';
export type { ModelChunk, ModelClient, ModelFailure, ModelRequest, ToolDescriptor } from './stand-in/host/model-client.js';
export { createTestHarness, HARNESS_EPOCH_MS } from './stand-in/host/test-harness.js';
export type { LoggedLine, TestHarness, TestHarnessOptions } from './stand-in/host/test-harness.js';
export type * from './host-api/host-api.js';
export { MemoryStorage } from './host-kit/storage/memory-storage.js';
export { JsonFileStorage } from './stand-in/host/storage/json-file-storage.js';
export { PluginStorageError } from './host-kit/storage/plugin-storage.js';
export type { PluginStorageErrorCode } from './host-kit/storage/plugin-storage.js';
// The scenario runner drives the stand-in host with a scripted model (`sessionctx script run`).
export { runScenario } from './stand-in/scenario/run-scenario.js';
export type { RunScenarioOptions, ScenarioRun } from './stand-in/scenario/run-scenario.js';
export { parseScenario } from './stand-in/scenario/scenario.js';
export type { Scenario } from './stand-in/scenario/scenario.js';

/**
 * The dsh 0.1.0-rc.6 kit of the DCP real-host tests (`../dsh-host/support/dcp-kit.mts`): this package's own
 * `@deepseek-ai/*` 0.1.0-rc.6 (cordis 4.0.1) — the release dsh-dcp 0.1.0-rc.5 recorded `test/fixtures/dcp-dsh` on —
 * and `sessionctx/dsh-dcp` from the packed tarball.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Context } from '@deepseek-ai/cordis';
import AgentRegistry from '@deepseek-ai/dsh-agent';
import * as agentInvariant from '@deepseek-ai/dsh-agent/invariant';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';
import * as agentLoopInvariant from '@deepseek-ai/dsh-agent-loop/invariant';
import CommandRuntime from '@deepseek-ai/dsh-commands';
import * as commandsInvariant from '@deepseek-ai/dsh-commands/invariant';
import * as compactionInvariant from '@deepseek-ai/dsh-compaction/invariant';
import InvariantRegistry from '@deepseek-ai/dsh-invariants';
import LlmRuntime, { CallId, LlmAdapter, LlmError, createUserMessage } from '@deepseek-ai/dsh-llm';
import * as llmInvariant from '@deepseek-ai/dsh-llm/invariant';
import SessionStore, { Session, SessionId, foldRequestHeader } from '@deepseek-ai/dsh-session';
import * as sessionInvariant from '@deepseek-ai/dsh-session/invariant';
import Storage from '@deepseek-ai/dsh-storage';
import * as storageInvariant from '@deepseek-ai/dsh-storage/invariant';
import * as storageDomain from '@deepseek-ai/dsh-storage-domain';
import * as storageDomainInvariant from '@deepseek-ai/dsh-storage-domain/invariant';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import * as systemPromptInvariant from '@deepseek-ai/dsh-system-prompt/invariant';
import ToolRuntime from '@deepseek-ai/dsh-tools';
import * as toolsInvariant from '@deepseek-ai/dsh-tools/invariant';
import type { DcpDshKit, KitAgent, KitCommandExecution, KitContext } from '../../dsh-host/support/dcp-kit.mts';

// sessionctx as this package installs it for the run (support/packed-sessionctx.mts), resolved through its `exports` from this file's folder (so each release's kit
// loads its own package's copy, also when another package's test imports the kit), and imported at run time: the type
// check runs before the tarball is installed.
const SESSIONCTX_DSH_DCP = createRequire(import.meta.url).resolve('sessionctx/dsh-dcp');
const { default: dcpPlugin } = (await import(pathToFileURL(SESSIONCTX_DSH_DCP).href)) as { default: unknown };

export const rc6Kit: DcpDshKit = {
  label: 'dsh 0.1.0-rc.6',
  Context: Context as unknown as DcpDshKit['Context'],
  plugins: {
    llm: LlmRuntime,
    sessions: SessionStore,
    systemPrompt: SystemPrompt,
    tools: ToolRuntime,
    agents: AgentRegistry,
    agentLoop: AgentLoop,
    commands: CommandRuntime,
    invariants: InvariantRegistry,
    storage: Storage,
    storageDomain,
  },
  invariantCompanions: [
    agentInvariant,
    agentLoopInvariant,
    commandsInvariant,
    compactionInvariant,
    llmInvariant,
    sessionInvariant,
    storageInvariant,
    storageDomainInvariant,
    systemPromptInvariant,
    toolsInvariant,
  ],
  LlmAdapter: LlmAdapter as unknown as DcpDshKit['LlmAdapter'],
  LlmError: LlmError as unknown as DcpDshKit['LlmError'],
  CallId: (id) => CallId(id),
  createUserMessage: (input) => createUserMessage(input as never),
  SessionId: (id) => SessionId(id),
  coldDerivedMessages: (id, events) => Session.create(SessionId(id), structuredClone(events) as never).deriveMessages(),
  foldRequestHeader: (events) => foldRequestHeader(events as never),
  // rc.6's registry takes no composer images: `execute(agent, line, signal)`.
  executeCommand: (ctx: KitContext, agent: KitAgent, line: string, signal: AbortSignal) =>
    (ctx['commands'] as { execute(agent: unknown, line: string, signal: AbortSignal): Promise<KitCommandExecution | undefined> }).execute(
      agent,
      line,
      signal,
    ),
  dcpPlugin,
};

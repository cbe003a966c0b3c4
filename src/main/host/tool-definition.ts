/**
 * Model tools (HOST.md §7.1) and the `tool/approve` waterfall (HOST.md §7.2 step 3).
 */
import type { ContentBlock, ToolCallBlock } from '../../protocol/events.js';
import type { Agent } from './agent.js';
import type { Session } from './session.js';
import type { WaterfallListener } from './waterfall.js';

/** What a tool execution sees. `parent` is only set for code-mode sub-calls, which this host does not run. */
export interface ToolExecutionContext {
  readonly callId: string;
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
  readonly agent: Agent;
  readonly session: Session;
  readonly parent?: unknown;
}

/** What a tool returns: text (one text block) or content blocks. */
export type ToolOutput = string | readonly ContentBlock[];

/**
 * A model tool. `parameters` is shown to the model and never enforced by the host: tools validate their own
 * arguments so that their error texts reach the model unchanged. `concurrencySafe` tools may run together with
 * neighbouring concurrency-safe calls; every other tool runs alone (HOST.md §7.3).
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
  readonly concurrencySafe?: boolean;
  execute(args: unknown, exec: ToolExecutionContext): ToolOutput | Promise<ToolOutput>;
}

/** The payload of the `tool/approve` waterfall. */
export interface ToolApprovePayload {
  readonly agent: Agent;
  readonly session: Session;
  readonly call: ToolCallBlock;
  readonly tool: ToolDefinition;
}

/** An approval decision; the default is allow. */
export type ToolApprovalDecision = { readonly kind: 'allow' } | { readonly kind: 'deny'; readonly reason: string };

/** A `tool/approve` listener. */
export type ToolApproveListener = WaterfallListener<ToolApprovePayload, ToolApprovalDecision>;

/**
 * Model tools (HOST.md §7.1) and the `tool/approve` waterfall (HOST.md §7.2 step 3).
 */
import type { ContentBlock, ToolCallBlock } from '../../protocol/events.js';
import type { Agent } from './agent.js';
import type { Session } from './session.js';
import type { WaterfallListener } from './waterfall.js';
import type { ToolExecutionContext, ToolOutput, ToolDefinition, ToolApprovePayload, ToolApprovalDecision, ToolApproveListener } from '../host-api/host-api.js';
export type { ToolExecutionContext, ToolOutput, ToolDefinition, ToolApprovePayload, ToolApprovalDecision, ToolApproveListener } from '../host-api/host-api.js';

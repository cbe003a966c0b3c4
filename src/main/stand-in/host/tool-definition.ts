export type {
  ToolExecutionContext,
  ToolDefinition,
} from '../../host-api/host-api.js';

/**
 * A host-API tool as a dsh tool (docs/DSH-DCP.md §4): registered with `ctx.tools.register` as it is — the name, the
 * description and the JSON Schema exactly as the tool declares them (not rebuilt by dsh's `defineTool` helper, whose
 * schema language cannot say `minLength`, `maxItems` or `additionalProperties`), never concurrency-safe unless the
 * tool says so (dsh runs it exclusive), its text output declared as dsh's canonical `string` value. The call sees
 * the agent's view: `turn` and `step` are the open step the view folded (dsh's execution context carries neither).
 * `execute` calls the tool synchronously: a tool without `await`, like `compress`, runs in one call stack (unless the
 * session's view is still folding a long log, which the call waits for first).
 */
import type { ToolDefinition, ToolExecutionContext } from '../main/host-api/host-api.js';
import { DshDcpError } from './dsh-dcp-error.js';
import type { DshAgent, DshToolDefinition, DshToolRunContext } from './dsh-dcp-host-shapes.js';
import type { DshAgentFacade } from './dsh-agent-facade.js';
import type { DshSessionView } from './dsh-session-view.js';

/** How the adapters reach the view and the facade of a dsh agent. */
export interface DshAgentResolver {
  view(agent: DshAgent): DshSessionView;
  /** The view once its first fold is done: at once when it is, else a promise (a long log is folded in slices). */
  ready(agent: DshAgent): DshSessionView | Promise<DshSessionView>;
  facade(agent: DshAgent): DshAgentFacade;
}

/** dsh's canonical value of a text tool result. */
const STRING_OUTPUT = Object.freeze({ type: 'string' });

/** The host-API execution context of one dsh call. */
function executionContext(exec: DshToolRunContext, resolver: DshAgentResolver): ToolExecutionContext {
  const base = { callId: exec.callId, signal: exec.signal, ...(exec.parent === undefined ? {} : { parent: exec.parent }) };
  if (exec.agent === undefined) return { ...base, turn: 0, step: 0 };
  const session = resolver.view(exec.agent);
  const open = session.openStep();
  const turn = open?.turn ?? session.openTurn()?.turn ?? session.highestTurn() ?? 0;
  return { ...base, turn, step: open?.step ?? 0, agent: resolver.facade(exec.agent), session };
}

/** The dsh registration of `definition`. */
export function dshTool(definition: ToolDefinition, resolver: DshAgentResolver): DshToolDefinition {
  const run = async (args: unknown, exec: DshToolRunContext): Promise<unknown> => {
    // Only a view still folding its log is waited for: otherwise the call stays in one call stack.
    const ready = exec.agent === undefined ? undefined : resolver.ready(exec.agent);
    if (ready instanceof Promise) await ready;
    const output = await definition.execute(args, executionContext(exec, resolver));
    if (typeof output !== 'string') {
      throw new DshDcpError(
        'DSH_DCP_UNSUPPORTED',
        `sessionctx/dsh-dcp: tool "${definition.name}" returned content blocks; on dsh a tool returns text`,
      );
    }
    return output;
  };
  return {
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters,
    output: { schema: STRING_OUTPUT, render: (_args, value) => [{ type: 'text', text: String(value) }] },
    execute: run,
    ...(definition.concurrencySafe === true ? { isConcurrencySafe: () => true } : {}),
  };
}

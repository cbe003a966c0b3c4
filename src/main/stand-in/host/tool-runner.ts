/**
 * Runs the tool calls of one assistant message (HOST.md §7.2, §7.3): logs `tool/call`, checks name and
 * arguments, asks the `tool/approve` waterfall, executes, and logs one `tool/result` per call. Concurrency-safe
 * neighbours run together; every other call runs alone. On abort every call without a result gets
 * `tool call aborted`, so tool pairing stays balanced.
 */
import { randomUUID } from 'node:crypto';
import type { ContentBlock, Message, ToolCallBlock, ToolResultData } from '../../../protocol/events.js';
import { raceWithSignal } from '../../engine/signal/abort.js';
import type { HostAgent, HostSession, ToolApprovalDecision, ToolApproveListener, ToolDefinition } from '../../host-api/host-api.js';
import { runWaterfall } from './waterfall.js';

/** `tool/result` `data.error`. */
export interface ToolResultError {
  readonly name: string;
  readonly code: string;
}

/** The result of one call before it is logged. */
interface ToolOutcome {
  readonly content: readonly ContentBlock[];
  readonly isError: boolean;
  readonly error?: ToolResultError;
}

/** The text and error of a call cut off by an abort (HOST.md §6.2). */
const ABORTED_OUTCOME: ToolOutcome = {
  content: [{ type: 'text', text: 'tool call aborted' }],
  isError: true,
  error: { name: 'AbortError', code: 'TOOL_ABORTED' },
};

/** An error outcome with one text block. */
function errorOutcome(text: string, error?: ToolResultError): ToolOutcome {
  const content = [{ type: 'text', text }];
  return error === undefined ? { content, isError: true } : { content, isError: true, error };
}

/**
 * The outcome of a tool that threw (HOST.md §7.2 rule 4), as dsh renders it: `isError` and the text
 * `Error: <message>`, with no `data.error` in the `tool/result` (the text is all the model and the log get).
 */
export function thrownToolText(thrown: unknown): string {
  return `Error: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
}

function thrownOutcome(thrown: unknown): ToolOutcome {
  return errorOutcome(thrownToolText(thrown));
}

/** The raw JSON string of a call's arguments (non-strings are serialised, as the estimator does). */
function argumentsText(call: ToolCallBlock): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** The context of one step's tool calls. */
export interface ToolRunContext {
  readonly agent: HostAgent;
  readonly session: HostSession;
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly approveListeners: readonly ToolApproveListener[];
}

/** Groups call indexes into runs: maximal runs of concurrency-safe calls, and single exclusive calls. */
function scheduleRuns(calls: readonly ToolCallBlock[], tools: ReadonlyMap<string, ToolDefinition>): number[][] {
  const runs: number[][] = [];
  let concurrent: number[] | undefined;
  calls.forEach((call, index) => {
    if (tools.get(call.name)?.concurrencySafe === true) {
      if (concurrent === undefined) {
        concurrent = [];
        runs.push(concurrent);
      }
      concurrent.push(index);
      return;
    }
    concurrent = undefined;
    runs.push([index]);
  });
  return runs;
}

/** Executes one step's tool calls; see the module comment. Never throws for a tool's own failure. */
export class ToolRunner {
  readonly #context: ToolRunContext;
  readonly #calls: readonly ToolCallBlock[];
  /** Call indexes whose result is not logged yet. */
  readonly #unanswered: Set<number>;
  /** `tool/call` seq by call index, for the result's provenance. */
  readonly #callSeqs = new Map<number, number>();

  constructor(context: ToolRunContext, calls: readonly ToolCallBlock[]) {
    this.#context = context;
    this.#calls = calls;
    this.#unanswered = new Set(calls.map((_, index) => index));
  }

  /** Runs every call; resolves when each has a logged result (its own, or `tool call aborted`). */
  async run(): Promise<void> {
    const { signal } = this.#context;
    for (const run of scheduleRuns(this.#calls, this.#context.tools)) {
      if (signal.aborted) break;
      for (const index of run) this.#logCall(index);
      const settled = Promise.all(run.map((index) => this.#settle(index)));
      try {
        await raceWithSignal(settled, signal);
      } catch {
        // Only an abort rejects here (`#settle` never throws); the abort is handled below.
        break;
      }
    }
    for (const index of [...this.#unanswered]) this.#logResult(index, ABORTED_OUTCOME);
  }

  #logCall(index: number): void {
    const call = this.#calls[index] as ToolCallBlock;
    const { turn, step, session } = this.#context;
    const event = session.append('tool/call', { turn, step, callId: call.id, name: call.name, arguments: argumentsText(call) });
    this.#callSeqs.set(index, event.seq);
  }

  /** Computes the outcome and logs it, unless the turn was aborted meanwhile (then the abort answers). */
  async #settle(index: number): Promise<void> {
    const outcome = await this.#outcome(this.#calls[index] as ToolCallBlock);
    if (this.#context.signal.aborted || !this.#unanswered.has(index)) return;
    try {
      this.#logResult(index, outcome);
    } catch (error) {
      // The tool produced content the log refuses (not lossless JSON, for example); the model gets the reason.
      this.#logResult(
        index,
        errorOutcome(`tool result cannot be logged: ${error instanceof Error ? error.message : String(error)}`, {
          name: 'Error',
          code: 'TOOL_ERROR',
        }),
      );
    }
  }

  #logResult(index: number, outcome: ToolOutcome): void {
    const call = this.#calls[index] as ToolCallBlock;
    const { turn, step, session } = this.#context;
    const message: Message = {
      source: { kind: 'tool', callId: call.id },
      content: [{ type: 'tool-result', toolCallId: call.id, content: outcome.content, isError: outcome.isError }],
      role: 'user',
      id: randomUUID(),
    };
    const data: ToolResultData = outcome.error === undefined ? { turn, step, message } : { turn, step, message, error: outcome.error };
    const callSeq = this.#callSeqs.get(index);
    session.append(
      'tool/result',
      data,
      callSeq === undefined ? { surfaceOp: 'append' } : { sourceEventSeqs: [callSeq], surfaceOp: 'append' },
    );
    this.#unanswered.delete(index);
  }

  /** Steps 2–4 of HOST.md §7.2 for one call; every failure becomes an error outcome. */
  async #outcome(call: ToolCallBlock): Promise<ToolOutcome> {
    const { agent, session, turn, step, signal, tools, approveListeners } = this.#context;
    const tool = tools.get(call.name);
    if (tool === undefined) return errorOutcome(`unknown tool "${call.name}"`);
    let args: unknown;
    try {
      args = JSON.parse(argumentsText(call));
    } catch (error) {
      return errorOutcome(`invalid tool arguments: ${error instanceof Error ? error.message : String(error)}`);
    }
    let decision: ToolApprovalDecision;
    try {
      decision = await runWaterfall('tool/approve', approveListeners, { agent, session, call, tool }, () => ({ kind: 'allow' }));
    } catch (error) {
      return thrownOutcome(error);
    }
    if (decision.kind === 'deny') {
      return errorOutcome(`Tool call denied: ${decision.reason}`, { name: 'ToolDenied', code: 'TOOL_DENIED' });
    }
    let output: unknown;
    try {
      output = await tool.execute(args, { callId: call.id, turn, step, signal, agent, session });
    } catch (error) {
      return thrownOutcome(error);
    }
    if (typeof output === 'string') return { content: [{ type: 'text', text: output }], isError: false };
    if (Array.isArray(output)) return { content: output as readonly ContentBlock[], isError: false };
    return errorOutcome(`tool "${call.name}" returned neither a string nor content blocks`, { name: 'Error', code: 'TOOL_ERROR' });
  }
}

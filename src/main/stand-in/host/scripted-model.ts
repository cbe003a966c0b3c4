/**
 * A deterministic model for tests (HOST.md §12). It replays a script of replies and streams them as real
 * chunks (block-start, deltas, block-end, usage, finish), so the logs it produces look like production logs.
 */
import type { ContentBlock, ToolCallBlock } from '../../../protocol/events.js';
import type { ModelChunk, ModelClient, ModelFailure, ModelRequest } from './model-client.js';

/** A scripted tool call; `args` are serialised with `JSON.stringify`, `id` defaults to `call-<n>`. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly args: unknown;
  readonly id?: string;
}

/**
 * One scripted reply. The documented forms are `{text}`, `{blocks}`, `{toolCalls}`, `{hang: true}` and
 * `{error}`; fields may be combined (blocks are streamed as `blocks`, else reasoning, text, tool calls). With
 * `hang`, the content is streamed first — complete tool-call blocks, but the text block without its
 * `block-end` — and then the stream waits until the signal aborts.
 */
export interface ScriptedReply {
  readonly text?: string;
  readonly reasoning?: string;
  readonly blocks?: readonly ContentBlock[];
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly hang?: true;
  /** A provider failure, streamed as a `finish` chunk with reason `error` (code `UNKNOWN` for a string). */
  readonly error?: string | ModelFailure;
  /** The usage chunk's payload; defaults to rough counts. */
  readonly usage?: unknown;
}

/** A script entry: a reply, or a function of the request returning one. */
export type ScriptEntry = ScriptedReply | ((request: ModelRequest) => ScriptedReply);

/** `ScriptedModel` options. */
export interface ScriptedModelOptions {
  readonly provider?: string;
  readonly model?: string;
  readonly contextWindow?: number;
  readonly script: readonly ScriptEntry[];
}

/** Splits text into word-sized deltas, as providers stream it. */
function deltas(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? [''];
}

/** An abort of a scripted request. */
function abortError(): Error {
  const error = new Error('scripted model request aborted');
  error.name = 'AbortError';
  return error;
}

/** Resolves when `signal` aborts (never, otherwise). */
function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** A scripted model (HOST.md §12). */
export class ScriptedModel implements ModelClient {
  readonly provider: string;
  readonly model: string;
  readonly contextWindow: number | undefined;
  /** Every request received, in order. */
  readonly requests: ModelRequest[] = [];
  readonly #script: readonly ScriptEntry[];
  #callCount = 0;

  constructor(options: ScriptedModelOptions) {
    this.provider = options.provider ?? 'scripted';
    this.model = options.model ?? 'scripted-1';
    this.contextWindow = options.contextWindow;
    this.#script = options.script;
  }

  /** The number of requests received. */
  get dispatchCount(): number {
    return this.requests.length;
  }

  /**
   * Records `request` and streams the next scripted reply. A script that has run out throws
   * `scripted model has no reply for request <n>` (`n` counts requests from 1).
   */
  async *stream(request: ModelRequest, options: { readonly signal: AbortSignal }): AsyncGenerator<ModelChunk> {
    this.requests.push(request);
    const number = this.requests.length;
    const entry = this.#script[number - 1];
    if (entry === undefined) throw new Error(`scripted model has no reply for request ${number}`);
    const reply = typeof entry === 'function' ? entry(request) : entry;
    const { signal } = options;
    if (reply.error !== undefined) {
      const failure = typeof reply.error === 'string' ? { message: reply.error, code: 'UNKNOWN' } : reply.error;
      yield { type: 'finish', reason: { kind: 'error', failure } };
      return;
    }
    const blocks = this.#blocksOf(reply);
    for (let index = 0; index < blocks.length; index++) {
      const block = blocks[index] as ContentBlock;
      const cutOff = reply.hang === true && block.type !== 'tool-call';
      for (const chunk of this.#blockChunks(index, block, cutOff)) {
        if (signal.aborted) throw abortError();
        yield chunk;
      }
    }
    if (reply.hang === true) {
      await untilAborted(signal);
      throw abortError();
    }
    const outputText = blocks.map((block) => JSON.stringify(block)).join('');
    yield {
      type: 'usage',
      usage: reply.usage ?? {
        inputTokens: Math.ceil(JSON.stringify(request.messages).length / 4),
        outputTokens: Math.ceil(outputText.length / 4),
      },
    };
    const hasToolCalls = blocks.some((block) => block.type === 'tool-call');
    yield { type: 'finish', reason: { kind: hasToolCalls ? 'tool-calls' : 'stop' } };
  }

  /** The reply's content blocks, tool-call ids assigned. */
  #blocksOf(reply: ScriptedReply): ContentBlock[] {
    if (reply.blocks !== undefined) return [...reply.blocks];
    const blocks: ContentBlock[] = [];
    if (reply.reasoning !== undefined) blocks.push({ type: 'reasoning', text: reply.reasoning });
    if (reply.text !== undefined) blocks.push({ type: 'text', text: reply.text });
    for (const call of reply.toolCalls ?? []) {
      this.#callCount += 1;
      const block: ToolCallBlock = {
        type: 'tool-call',
        id: call.id ?? `call-${this.#callCount}`,
        name: call.name,
        arguments: JSON.stringify(call.args),
      };
      blocks.push(block);
    }
    return blocks;
  }

  /** The chunks of one block; `cutOff` leaves out the `block-end` (a stream interrupted inside the block). */
  #blockChunks(index: number, block: ContentBlock, cutOff: boolean): ModelChunk[] {
    const chunks: ModelChunk[] = [{ type: 'block-start', index, blockType: block.type }];
    if (block.type === 'text' || block.type === 'reasoning') {
      const deltaType = block.type === 'text' ? 'text-delta' : 'reasoning-delta';
      for (const text of deltas(String(block['text'] ?? ''))) chunks.push({ type: deltaType, index, text });
    } else if (block.type === 'tool-call') {
      const call = block as ToolCallBlock;
      deltas(call.arguments).forEach((argumentsDelta, position) => {
        chunks.push(
          position === 0
            ? { type: 'tool-call-delta', index, id: call.id, name: call.name, argumentsDelta }
            : { type: 'tool-call-delta', index, id: call.id, argumentsDelta },
        );
      });
    }
    if (!cutOff) chunks.push({ type: 'block-end', index, block });
    return chunks;
  }
}

/**
 * A scripted model for a dsh host: an `LlmAdapter` (the provider-wire seam of `@deepseek-ai/dsh-llm`) that records
 * every request dsh hands it and answers each from the next scripted reply.
 */
import { CallId, LlmAdapter, LlmError } from '@deepseek-ai/dsh-llm';
import type { GenerateOptions, LlmResolvedModelInfo, StreamChunk, TokenUsage } from '@deepseek-ai/dsh-llm';

/**
 * One model request exactly as dsh handed it to the adapter (after the whole `llm/stream` waterfall, so after the
 * checkpoint policy's flush), detached from dsh's frozen objects. Everything but the live `signal` is kept:
 * provider, model, maxTokens and the other call-config scalars, `system`, `tools`, `messages`, `sessionId`, `purpose`.
 */
export type RecordedRequest = Omit<GenerateOptions, 'signal'>;

/** A tool call the scripted model emits. */
export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  /** Arguments; an object is JSON-encoded, a string is sent verbatim. */
  readonly arguments: string | Record<string, unknown>;
}

/** One scripted reply. Each model request consumes the next reply in order. */
export type ScriptedReply =
  | {
      /** A normal answer: optional reasoning, text, optional tool calls. */
      readonly kind: 'text';
      readonly text: string;
      readonly reasoning?: string;
      /** How to split `text` into `text-delta` chunks; default one delta holding the whole text. */
      readonly deltas?: readonly string[];
      readonly toolCalls?: readonly ScriptedToolCall[];
      /** Token usage chunk; default `{ inputTokens: 0, outputTokens: 0 }`. `null` omits the usage chunk. */
      readonly usage?: TokenUsage | null;
      /** Finish reason; default `stop`, or `tool-calls` when `toolCalls` is non-empty. */
      readonly finish?: 'stop' | 'max-tokens' | 'tool-calls';
    }
  | {
      /**
       * A provider failure: the adapter throws `new LlmError(message, code, { status })`, which dsh's LLM runtime turns
       * into a terminal `error` finish; the loop then ends the turn with `{ kind: 'error' }` and emits `agent/error`.
       */
      readonly kind: 'error';
      readonly message: string;
      /** Default `PROVIDER_ERROR`. */
      readonly code?: string;
      readonly status?: number;
    }
  | {
      /** Stream the given raw chunks verbatim. */
      readonly kind: 'chunks';
      readonly chunks: readonly StreamChunk[];
    }
  | {
      /** Stream `chunks` (default none), then wait until the request's signal aborts (a cancel), then throw. */
      readonly kind: 'hang';
      readonly chunks?: readonly StreamChunk[];
    }
  | ((request: RecordedRequest) => ScriptedReply);

/** The model route the scripted adapter serves. */
export interface ScriptedModelOptions {
  /** Provider route. Default `scripted`. */
  readonly provider?: string;
  /** Model id. Default `scripted-chat`. */
  readonly model?: string;
  /** Context window reported by `resolveModel` (logged as `request/context`). Default 128000; `null` reports none. */
  readonly contextWindow?: number | null;
  /** Output cap the adapter materializes when the agent sets none (logged with `adapterDefaults.maxTokens`). */
  readonly defaultMaxTokens?: number;
}

/** Build the chunk stream for a `text` reply. */
function textChunks(reply: Extract<ScriptedReply, { kind: 'text' }>): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  let index = 0;
  if (reply.reasoning !== undefined && reply.reasoning !== '') {
    chunks.push(
      { type: 'block-start', index, blockType: 'reasoning' },
      { type: 'reasoning-delta', index, text: reply.reasoning },
      { type: 'block-end', index, block: { type: 'reasoning', text: reply.reasoning } },
    );
    index += 1;
  }
  if (reply.text !== '') {
    const deltas = reply.deltas ?? [reply.text];
    if (deltas.join('') !== reply.text) throw new Error('scripted reply: deltas must concatenate to text');
    chunks.push({ type: 'block-start', index, blockType: 'text' });
    for (const delta of deltas) chunks.push({ type: 'text-delta', index, text: delta });
    chunks.push({ type: 'block-end', index, block: { type: 'text', text: reply.text } });
    index += 1;
  }
  for (const call of reply.toolCalls ?? []) {
    const id = CallId(call.id);
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    chunks.push(
      { type: 'block-start', index, blockType: 'tool-call' },
      { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: args },
      { type: 'block-end', index, block: { type: 'tool-call', id, name: call.name, arguments: args } },
    );
    index += 1;
  }
  if (reply.usage !== null) chunks.push({ type: 'usage', usage: reply.usage ?? { inputTokens: 0, outputTokens: 0 } });
  const finish = reply.finish ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop');
  chunks.push({ type: 'finish', reason: { kind: finish } });
  return chunks;
}

/** Detach a request from dsh's deep-frozen objects, dropping the live signal. */
function record(options: GenerateOptions): RecordedRequest {
  const { signal: _signal, ...rest } = options;
  return structuredClone(rest);
}

function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    if (signal === undefined) {
      reject(new Error('scripted model: a hanging reply needs a request signal'));
      return;
    }
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('scripted model: request aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/**
 * The scripted adapter. Register it with `ctx.llm.registerAdapter([provider], adapter)`; the host does.
 * A request that finds the script empty fails like a provider error (`SCRIPT_EXHAUSTED`), so a missing reply
 * shows up as a failed turn and an `agent/error`, never as a hang.
 */
export class ScriptedModel extends LlmAdapter {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly provider: string;
  readonly model: string;
  private readonly contextWindow: number | null;
  private readonly defaultMaxTokens: number | undefined;
  private readonly replies: ScriptedReply[] = [];

  constructor(options: ScriptedModelOptions = {}, replies: readonly ScriptedReply[] = []) {
    super();
    this.provider = options.provider ?? 'scripted';
    this.model = options.model ?? 'scripted-chat';
    this.contextWindow = options.contextWindow === undefined ? 128_000 : options.contextWindow;
    this.defaultMaxTokens = options.defaultMaxTokens;
    this.replies.push(...replies);
  }

  /** Replies not consumed yet. */
  get pending(): number {
    return this.replies.length;
  }

  /** Append replies to the script. */
  push(...replies: ScriptedReply[]): void {
    this.replies.push(...replies);
  }

  override resolveModel(provider: string, model: string): Promise<LlmResolvedModelInfo> {
    return Promise.resolve({
      provider,
      id: model,
      name: model,
      ...(this.contextWindow === null ? {} : { context: { contextWindow: this.contextWindow } }),
      ...(this.defaultMaxTokens === undefined ? {} : { defaultMaxTokens: this.defaultMaxTokens }),
    });
  }

  async *stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    const recorded = record(options);
    this.requests.push(recorded);
    let reply = this.replies.shift();
    while (typeof reply === 'function') reply = reply(recorded);
    if (reply === undefined) throw new LlmError('scripted model: no scripted reply left for this request', 'SCRIPT_EXHAUSTED');
    if (reply.kind === 'error') {
      throw new LlmError(reply.message, reply.code ?? 'PROVIDER_ERROR', reply.status === undefined ? {} : { status: reply.status });
    }
    const chunks = reply.kind === 'text' ? textChunks(reply) : (reply.chunks ?? []);
    for (const chunk of chunks) {
      options.signal?.throwIfAborted();
      yield structuredClone(chunk);
    }
    if (reply.kind === 'hang') await waitForAbort(options.signal);
  }
}

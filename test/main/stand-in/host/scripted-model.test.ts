// HOST.md §12: the scripted model streams real chunks, records requests, and reports an exhausted script.
import { describe, expect, it } from 'vitest';
import type { ModelChunk, ModelRequest } from '../../../../src/main/stand-in/host/model-client.js';
import { ScriptedModel } from '../../../../src/main/stand-in/host/scripted-model.js';

const request: ModelRequest = { system: '', tools: [], messages: [] };

async function collect(model: ScriptedModel, signal = new AbortController().signal): Promise<ModelChunk[]> {
  const chunks: ModelChunk[] = [];
  for await (const chunk of model.stream(request, { signal })) chunks.push(chunk);
  return chunks;
}

describe('ScriptedModel', () => {
  it('defaults to provider scripted / model scripted-1 and declares its window', () => {
    const model = new ScriptedModel({ script: [], contextWindow: 1000 });
    expect([model.provider, model.model, model.contextWindow]).toEqual(['scripted', 'scripted-1', 1000]);
  });

  it('streams {text} as block-start, text deltas, block-end, usage, finish stop', async () => {
    const chunks = await collect(new ScriptedModel({ script: [{ text: 'Hello big world', usage: { inputTokens: 1, outputTokens: 2 } }] }));
    expect(chunks).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'Hello ' },
      { type: 'text-delta', index: 0, text: 'big ' },
      { type: 'text-delta', index: 0, text: 'world' },
      { type: 'block-end', index: 0, block: { type: 'text', text: 'Hello big world' } },
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 2 } },
      { type: 'finish', reason: { kind: 'stop' } },
    ]);
  });

  it('streams {toolCalls} with JSON.stringify arguments, ids call-<n> by default, finish tool-calls', async () => {
    const model = new ScriptedModel({
      script: [
        {
          toolCalls: [
            { name: 'read', args: { path: 'a' } },
            { name: 'read', args: [1], id: 'mine' },
          ],
        },
        { toolCalls: [{ name: 'read', args: null }] },
      ],
    });
    const first = await collect(model);
    expect(first.filter((chunk) => chunk.type === 'block-end').map((chunk) => (chunk as { block: unknown }).block)).toEqual([
      { type: 'tool-call', id: 'call-1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'tool-call', id: 'mine', name: 'read', arguments: '[1]' },
    ]);
    expect(first.filter((chunk) => chunk.type === 'tool-call-delta')).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'call-1', name: 'read', argumentsDelta: '{"path":"a"}' },
      { type: 'tool-call-delta', index: 1, id: 'mine', name: 'read', argumentsDelta: '[1]' },
    ]);
    expect(first.at(-1)).toEqual({ type: 'finish', reason: { kind: 'tool-calls' } });
    const second = await collect(model);
    expect(second.find((chunk) => chunk.type === 'block-end')).toEqual({
      type: 'block-end',
      index: 0,
      block: { type: 'tool-call', id: 'call-3', name: 'read', arguments: 'null' },
    });
  });

  it('streams {error} as a finish chunk with reason error (a string gets code UNKNOWN)', async () => {
    const model = new ScriptedModel({ script: [{ error: 'boom' }] });
    expect(await collect(model)).toEqual([{ type: 'finish', reason: { kind: 'error', failure: { message: 'boom', code: 'UNKNOWN' } } }]);
  });

  it('calls function entries with the request and records every request', async () => {
    const seen: ModelRequest[] = [];
    const model = new ScriptedModel({
      script: [
        (received) => {
          seen.push(received);
          return { text: 'x' };
        },
      ],
    });
    await collect(model);
    expect(seen).toEqual([request]);
    expect(model.requests).toEqual([request]);
    expect(model.dispatchCount).toBe(1);
  });

  it('throws "scripted model has no reply for request <n>" when the script runs out', async () => {
    const model = new ScriptedModel({ script: [{ text: 'only' }] });
    await collect(model);
    await expect(collect(model)).rejects.toThrow(/^scripted model has no reply for request 2$/);
    expect(model.dispatchCount).toBe(2);
  });

  it('{hang: true} streams its content, leaves the text block open and settles only on abort', async () => {
    const model = new ScriptedModel({ script: [{ hang: true, text: 'part' }] });
    const controller = new AbortController();
    const chunks: ModelChunk[] = [];
    const done = (async () => {
      for await (const chunk of model.stream(request, { signal: controller.signal })) chunks.push(chunk);
    })();
    let settled = false;
    void done.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(chunks).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'part' },
    ]);
    controller.abort();
    await expect(done).rejects.toThrow('scripted model request aborted');
  });
});

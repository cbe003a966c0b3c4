// HOST.md §6: the turn lifecycle, pre-step waterfall, decision logging, steering, the abort / model-error /
// pre-step-failure paths, the request header (§8) and the request invariant (§6.5), through the §12 harness.
import { describe, expect, it } from 'vitest';
import { validateSeedEvents } from '../../../../src/protocol/envelope.js';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import { readFailedError } from '../../../../src/protocol/reference-errors.js';
import { deriveModelMessages, foldSurface } from '../../../../src/protocol/surface-fold.js';
import { Agent } from '../../../../src/main/stand-in/host/agent.js';
import type { ModelChunk } from '../../../../src/main/stand-in/host/model-client.js';
import { RequestInvariantError } from '../../../../src/main/stand-in/host/request-invariant.js';
import { ScriptedModel } from '../../../../src/main/stand-in/host/scripted-model.js';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import type { ToolDefinition } from '../../../../src/main/stand-in/host/tool-definition.js';
import type { UserMessage } from '../../../../src/protocol/user-message.js';
import { createUserMessage } from '../../../../src/protocol/user-message.js';
import { collapsedTypes, newSession, typesOf, waitFor } from './host-builders.js';
import type { Plugin, PluginContext } from '../../../../src/main/host-api/host-api.js';

const readTool: ToolDefinition = {
  name: 'read',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
  execute: (args) => `contents of ${(args as { path: string }).path}`,
};

function plugin(name: string, apply: (context: PluginContext) => void): Plugin {
  return { name, apply };
}

function dataOf<T = Record<string, unknown>>(event: SessionEvent | undefined): T {
  return event!.data as T;
}

function marker(text: string): UserMessage {
  return createUserMessage({ source: { kind: 'plugin', plugin: 'test', form: 'notice' }, content: [{ type: 'text', text }] });
}

describe('a full turn (§6.2)', () => {
  it('logs turn/start, step/start, the prompt, request/header, chunks, message, tool call and result, step 2, turn/end', async () => {
    const harness = createTestHarness({
      tools: [readTool],
      script: [{ text: 'Looking.', toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] }, { text: 'Done.' }],
    });
    const prompt = harness.prompt('read a.txt');
    await harness.runUntilIdle();
    const events = harness.session.events;
    expect(collapsedTypes(events)).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'request/header',
      'assistant/chunk…',
      'assistant/message',
      'tool/call',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/chunk…',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    expect(harness.errors).toEqual([]);
    const byType = (type: string) => events.filter((event) => event.type === type);
    expect(byType('turn/start').map((event) => event.data)).toEqual([{ turn: 1 }]);
    expect(byType('step/start').map((event) => event.data)).toEqual([
      { turn: 1, step: 1 },
      { turn: 1, step: 2 },
    ]);
    expect(byType('user/message')[0]!.data).toBe(prompt);
    // dsh's key order for a prompt (test/fixtures/dcp-dsh: every logged prompt is {content, source, role, id}).
    expect(Object.keys(prompt)).toEqual(['content', 'source', 'role', 'id']);
    expect(prompt.source).toEqual({ kind: 'user' });
    const call = byType('tool/call')[0]!;
    expect(call.data).toEqual({ turn: 1, step: 1, callId: 'call-1', name: 'read', arguments: '{"path":"a.txt"}' });
    const result = byType('tool/result')[0]!;
    expect(result.sourceEventSeqs).toEqual([call.seq]);
    expect(result.surfaceOp).toBe('append');
    const resultMessage = dataOf<{ message: Record<string, unknown> }>(result).message;
    expect(Object.keys(resultMessage)).toEqual(['source', 'content', 'role', 'id']);
    expect(resultMessage['source']).toEqual({ kind: 'tool', callId: 'call-1' });
    expect(resultMessage['content']).toEqual([
      { type: 'tool-result', toolCallId: 'call-1', content: [{ type: 'text', text: 'contents of a.txt' }], isError: false },
    ]);
    const assistant = byType('assistant/message')[0]!;
    const assistantMessage = dataOf<{ message: Record<string, unknown>; usage: unknown }>(assistant);
    expect(Object.keys(assistantMessage.message)).toEqual(['role', 'content', 'source', 'id']);
    expect(assistantMessage.message['content']).toEqual([
      { type: 'text', text: 'Looking.' },
      { type: 'tool-call', id: 'call-1', name: 'read', arguments: '{"path":"a.txt"}' },
    ]);
    expect(assistantMessage.message['source']).toEqual({ kind: 'model', provider: 'scripted', model: 'scripted-1' });
    expect(assistantMessage.usage).toBeDefined();
    // The message cites exactly the chunks streamed for it.
    const chunkSeqs = events
      .filter((event) => event.type === 'assistant/chunk' && dataOf<{ step: number }>(event).step === 1)
      .map((event) => event.seq);
    expect(assistant.sourceEventSeqs).toEqual(chunkSeqs);
    expect(events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'completed' } });
    expect(harness.model.dispatchCount).toBe(2);
  });

  it('every dispatched request equals a cold fold of the log at dispatch time, and the log validates as a seed', async () => {
    const harness = createTestHarness({
      tools: [readTool],
      script: [{ toolCalls: [{ name: 'read', args: { path: 'x' } }] }, { text: 'ok' }, { text: 'second turn' }],
    });
    harness.prompt('one');
    await harness.runUntilIdle();
    harness.prompt('two');
    await harness.runUntilIdle();
    const events = harness.session.events;
    // A dispatch happens right before the first chunk of each step.
    const dispatchPoints = events
      .filter((event, index) => event.type === 'assistant/chunk' && events[index - 1]!.type !== 'assistant/chunk')
      .map((event) => event.seq);
    expect(dispatchPoints).toHaveLength(3);
    harness.model.requests.forEach((request, index) => {
      const prefix = structuredClone(events.slice(0, dispatchPoints[index]));
      expect(JSON.stringify(request.messages)).toBe(JSON.stringify(deriveModelMessages(prefix, foldSurface(prefix))));
      const header = [...prefix].reverse().find((event) => event.type === 'request/header')!;
      expect(request.system).toEqual(dataOf<{ header: { system: string } }>(header).header.system);
      expect(request.tools).toEqual(dataOf<{ header: { tools: unknown } }>(header).header.tools);
    });
    expect(() => validateSeedEvents(structuredClone(events))).not.toThrow();
    const reloaded = harness.reload();
    expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(harness.session.deriveMessages()));
    expect(typesOf(events).filter((type) => type === 'turn/start')).toHaveLength(2);
    expect(dataOf(events.filter((event) => event.type === 'turn/start')[1])).toEqual({ turn: 2 });
  });
});

describe('request header (§8)', () => {
  it('sorts non-empty sections by (order, name), lists tools in registration order, and logs a header only when it changes', async () => {
    let dynamic = 'v1';
    const harness = createTestHarness({
      tools: [readTool, { ...readTool, name: 'write', description: 'Write.' }],
      script: [{ text: 'a' }, { text: 'b' }, { text: 'c' }],
      plugins: [
        plugin('sections', (context) => {
          context.registerSystemSection({ name: 'zeta', order: 1, render: () => 'Z' });
          context.registerSystemSection({ name: 'alpha', order: 1, render: () => 'A' });
          context.registerSystemSection({ name: 'empty', order: 0, render: () => '' });
          context.registerSystemSection({ name: 'first', order: 0, render: () => `F ${dynamic}` });
        }),
      ],
    });
    harness.prompt('1');
    await harness.runUntilIdle();
    harness.prompt('2');
    await harness.runUntilIdle();
    dynamic = 'v2';
    harness.prompt('3');
    await harness.runUntilIdle();
    const headers = harness.session.events.filter((event) => event.type === 'request/header').map((event) => event.data);
    expect(headers).toEqual([
      {
        header: {
          config: { provider: 'scripted', model: 'scripted-1' },
          system: 'F v1\n\nA\n\nZ',
          tools: [
            { name: 'read', description: 'Read a file.', parameters: readTool.parameters },
            { name: 'write', description: 'Write.', parameters: readTool.parameters },
          ],
        },
        reason: 'initial',
      },
      {
        header: {
          config: { provider: 'scripted', model: 'scripted-1' },
          system: 'F v2\n\nA\n\nZ',
          tools: [
            { name: 'read', description: 'Read a file.', parameters: readTool.parameters },
            { name: 'write', description: 'Write.', parameters: readTool.parameters },
          ],
        },
      },
    ]);
    expect(harness.model.requests[2]!.system).toBe('F v2\n\nA\n\nZ');
  });

  it('requestContext reports the scripted model window', async () => {
    const harness = createTestHarness({ script: [{ text: 'a' }], contextWindow: 64_000 });
    harness.prompt('x');
    await harness.runUntilIdle();
    expect(harness.session.requestContext()).toEqual({ provider: 'scripted', model: 'scripted-1', contextWindow: 64_000 });
  });
});

describe('pre-step waterfall (§6.3, §13 items 11 and 12)', () => {
  it('enter([]) at step 0 ends the turn completed with no step/start and no model call', async () => {
    const harness = createTestHarness({
      script: [],
      plugins: [plugin('control', (context) => context.on('agent/pre-step', () => ({ kind: 'enter', messages: [] })))],
    });
    harness.prompt('/control');
    await harness.runUntilIdle();
    expect(harness.session.events.map((event) => [event.type, event.data])).toEqual([
      ['turn/start', { turn: 1 }],
      ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
    ]);
    expect(harness.model.dispatchCount).toBe(0);
  });

  it('reject ends the turn blocked', async () => {
    const harness = createTestHarness({
      plugins: [plugin('gate', (context) => context.on('agent/pre-step', () => ({ kind: 'reject' })))],
    });
    harness.prompt('no');
    await harness.runUntilIdle();
    expect(harness.session.events.map((event) => event.data)).toEqual([{ turn: 1 }, { turn: 1, reason: { kind: 'blocked' } }]);
  });

  it('a throwing listener: nothing of the decision logged, turn/end error, agent/error with the error and claimed messages', async () => {
    const failure = readFailedError(new Error('broken'));
    const harness = createTestHarness({
      plugins: [
        plugin('refs', (context) =>
          context.on('agent/pre-step', async () => {
            throw failure;
          }),
        ),
      ],
    });
    const prompt = harness.prompt('see @[x](dsh-session:eA)');
    await harness.runUntilIdle();
    expect(harness.session.events.map((event) => [event.type, event.data])).toEqual([
      ['turn/start', { turn: 1 }],
      [
        'turn/end',
        {
          turn: 1,
          reason: {
            kind: 'error',
            error: { message: 'failed to read referenced session: broken: broken', code: 'SESSION_REFERENCE_READ_FAILED' },
          },
        },
      ],
    ]);
    expect(harness.errors).toHaveLength(1);
    expect(harness.errors[0]!.error).toBe(failure);
    expect(harness.errors[0]!.messages).toEqual([prompt]);
    expect(harness.model.dispatchCount).toBe(0);
  });

  it('a throwing listener without a SESSION_REFERENCE code records UNKNOWN', async () => {
    const harness = createTestHarness({
      plugins: [
        plugin('bad', (context) =>
          context.on('agent/pre-step', () => {
            throw new Error('plugin bug');
          }),
        ),
      ],
    });
    harness.prompt('x');
    await harness.runUntilIdle();
    expect(harness.session.events.at(-1)!.data).toEqual({
      turn: 1,
      reason: { kind: 'error', error: { message: 'plugin bug', code: 'UNKNOWN' } },
    });
  });

  it('an abort while a listener is pending settles at once: turn/end aborted, no agent/error', async () => {
    let started = false;
    const harness = createTestHarness({
      plugins: [
        plugin('slow', (context) =>
          context.on('agent/pre-step', () => {
            started = true;
            return new Promise(() => {});
          }),
        ),
      ],
    });
    harness.prompt('x');
    await waitFor(() => started, 'the pre-step listener');
    harness.agent.abort();
    await harness.runUntilIdle();
    expect(harness.session.events.map((event) => event.data)).toEqual([
      { turn: 1 },
      { turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } },
    ]);
    expect(harness.errors).toEqual([]);
  });

  it('logs decision messages right after step/start in decision order, the same objects with their ids', async () => {
    const before = marker('marker');
    const after = marker('snapshot');
    const harness = createTestHarness({
      script: [{ text: 'ok' }],
      plugins: [
        plugin('wrap', (context) =>
          context.on('agent/pre-step', async (_payload, next) => {
            const downstream = await next();
            return downstream.kind === 'enter' ? { kind: 'enter', messages: [before, ...downstream.messages, after] } : downstream;
          }),
        ),
      ],
    });
    const prompt = harness.prompt('hello');
    await harness.runUntilIdle();
    const events = harness.session.events;
    expect(typesOf(events.slice(1, 5))).toEqual(['step/start', 'user/message', 'user/message', 'user/message']);
    expect(events[2]!.data).toBe(before);
    expect(events[3]!.data).toBe(prompt);
    expect(events[4]!.data).toBe(after);
    expect(harness.model.requests[0]!.messages.map((message) => message.id)).toEqual([before.id, prompt.id, after.id]);
  });

  it('prepend:true listeners are outermost; payload carries the claimed messages, turn, step and signal', async () => {
    const order: string[] = [];
    const payloads: Array<{ turn: number; step: number; messages: readonly Message[]; aborted: boolean }> = [];
    const harness = createTestHarness({
      script: [{ text: 'ok' }],
      plugins: [
        plugin('order', (context) => {
          context.on('agent/pre-step', async (payload, next) => {
            order.push('plain');
            payloads.push({ turn: payload.turn, step: payload.step, messages: payload.messages, aborted: payload.signal.aborted });
            return next();
          });
          context.on(
            'agent/pre-step',
            async (_payload, next) => {
              order.push('outer');
              const decision = await next();
              order.push('outer-after');
              return decision;
            },
            { prepend: true },
          );
        }),
      ],
    });
    const prompt = harness.prompt('x');
    await harness.runUntilIdle();
    expect(order).toEqual(['outer', 'plain', 'outer-after']);
    // The pre-step is given the step about to be entered, 1 at the first pre-step, as dsh does (HOST.md §6.2).
    expect(payloads).toEqual([{ turn: 1, step: 1, messages: [prompt], aborted: false }]);
  });

  it('a decision message the log would refuse fails the pre-step: no step/start, turn/end error', async () => {
    const harness = createTestHarness({
      plugins: [
        plugin('bad-decision', (context) =>
          context.on('agent/pre-step', () => ({
            kind: 'enter',
            messages: [{ source: { kind: 'plugin', plugin: 'x' }, content: [], role: 'user' } as unknown as UserMessage],
          })),
        ),
      ],
    });
    harness.prompt('x');
    await harness.runUntilIdle();
    expect(harness.session.events.map((event) => [event.type, event.data])).toEqual([
      ['turn/start', { turn: 1 }],
      [
        'turn/end',
        {
          turn: 1,
          reason: { kind: 'error', error: { message: 'agent/pre-step decision message 0 lacks an identified message', code: 'UNKNOWN' } },
        },
      ],
    ]);
    expect(harness.errors).toHaveLength(1);
  });

  it('calling next() twice fails the step', async () => {
    const harness = createTestHarness({
      plugins: [
        plugin('twice', (context) =>
          context.on('agent/pre-step', async (_payload, next) => {
            await next();
            return next();
          }),
        ),
      ],
    });
    harness.prompt('x');
    await harness.runUntilIdle();
    expect(harness.session.events.at(-1)!.data).toEqual({
      turn: 1,
      reason: { kind: 'error', error: { message: 'agent/pre-step listener called next() more than once', code: 'UNKNOWN' } },
    });
  });
});

describe('inbox (§6.1) and steering', () => {
  it('a steering message sent during a step is claimed at the next pre-step; a followup waits for the next turn', async () => {
    let agentRef: Agent | undefined;
    const steering = createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: 'steer' }] });
    const later = createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: 'later' }] });
    const steeringTool: ToolDefinition = {
      name: 'step',
      description: 'd',
      parameters: {},
      execute: () => {
        agentRef!.steer(steering);
        agentRef!.followup(later);
        return 'done';
      },
    };
    const claimed: Array<[number, number, string[]]> = [];
    const harness = createTestHarness({
      tools: [steeringTool],
      script: [{ toolCalls: [{ name: 'step', args: {} }] }, { text: 'after steering' }, { text: 'second turn' }],
      plugins: [
        plugin('spy', (context) =>
          context.on('agent/pre-step', (payload, next) => {
            claimed.push([payload.turn, payload.step, payload.messages.map((message) => message.id)]);
            return next();
          }),
        ),
      ],
    });
    agentRef = harness.agent;
    const prompt = harness.prompt('go');
    await harness.runUntilIdle();
    expect(claimed).toEqual([
      [1, 1, [prompt.id]],
      [1, 2, [steering.id]],
      [2, 1, [later.id]],
    ]);
    const events = harness.session.events;
    const secondStep = events.findIndex((event) => event.type === 'step/start' && dataOf<{ step: number }>(event).step === 2);
    expect(events[secondStep + 1]!.data).toBe(steering);
  });

  it('a steer with no running turn acts as a followup', async () => {
    const harness = createTestHarness({ script: [{ text: 'ok' }] });
    const message = createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: 's' }] });
    harness.agent.steer(message);
    await harness.runUntilIdle();
    expect(harness.session.events[2]!.data).toBe(message);
  });

  it('several prompts queued before the turn starts are all claimed at the first pre-step (step 1), in queue order', async () => {
    const harness = createTestHarness({ script: [{ text: 'ok' }] });
    const first = harness.prompt('a');
    const second = harness.prompt('b');
    await harness.runUntilIdle();
    expect(harness.session.deriveMessages().slice(0, 2)).toEqual([first, second]);
    expect(harness.session.events.filter((event) => event.type === 'turn/start')).toHaveLength(1);
  });
});

describe('abort (§6.2)', () => {
  it('mid-stream: interrupted message with the streamed prefix, aborted results for its calls, step/end, turn/end aborted', async () => {
    const harness = createTestHarness({
      tools: [readTool],
      script: [{ hang: true, toolCalls: [{ name: 'read', args: { path: 'a' } }], text: 'partial answer' }],
    });
    harness.prompt('x');
    await waitFor(
      () => harness.session.events.some((event) => dataOf<{ chunk?: { type: string } }>(event).chunk?.type === 'block-end'),
      'the streamed tool call',
    );
    harness.agent.abort();
    await harness.runUntilIdle();
    const events = harness.session.events;
    const tail = events.slice(events.findIndex((event) => event.type === 'assistant/message'));
    expect(typesOf(tail)).toEqual(['assistant/message', 'tool/result', 'step/end', 'turn/end']);
    const assistant = dataOf<{ interrupted: unknown; message: { content: unknown[] } }>(tail[0]);
    expect(assistant.interrupted).toBe(true);
    expect(assistant.message.content).toEqual([
      { type: 'text', text: 'partial answer' },
      { type: 'tool-call', id: 'call-1', name: 'read', arguments: '{"path":"a"}' },
    ]);
    const result = dataOf<{ message: { content: unknown[] }; error: unknown }>(tail[1]);
    expect(result.message.content).toEqual([
      { type: 'tool-result', toolCallId: 'call-1', content: [{ type: 'text', text: 'tool call aborted' }], isError: true },
    ]);
    expect(result.error).toEqual({ name: 'AbortError', code: 'TOOL_ABORTED' });
    expect(typesOf(events)).not.toContain('tool/call');
    expect(tail[3]!.data).toEqual({ turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } });
    expect(() => validateSeedEvents(structuredClone(events))).not.toThrow();
  });

  it('mid-stream with nothing streamed logs no message', async () => {
    const harness = createTestHarness({ script: [{ hang: true }] });
    harness.prompt('x');
    await waitFor(() => harness.model.dispatchCount === 1, 'the dispatch');
    harness.agent.abort({ kind: 'hook', reason: 'stop' });
    await harness.runUntilIdle();
    expect(collapsedTypes(harness.session.events)).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'request/header',
      'step/end',
      'turn/end',
    ]);
    expect(harness.session.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'aborted', reason: { kind: 'hook', reason: 'stop' } } });
  });

  it('during a tool: the running call is answered with tool call aborted at once and the turn ends aborted', async () => {
    let running = false;
    const stuck: ToolDefinition = {
      name: 'stuck',
      description: 'd',
      parameters: {},
      execute: () => {
        running = true;
        return new Promise(() => {});
      },
    };
    const harness = createTestHarness({ tools: [stuck], script: [{ toolCalls: [{ name: 'stuck', args: {} }] }] });
    harness.prompt('x');
    await waitFor(() => running, 'the tool');
    harness.agent.abort();
    await harness.runUntilIdle();
    const events = harness.session.events;
    const call = events.find((event) => event.type === 'tool/call')!;
    const result = events.find((event) => event.type === 'tool/result')!;
    expect(result.sourceEventSeqs).toEqual([call.seq]);
    expect(dataOf<{ error: unknown }>(result).error).toEqual({ name: 'AbortError', code: 'TOOL_ABORTED' });
    expect(typesOf(events.slice(-2))).toEqual(['step/end', 'turn/end']);
    expect(events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } });
    expect(harness.model.dispatchCount).toBe(1);
  });

  it('a model that ignores the signal cannot hold the turn open', async () => {
    const session = newSession();
    let dispatched = false;
    const deaf = {
      provider: 'p',
      model: 'm',
      stream: (): AsyncIterable<ModelChunk> => ({
        [Symbol.asyncIterator]: () => ({
          next: () => {
            dispatched = true;
            return new Promise<IteratorResult<ModelChunk>>(() => {});
          },
        }),
      }),
    };
    const agent = new Agent({ session, model: deaf });
    agent.prompt('x');
    await waitFor(() => dispatched, 'the dispatch');
    agent.abort();
    await agent.runUntilIdle();
    expect(typesOf(session.events).slice(-2)).toEqual(['step/end', 'turn/end']);
    expect(session.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } });
  });

  it('abort with no running turn does nothing', () => {
    const harness = createTestHarness();
    harness.agent.abort();
    expect(harness.session.events).toHaveLength(0);
  });
});

describe('model errors (§6.2)', () => {
  it('a provider failure closes the step and ends the turn with the failure', async () => {
    const failure = { message: 'DeepSeek API error 402: Insufficient Balance', code: 'QUOTA', status: 402 };
    const harness = createTestHarness({ script: [{ error: failure }] });
    harness.prompt('x');
    await harness.runUntilIdle();
    const events = harness.session.events;
    expect(typesOf(events)).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'request/header',
      'assistant/chunk',
      'step/end',
      'turn/end',
    ]);
    expect(dataOf(events[4])).toEqual({ turn: 1, step: 1, chunk: { type: 'finish', reason: { kind: 'error', failure } } });
    expect(events[6]!.data).toEqual({ turn: 1, reason: { kind: 'error', error: failure } });
  });

  it('a thrown model error (script exhausted) ends the turn with code UNKNOWN', async () => {
    const harness = createTestHarness({ script: [] });
    harness.prompt('x');
    await harness.runUntilIdle();
    expect(harness.session.events.at(-1)!.data).toEqual({
      turn: 1,
      reason: { kind: 'error', error: { message: 'scripted model has no reply for request 1', code: 'UNKNOWN' } },
    });
    expect(typesOf(harness.session.events.slice(-2))).toEqual(['step/end', 'turn/end']);
  });
});

describe('request invariant (§6.5)', () => {
  it('a violation fails the turn with HOST_REQUEST_INVARIANT before the model is called', async () => {
    const session = newSession();
    const model = new ScriptedModel({ script: [{ text: 'never' }] });
    const agent = new Agent({
      session,
      model,
      checkRequest: () => {
        throw new RequestInvariantError('request messages differ from the messages derived from the log');
      },
    });
    agent.prompt('x');
    await agent.runUntilIdle();
    expect(model.dispatchCount).toBe(0);
    expect(typesOf(session.events)).toEqual(['turn/start', 'step/start', 'user/message', 'request/header', 'step/end', 'turn/end']);
    expect(session.events.at(-1)!.data).toEqual({
      turn: 1,
      reason: {
        kind: 'error',
        error: { message: 'request messages differ from the messages derived from the log', code: 'HOST_REQUEST_INVARIANT' },
      },
    });
  });
});

// HOST.md §7: per-call flow (unknown tool, bad arguments, approval, execution, thrown errors) and scheduling
// (concurrency-safe runs, exclusive calls), §13 item 13.
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import type { ToolDefinition, ToolExecutionContext } from '../../../../src/main/stand-in/host/tool-definition.js';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import { typesOf } from './host-builders.js';

interface ResultView {
  callId: string;
  content: unknown;
  isError: boolean;
  error?: unknown;
}

function results(events: readonly SessionEvent[]): ResultView[] {
  return events
    .filter((event) => event.type === 'tool/result')
    .map((event) => {
      const data = event.data as {
        message: { content: Array<{ toolCallId: string; content: unknown; isError: boolean }> };
        error?: unknown;
      };
      const block = data.message.content[0]!;
      const view: ResultView = { callId: block.toolCallId, content: block.content, isError: block.isError };
      if (data.error !== undefined) view.error = data.error;
      return view;
    });
}

function text(value: string): unknown[] {
  return [{ type: 'text', text: value }];
}

const echo: ToolDefinition = { name: 'echo', description: 'Echo.', parameters: {}, execute: (args) => JSON.stringify(args) };

describe('per-call flow (§7.2)', () => {
  it('unknown tool and unparseable arguments become error results; the tool/call is logged first with the raw arguments', async () => {
    let parseMessage = '';
    try {
      JSON.parse('{bad');
    } catch (error) {
      parseMessage = (error as Error).message;
    }
    const harness = createTestHarness({
      tools: [echo],
      script: [
        {
          blocks: [
            { type: 'tool-call', id: 'u1', name: 'nope', arguments: '{}' },
            { type: 'tool-call', id: 'b1', name: 'echo', arguments: '{bad' },
          ],
        },
        { text: 'ok' },
      ],
    });
    harness.prompt('x');
    await harness.runUntilIdle();
    const events = harness.session.events;
    expect(events.filter((event) => event.type === 'tool/call').map((event) => event.data)).toEqual([
      { turn: 1, step: 1, callId: 'u1', name: 'nope', arguments: '{}' },
      { turn: 1, step: 1, callId: 'b1', name: 'echo', arguments: '{bad' },
    ]);
    expect(results(events)).toEqual([
      { callId: 'u1', content: text('unknown tool "nope"'), isError: true },
      { callId: 'b1', content: text(`invalid tool arguments: ${parseMessage}`), isError: true },
    ]);
  });

  it('approval deny: error result with ToolDenied / TOOL_DENIED and execute is never called (§13 item 13)', async () => {
    let executed = 0;
    const guarded: ToolDefinition = {
      name: 'rm',
      description: 'Remove.',
      parameters: {},
      execute: () => {
        executed += 1;
        return 'gone';
      },
    };
    const harness = createTestHarness({
      tools: [guarded, echo],
      script: [
        {
          toolCalls: [
            { name: 'rm', args: { path: '/' } },
            { name: 'echo', args: { a: 1 } },
          ],
        },
        { text: 'ok' },
      ],
      plugins: [
        {
          name: 'policy',
          apply: (context) =>
            context.on('tool/approve', (payload, next) => (payload.tool.name === 'rm' ? { kind: 'deny', reason: 'dangerous' } : next())),
        },
      ],
    });
    harness.prompt('x');
    await harness.runUntilIdle();
    expect(executed).toBe(0);
    expect(results(harness.session.events)).toEqual([
      { callId: 'call-1', content: text('Tool call denied: dangerous'), isError: true, error: { name: 'ToolDenied', code: 'TOOL_DENIED' } },
      { callId: 'call-2', content: text('{"a":1}'), isError: false },
    ]);
  });

  it('thrown errors give isError and the text "Error: <message>" with no data.error, as dsh renders them; blocks pass through', async () => {
    const failing: ToolDefinition = {
      name: 'fail',
      description: 'd',
      parameters: {},
      execute: (args) => {
        if ((args as { coded?: boolean }).coded === true) throw Object.assign(new RangeError('out of range'), { code: 'E_RANGE' });
        throw new Error('plain failure');
      },
    };
    const blocks: ToolDefinition = {
      name: 'blocks',
      description: 'd',
      parameters: {},
      execute: async () => [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'x' },
      ],
    };
    const harness = createTestHarness({
      tools: [failing, blocks],
      script: [
        {
          toolCalls: [
            { name: 'fail', args: {} },
            { name: 'fail', args: { coded: true } },
            { name: 'blocks', args: {} },
          ],
        },
        { text: 'ok' },
      ],
    });
    harness.prompt('x');
    await harness.runUntilIdle();
    expect(results(harness.session.events)).toEqual([
      // test/fixtures/dcp-dsh/s3-errors: dsh logs a throwing tool as `Error: <message>` and no `error` field, whatever
      // the thrown error's class or code.
      { callId: 'call-1', content: text('Error: plain failure'), isError: true },
      { callId: 'call-2', content: text('Error: out of range'), isError: true },
      {
        callId: 'call-3',
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'x' },
        ],
        isError: false,
      },
    ]);
  });

  it('passes {callId, turn, step, signal, agent, session} to execute, with no parent', async () => {
    const seen: ToolExecutionContext[] = [];
    const spy: ToolDefinition = {
      name: 'spy',
      description: 'd',
      parameters: {},
      execute: (_args, exec) => {
        seen.push(exec);
        return 'ok';
      },
    };
    const harness = createTestHarness({ tools: [spy], script: [{ toolCalls: [{ name: 'spy', args: {}, id: 'fixed' }] }, { text: 'ok' }] });
    harness.prompt('x');
    await harness.runUntilIdle();
    expect(seen).toHaveLength(1);
    const exec = seen[0]!;
    expect([exec.callId, exec.turn, exec.step, exec.agent, exec.session, 'parent' in exec]).toEqual([
      'fixed',
      1,
      1,
      harness.agent,
      harness.session,
      false,
    ]);
    expect(exec.signal).toBeInstanceOf(AbortSignal);
  });
});

describe('scheduling (§7.3)', () => {
  it('runs concurrency-safe neighbours together, exclusive calls alone, and logs each result when it settles', async () => {
    const timeline: string[] = [];
    let active = 0;
    let maxActive = 0;
    const releases = new Map<string, () => void>();
    const safe = (name: string): ToolDefinition => ({
      name,
      description: 'd',
      parameters: {},
      concurrencySafe: true,
      execute: (args) =>
        new Promise<string>((resolve) => {
          const label = (args as { label: string }).label;
          active += 1;
          maxActive = Math.max(maxActive, active);
          timeline.push(`start ${label}`);
          releases.set(label, () => {
            active -= 1;
            timeline.push(`end ${label}`);
            resolve(label);
          });
        }),
    });
    const exclusive: ToolDefinition = {
      name: 'compress',
      description: 'd',
      parameters: {},
      execute: async (args) => {
        const label = (args as { label: string }).label;
        timeline.push(`start ${label} (active ${active})`);
        await Promise.resolve();
        timeline.push(`end ${label}`);
        return label;
      },
    };
    const harness = createTestHarness({
      tools: [safe('readA'), safe('readB'), exclusive],
      script: [
        {
          toolCalls: [
            { name: 'readA', args: { label: 'a1' } },
            { name: 'readB', args: { label: 'b1' } },
            { name: 'compress', args: { label: 'x' } },
            { name: 'readA', args: { label: 'a2' } },
          ],
        },
        { text: 'ok' },
      ],
    });
    harness.prompt('go');
    const waitStarted = async (count: number): Promise<void> => {
      while (timeline.filter((entry) => entry.startsWith('start')).length < count)
        await new Promise<void>((resolve) => setImmediate(resolve));
    };
    await waitStarted(2);
    expect(timeline).toEqual(['start a1', 'start b1']);
    // b1 settles first: its result is logged first.
    releases.get('b1')!();
    releases.get('a1')!();
    await waitStarted(4);
    releases.get('a2')!();
    await harness.runUntilIdle();
    expect(maxActive).toBe(2);
    expect(timeline).toEqual(['start a1', 'start b1', 'end b1', 'end a1', 'start x (active 0)', 'end x', 'start a2', 'end a2']);
    const events = harness.session.events;
    const stepOne = events.slice(
      events.findIndex((event) => event.type === 'assistant/message'),
      events.findIndex((event) => event.type === 'step/end') + 1,
    );
    expect(typesOf(stepOne)).toEqual([
      'assistant/message',
      'tool/call',
      'tool/call',
      'tool/result',
      'tool/result',
      'tool/call',
      'tool/result',
      'tool/call',
      'tool/result',
      'step/end',
    ]);
    expect(results(events).map((result) => result.callId)).toEqual(['call-2', 'call-1', 'call-3', 'call-4']);
  });
});

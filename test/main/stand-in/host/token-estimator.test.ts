// HOST.md §4.1 heuristic token estimator, row by row (§13 item 9), and the one heuristic-estimate label.
import { describe, expect, it } from 'vitest';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import {
  approximateTokens,
  estimateBlock,
  estimateEvent,
  estimateHeading,
  estimateMessage,
  estimateSystem,
  estimateTools,
  HEURISTIC_ESTIMATE_LABEL,
} from '../../../../src/protocol/token-estimator.js';

/** A user message with `content`. */
function message(content: unknown[]): Message {
  return { id: 'm', role: 'user', source: { kind: 'user' }, content } as unknown as Message;
}

describe('§13 item 9', () => {
  it('text "abcde" costs 6; a message with that block costs 10; tool-call read {"path":"a"} costs 1 + 3 + 4 = 8', () => {
    expect(estimateBlock({ type: 'text', text: 'abcde' })).toBe(6);
    expect(estimateMessage(message([{ type: 'text', text: 'abcde' }]))).toBe(10);
    expect(estimateBlock({ type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"a"}' })).toBe(8);
  });
});

describe('table rows', () => {
  it('text and reasoning: ⌈len/4⌉ + 4 in UTF-16 code units', () => {
    expect(estimateBlock({ type: 'text', text: '' })).toBe(4);
    expect(estimateBlock({ type: 'text', text: 'abcd' })).toBe(5);
    expect(estimateBlock({ type: 'reasoning', text: 'abcdefghi', signature: 'ignored' })).toBe(7);
    // One emoji is two code units: ⌈2/4⌉ + 4.
    expect(estimateBlock({ type: 'text', text: '😀' })).toBe(5);
  });

  it('tool-call: a non-string arguments value is priced by JSON.stringify', () => {
    expect(estimateBlock({ type: 'tool-call', id: 'c1', name: 'read', arguments: { path: 'a' } })).toBe(8);
    expect(estimateBlock({ type: 'tool-call', id: 'c1', name: 'compress', arguments: '' })).toBe(2 + 0 + 4);
  });

  it('tool-result: the inner blocks (recursively) + 4', () => {
    const inner = [
      { type: 'text', text: 'abcd' },
      { type: 'text', text: '' },
    ];
    expect(estimateBlock({ type: 'tool-result', toolCallId: 'c1', content: inner, isError: false })).toBe(5 + 4 + 4);
    const nested = {
      type: 'tool-result',
      toolCallId: 'c1',
      content: [{ type: 'tool-result', toolCallId: 'c2', content: [], isError: false }],
      isError: false,
    };
    expect(estimateBlock(nested)).toBe(4 + 4);
  });

  it('any other block, image included: ⌈len(JSON.stringify(block))/4⌉ + 4', () => {
    // '{"type":"image","data":"xx"}' has 28 characters.
    expect(estimateBlock({ type: 'image', data: 'xx' })).toBe(7 + 4);
    // A text block without string text is priced like an unknown block: '{"type":"text"}' has 15 characters.
    expect(estimateBlock({ type: 'text' })).toBe(4 + 4);
  });

  it('message: 4 + Σ blocks; a message with no blocks costs 4', () => {
    expect(estimateMessage(message([]))).toBe(4);
    expect(
      estimateMessage(
        message([
          { type: 'text', text: 'abcde' },
          { type: 'image', data: 'xx' },
        ]),
      ),
    ).toBe(4 + 6 + 11);
  });

  it('estimateEvent prices the event message; log-only events carry none', () => {
    const toolResult = {
      type: 'tool/result',
      seq: 3,
      time: 0,
      data: {
        turn: 1,
        step: 1,
        message: {
          id: 'r',
          role: 'user',
          source: { kind: 'tool', callId: 'c1' },
          content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'abcde' }], isError: false }],
        },
      },
      surfaceOp: 'append',
    } as SessionEvent;
    expect(estimateEvent(toolResult)).toBe(4 + (6 + 4));
    const assistant = {
      type: 'assistant/message',
      seq: 4,
      time: 0,
      data: {
        turn: 1,
        step: 1,
        message: { id: 'a', role: 'assistant', source: { kind: 'model', provider: 'p', model: 'm' }, content: [] },
      },
      surfaceOp: 'append',
    } as SessionEvent;
    expect(estimateEvent(assistant)).toBe(4);
    expect(estimateEvent({ type: 'turn/start', seq: 5, time: 0, data: { turn: 1 } })).toBe(0);
  });

  it('system and tools figures of the request header (§4.2)', () => {
    expect(estimateSystem('You are x')).toBe(3 + 4);
    expect(estimateSystem(undefined)).toBe(0);
    // '{"name":"t","description":"d","parameters":{}}' has 46 characters.
    expect(estimateTools([{ name: 't', description: 'd', parameters: {} }])).toBe(12 + 4);
    expect(
      estimateTools([
        { name: 't', description: 'd', parameters: {} },
        { name: 't', description: 'd', parameters: {} },
      ]),
    ).toBe(32);
    expect(estimateTools(undefined)).toBe(0);
  });
});

describe('heuristic estimate label (§4.1)', () => {
  it('labels headings the way DCP.md §11.3 prints them', () => {
    expect(HEURISTIC_ESTIMATE_LABEL).toBe('heuristic token estimates');
    expect(estimateHeading('DCP context')).toBe('DCP context (heuristic token estimates):');
    expect(estimateHeading('DCP statistics')).toBe('DCP statistics (heuristic token estimates):');
    expect(approximateTokens(1234)).toBe('~1234');
  });
});

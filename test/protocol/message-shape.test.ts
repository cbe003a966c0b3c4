import { describe, expect, it } from 'vitest';
import { isCompactionCheckpoint } from '../../src/protocol/checkpoint.js';
import { SessionLogError } from '../../src/protocol/errors.js';
import { checkMessageShape, checkRequestHeader } from '../../src/protocol/message-shape.js';
import { assistantMessage, expectError, toolResult, userMessage } from './event-builders.js';

const SUBJECT = 'seed tool/result at index 4';

function expectShapeError(run: () => void, message: string): void {
  expectError(run, { message, code: 'SESSION_LOG_INVALID_MESSAGE', type: SessionLogError, name: 'Error' });
}

describe('§4.4 message-shape rules', () => {
  it('accepts well-formed messages of the three surface types', () => {
    expect(() => checkMessageShape('user/message', userMessage(0, 'x').data, 's')).not.toThrow();
    expect(() => checkMessageShape('assistant/message', assistantMessage(0, 'x').data, 's')).not.toThrow();
    expect(() => checkMessageShape('tool/result', toolResult(0, 'c', 'x').data, 's')).not.toThrow();
  });

  it('rule 1: an object with a non-empty string id (subject inserted raw)', () => {
    for (const data of [null, 'x', 5, {}, { id: '' }, { id: 7 }]) {
      expectShapeError(
        () => checkMessageShape('user/message', data, 'session event at seq 3'),
        'session event at seq 3 lacks an identified message',
      );
    }
    expectShapeError(() => checkMessageShape('tool/result', { message: null }, SUBJECT), `${SUBJECT} lacks an identified message`);
    expectShapeError(
      () => checkMessageShape('assistant/message', null, 'a "quoted" subject'),
      'a "quoted" subject lacks an identified message',
    );
    // For assistant/tool events the message is data.message, not data.
    expectShapeError(() => checkMessageShape('assistant/message', { id: 'x', role: 'assistant' }, 's'), 's lacks an identified message');
  });

  it('rule 2: role assistant for assistant/message, user otherwise', () => {
    expectShapeError(() => checkMessageShape('user/message', { id: 'm', role: 'assistant' }, 's'), 's message must have role "user"');
    const tool = toolResult(0, 'c', 'x').data as { message: Record<string, unknown> };
    tool.message['role'] = 'tool';
    expectShapeError(() => checkMessageShape('tool/result', tool, 's'), 's message must have role "user"');
    expectShapeError(
      () => checkMessageShape('assistant/message', { message: { id: 'm', role: 'user' } }, 's'),
      's message must have role "assistant"',
    );
  });

  it('rule 3: source is an object with a non-empty string kind', () => {
    for (const source of [undefined, null, 'user', {}, { kind: '' }, { kind: 1 }]) {
      expectShapeError(
        () => checkMessageShape('user/message', { id: 'm', role: 'user', source, content: [] }, 's'),
        's message has invalid source',
      );
    }
  });

  it('rule 4: content is an array', () => {
    for (const content of [undefined, null, 'text', { 0: 'x' }]) {
      expectShapeError(
        () => checkMessageShape('user/message', { id: 'm', role: 'user', source: { kind: 'user' }, content }, 's'),
        's message has invalid content',
      );
    }
  });

  it('rule 5: assistant messages need a model source with provider and model', () => {
    for (const source of [
      { kind: 'user' },
      { kind: 'model' },
      { kind: 'model', provider: '', model: 'm' },
      { kind: 'model', provider: 'p', model: 3 },
    ]) {
      const data = { turn: 1, step: 1, message: { id: 'm', role: 'assistant', source, content: [] } };
      expectShapeError(() => checkMessageShape('assistant/message', data, 's'), 's message must have model source');
    }
  });

  it('rule 6: tool source, one tool-result block, matching call ids', () => {
    const build = (source: unknown, content: unknown): unknown => ({
      turn: 1,
      step: 1,
      message: { id: 'm', role: 'user', source, content },
    });
    const block = { type: 'tool-result', toolCallId: 'c', content: [], isError: false };
    for (const source of [{ kind: 'user' }, { kind: 'tool' }, { kind: 'tool', callId: '' }]) {
      expectShapeError(() => checkMessageShape('tool/result', build(source, [block]), 's'), 's message must have tool source');
    }
    for (const content of [[], [block, block], [null], [{ ...block, type: 'text' }], [{ ...block, content: 'x' }], [[block]]]) {
      expectShapeError(
        () => checkMessageShape('tool/result', build({ kind: 'tool', callId: 'c' }, content), 's'),
        's message must contain one tool-result block',
      );
    }
    expectShapeError(
      () => checkMessageShape('tool/result', build({ kind: 'tool', callId: 'c' }, [{ ...block, toolCallId: 'd' }]), 's'),
      's message has mismatched tool call ids',
    );
  });

  it('checks rules in order (the first failing rule wins)', () => {
    expectShapeError(
      () => checkMessageShape('assistant/message', { message: { id: 'm', role: 'user', source: null, content: null } }, 's'),
      's message must have role "assistant"',
    );
    expectShapeError(
      () => checkMessageShape('tool/result', { message: { id: 'm', role: 'user', source: { kind: 'user' }, content: null } }, 's'),
      's message has invalid content',
    );
  });
});

describe('§3.6 request/header load checks', () => {
  const valid = {
    header: {
      config: { provider: 'p', model: 'm', reasoningEffort: 'high', maxTokens: 10 },
      adapterDefaults: { reasoningEffort: true, maxTokens: true },
    },
  };

  it('accepts a complete header', () => {
    expect(() => checkRequestHeader(valid, 0)).not.toThrow();
    expect(() => checkRequestHeader({ header: { config: { provider: 'p', model: 'm' } } }, 0)).not.toThrow();
  });
  it('rule 1: provider/model', () => {
    for (const data of [
      null,
      {},
      { header: [] },
      { header: { config: null } },
      { header: { config: { provider: 'p' } } },
      { header: { config: { provider: '', model: 'm' } } },
    ]) {
      expectShapeError(() => checkRequestHeader(data, 6), 'seed request/header at index 6 lacks provider/model');
    }
  });
  it('rule 2: reasoningEffort', () => {
    for (const reasoningEffort of ['', 3, null]) {
      expectShapeError(
        () => checkRequestHeader({ header: { config: { provider: 'p', model: 'm', reasoningEffort } } }, 2),
        'seed request/header at index 2 has an invalid reasoningEffort',
      );
    }
  });
  it('rule 3: adapterDefaults', () => {
    const config = { provider: 'p', model: 'm', maxTokens: 5 };
    for (const adapterDefaults of [null, [], 'x', { other: true }, { maxTokens: false }, { maxTokens: 1 }, { reasoningEffort: true }]) {
      expectShapeError(
        () => checkRequestHeader({ header: { config, adapterDefaults } }, 1),
        'seed request/header at index 1 has invalid adapterDefaults',
      );
    }
    expect(() => checkRequestHeader({ header: { config, adapterDefaults: {} } }, 1)).not.toThrow();
  });
});

describe('§4.5 compaction checkpoint recogniser', () => {
  it('is exactly source.kind plugin + plugin compact', () => {
    expect(isCompactionCheckpoint({ source: { kind: 'plugin', plugin: 'compact', compactionId: 'c1' } })).toBe(true);
    expect(isCompactionCheckpoint({ source: { kind: 'plugin', plugin: 'compact' } })).toBe(true);
    expect(isCompactionCheckpoint({ source: { kind: 'plugin', plugin: 'compact', dcp: { block: 3 } } })).toBe(true);
    expect(isCompactionCheckpoint({ source: { kind: 'plugin', plugin: 'dcp' } })).toBe(false);
    expect(isCompactionCheckpoint({ source: { kind: 'user', plugin: 'compact' } })).toBe(false);
    expect(isCompactionCheckpoint({ source: null })).toBe(false);
    expect(isCompactionCheckpoint(null)).toBe(false);
    expect(isCompactionCheckpoint('compact')).toBe(false);
  });
});

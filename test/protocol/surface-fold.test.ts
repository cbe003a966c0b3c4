import { describe, expect, it } from 'vitest';
import { SessionLogError } from '../../src/protocol/errors.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { SurfaceFold, classifyEvents, deriveModelMessages, foldSurface } from '../../src/protocol/surface-fold.js';
import { assistantMessage, checkpoint, expectError, logOnly, replace, toolCall, toolResult, userMessage } from './event-builders.js';

/** Folds `prefix`, then asserts that applying `event` throws `message` and changes nothing. */
function expectRejected(prefix: readonly SessionEvent[], event: SessionEvent, message: string): void {
  const fold = foldSurface(prefix);
  const before = { surface: fold.surfaceSeqs(), next: fold.nextSeq, classes: classifyEvents(prefix, fold) };
  expectError(() => fold.check(event), { message, code: 'SESSION_LOG_INVALID_SURFACE', type: SessionLogError });
  expectError(() => fold.apply(event), { message, code: 'SESSION_LOG_INVALID_SURFACE', type: SessionLogError });
  expect(fold.surfaceSeqs()).toEqual(before.surface);
  expect(fold.nextSeq).toBe(before.next);
  expect(classifyEvents(prefix, fold)).toEqual(before.classes);
  expect(fold.eventAt(prefix.length)).toBeUndefined();
}

const u0 = userMessage(0, 'first');
const a1 = assistantMessage(1, 'answer');
const t2 = toolResult(2, 'call-1', 'output');

describe('§5.2 rule 1: contiguity', () => {
  it('rejects a seq other than the expected one', () => {
    expectRejected([], userMessage(1, 'x'), 'session event seq 1 is not contiguous; expected 0');
    expectRejected([u0], logOnly(0), 'session event seq 0 is not contiguous; expected 1');
  });
});

describe('§5.2 rule 2: eligibility and marker shape', () => {
  it('2.1 rejects surfaceOp on a log-only type', () => {
    expectRejected(
      [],
      { ...logOnly(0, 'turn/start', { turn: 1 }), surfaceOp: 'append' },
      'session event "turn/start" is not surface-eligible and cannot carry surfaceOp',
    );
  });
  it('2.2 rejects sourceEventSeqs on a log-only type (surfaceOp checked first)', () => {
    expectRejected(
      [u0],
      { ...logOnly(1, 'turn/end', {}), sourceEventSeqs: [0] },
      'session event "turn/end" is not surface-eligible and cannot carry sourceEventSeqs',
    );
    expectRejected(
      [u0],
      { ...logOnly(1, 'turn/end', {}), sourceEventSeqs: [0], surfaceOp: 'append' },
      'session event "turn/end" is not surface-eligible and cannot carry surfaceOp',
    );
  });
  it('2.3 a log-only event leaves the surface unchanged', () => {
    const fold = foldSurface([u0, logOnly(1)]);
    expect(fold.surfaceSeqs()).toEqual([0]);
    expect(fold.nextSeq).toBe(2);
    expect(fold.classificationOf(1)).toBe('log-only');
  });
  it('2.4 requires a surfaceOp on every surface type', () => {
    for (const event of [userMessage(0, 'x', {}), assistantMessage(0, 'x', {}), toolResult(0, 'c', 'x', {})]) {
      expectRejected([], event, `session event "${event.type}" is surface-eligible and requires a surfaceOp marker`);
    }
  });
  it('2.5 rejects a surfaceOp that is neither append nor a record', () => {
    for (const surfaceOp of [null, [], ['append'], 'prepend', 'Append', 5, true]) {
      expectRejected(
        [],
        { ...userMessage(0, 'x'), surfaceOp } as unknown as SessionEvent,
        'session event "user/message" carries an invalid surfaceOp',
      );
    }
  });
  it('2.6 rejects a malformed replace record', () => {
    const bad: unknown[] = [
      {},
      { op: 'replace', start: 0 },
      { op: 'replace', start: 0, end: 0, extra: 1 },
      { op: 'splice', start: 0, end: 0 },
      { op: 'replace', start: -1, end: 0 },
      { op: 'replace', start: 0, end: 1.5 },
      { op: 'replace', start: '0', end: 0 },
      { op: 'replace', start: 0, end: 2 ** 53 },
      { start: 0, end: 0, other: 'replace' },
    ];
    for (const surfaceOp of bad) {
      expectRejected(
        [u0],
        { ...userMessage(1, 'x'), surfaceOp } as unknown as SessionEvent,
        'session event "user/message" carries an invalid replace surfaceOp',
      );
    }
  });
});

describe('§5.2 rule 3: append', () => {
  it('pushes the seq and accepts provenance citing any earlier event', () => {
    const fold = foldSurface([u0, logOnly(1), assistantMessage(2, 'a', { sourceEventSeqs: [1, 0], surfaceOp: 'append' })]);
    expect(fold.surfaceSeqs()).toEqual([0, 2]);
  });
  it('runs the provenance checks with an empty shadow set', () => {
    expectRejected(
      [u0],
      userMessage(1, 'x', { sourceEventSeqs: [1], surfaceOp: 'append' }),
      'sourceEventSeqs must reference earlier events: 1 >= current seq 1',
    );
  });
});

describe('§5.2 rule 4: replace range', () => {
  it('4.1 start not in the surface', () => {
    expectRejected(
      [u0, logOnly(1)],
      userMessage(2, 'x', { sourceEventSeqs: [1], surfaceOp: replace(1, 0) }),
      'surface replace: start seq 1 not found in surface',
    );
  });
  it('4.2 end not in the surface', () => {
    expectRejected(
      [u0],
      userMessage(1, 'x', { sourceEventSeqs: [0], surfaceOp: replace(0, 7) }),
      'surface replace: end seq 7 not found in surface',
    );
  });
  it('4.3 start after end', () => {
    expectRejected(
      [u0, a1, t2],
      userMessage(3, 'x', { sourceEventSeqs: [0, 1, 2], surfaceOp: replace(2, 1) }),
      'surface replace: start seq 2 (index 2) is after end seq 1 (index 1)',
    );
  });
  it('4.1 a shadowed node is no longer in the surface', () => {
    const prefix = [u0, userMessage(1, 'y', { sourceEventSeqs: [0], surfaceOp: replace(0, 0) })];
    expectRejected(
      prefix,
      userMessage(2, 'z', { sourceEventSeqs: [0], surfaceOp: replace(0, 0) }),
      'surface replace: start seq 0 not found in surface',
    );
  });
  it('4.4 splices the slice out and inserts the replacement at the start index', () => {
    const events = [u0, a1, t2, userMessage(3, 'tail'), assistantMessage(4, 'sum', { sourceEventSeqs: [1, 2], surfaceOp: replace(1, 2) })];
    const fold = foldSurface(events);
    expect(fold.surfaceSeqs()).toEqual([0, 4, 3]);
    expect(classifyEvents(events, fold)).toEqual(['current', 'shadowed', 'shadowed', 'current', 'current']);
    expect(fold.isShadowed(1)).toBe(true);
    expect(fold.isCurrent(4)).toBe(true);
  });
  it('other surface types may replace any nodes (a user message replacing assistant and tool nodes)', () => {
    const fold = foldSurface([u0, a1, t2, userMessage(3, 'x', { sourceEventSeqs: [1, 2], surfaceOp: replace(1, 2) })]);
    expect(fold.surfaceSeqs()).toEqual([0, 3]);
  });
});

describe('§5.2 rule 5: provenance', () => {
  const prefix = [u0, a1, t2];
  it('5.1 must be an array when present', () => {
    for (const sourceEventSeqs of [5, '0', { 0: 0 }, null]) {
      expectRejected(
        prefix,
        { ...userMessage(3, 'x'), sourceEventSeqs } as unknown as SessionEvent,
        'sourceEventSeqs on event at seq 3 must be an array when present',
      );
    }
  });
  it('5.2 may be empty only on assistant/message', () => {
    expectRejected(
      prefix,
      userMessage(3, 'x', { sourceEventSeqs: [], surfaceOp: 'append' }),
      'sourceEventSeqs must not be empty except on assistant/message',
    );
    expectRejected(
      prefix,
      toolResult(3, 'c', 'x', { sourceEventSeqs: [], surfaceOp: 'append' }),
      'sourceEventSeqs must not be empty except on assistant/message',
    );
    expect(foldSurface([...prefix, assistantMessage(3, 'x', { sourceEventSeqs: [], surfaceOp: 'append' })]).surfaceSeqs()).toEqual([
      0, 1, 2, 3,
    ]);
  });
  it('5.3 elements must be non-negative safe integers, holes included', () => {
    const sparse = [, 0] as unknown[];
    for (const sourceEventSeqs of [[-1], [1.5], ['0'], [0, null], sparse, [2 ** 53]]) {
      expectRejected(
        prefix,
        { ...userMessage(3, 'x'), sourceEventSeqs } as unknown as SessionEvent,
        'session event "user/message" sourceEventSeqs must densely contain non-negative safe integers',
      );
    }
  });
  it('5.3 runs over the whole array before 5.4 duplicates', () => {
    expectRejected(
      prefix,
      { ...userMessage(3, 'x'), sourceEventSeqs: [0, 0, 'x'] } as unknown as SessionEvent,
      'session event "user/message" sourceEventSeqs must densely contain non-negative safe integers',
    );
  });
  it('5.4 rejects duplicates, before 5.5', () => {
    expectRejected(
      prefix,
      userMessage(3, 'x', { sourceEventSeqs: [1, 1], surfaceOp: 'append' }),
      'sourceEventSeqs must not contain duplicates',
    );
    expectRejected(
      prefix,
      userMessage(3, 'x', { sourceEventSeqs: [9, 9], surfaceOp: 'append' }),
      'sourceEventSeqs must not contain duplicates',
    );
  });
  it('5.5 names the first element not earlier than the event', () => {
    expectRejected(
      prefix,
      userMessage(3, 'x', { sourceEventSeqs: [0, 5, 3], surfaceOp: 'append' }),
      'sourceEventSeqs must reference earlier events: 5 >= current seq 3',
    );
  });
  it('5.6 every shadowed node must be cited; missing seqs in surface order', () => {
    expectRejected(
      prefix,
      userMessage(3, 'x', { sourceEventSeqs: [1], surfaceOp: replace(0, 2) }),
      'surface replace: sourceEventSeqs must include every shadowed surface node; missing 0, 2',
    );
  });
  it('5.6 a replace without sourceEventSeqs always fails here', () => {
    expectRejected(
      prefix,
      userMessage(3, 'x', { surfaceOp: replace(1, 1) }),
      'surface replace: sourceEventSeqs must include every shadowed surface node; missing 1',
    );
  });
});

describe('§5.2 rule 6: tool-result rewrite', () => {
  const t1 = toolResult(1, 'call-1', 'long output');
  const t2b = toolResult(2, 'call-2', 'second');
  /** A rewrite of `original` at `seq`: same data, new inner content, then `edit` applied. */
  function rewrite(original: SessionEvent, seq: number, edit: (data: Record<string, any>) => void = () => {}): SessionEvent {
    const data = structuredClone(original.data) as Record<string, any>;
    data['message']['content'][0]['content'] = [{ type: 'text', text: '[offloaded]' }];
    edit(data);
    return { type: 'tool/result', seq, time: 5000, data, sourceEventSeqs: [original.seq], surfaceOp: replace(original.seq, original.seq) };
  }

  it('accepts a rewrite that changes only the inner content (key order irrelevant)', () => {
    const reordered = rewrite(t1, 2, (data) => {
      const { message, step, turn } = data;
      for (const key of Object.keys(data)) delete data[key];
      Object.assign(data, {
        message: { source: message.source, content: message.content, role: message.role, id: message.id },
        step,
        turn,
      });
    });
    const fold = foldSurface([u0, t1, reordered]);
    expect(fold.surfaceSeqs()).toEqual([0, 2]);
    expect(fold.isShadowed(1)).toBe(true);
  });
  it('6.1 must rewrite exactly one node', () => {
    const event = { ...rewrite(t1, 3), sourceEventSeqs: [1, 2], surfaceOp: replace(1, 2) };
    expectRejected([u0, t1, t2b], event, 'tool/result surface replacement must rewrite exactly one current node');
  });
  it('6.2 must target a tool/result', () => {
    const event = { ...rewrite(t1, 2), sourceEventSeqs: [0], surfaceOp: replace(0, 0) };
    expectRejected([u0, t1], event, 'tool/result surface replacement must target a current tool/result');
  });
  it('6.3 may change only content', () => {
    const edits: Array<(data: Record<string, any>) => void> = [
      (d) => {
        d['turn'] = 2;
      },
      (d) => {
        d['step'] = 9;
      },
      (d) => {
        d['error'] = { name: 'E', code: 'X' };
      },
      (d) => {
        d['meta'] = { offloaded: true };
      },
      (d) => {
        d['message']['id'] = 'other';
      },
      (d) => {
        d['message']['role'] = 'assistant';
      },
      (d) => {
        d['message']['source'] = { kind: 'tool', callId: 'call-1', extra: 1 };
      },
      (d) => {
        d['message']['content'][0]['isError'] = true;
      },
      (d) => {
        d['message']['content'][0]['toolCallId'] = 'call-9';
      },
      (d) => {
        d['message']['extra'] = null;
      },
    ];
    for (const edit of edits) {
      expectRejected([u0, t1], rewrite(t1, 2, edit), 'tool/result surface replacement may change only content');
    }
  });
  it('compares against the data of the shadowed event, not the previous rewrite target', () => {
    const first = rewrite(t1, 2);
    const second = { ...rewrite(t1, 3), sourceEventSeqs: [2], surfaceOp: replace(2, 2) };
    expect(foldSurface([u0, t1, first, second]).surfaceSeqs()).toEqual([0, 3]);
  });
});

describe('§5.3 classification and §5.4 derived messages', () => {
  it('derives messages in surface order and skips an empty assistant message', () => {
    const events = [u0, assistantMessage(1, []), assistantMessage(2, [toolCall('c1')]), toolResult(3, 'c1', 'out'), logOnly(4)];
    const fold = foldSurface(events);
    const messages = deriveModelMessages(events, fold);
    expect(messages).toEqual([
      events[0]!.data,
      (events[2]!.data as { message: unknown }).message,
      (events[3]!.data as { message: unknown }).message,
    ]);
    expect(messages[0]).toBe(events[0]!.data);
    expect(classifyEvents(events, fold)).toEqual(['current', 'current', 'current', 'current', 'log-only']);
  });
  it('item 79: an assistant message replacing a user message → shadowed, log-only, current', () => {
    const events = [u0, logOnly(1), assistantMessage(2, 'replacement', { sourceEventSeqs: [0], surfaceOp: replace(0, 0) })];
    expect(classifyEvents(events)).toEqual(['shadowed', 'log-only', 'current']);
  });
  it('item 74: an empty log has an empty surface', () => {
    const fold = foldSurface([]);
    expect(fold.surfaceSeqs()).toEqual([]);
    expect(fold.nextSeq).toBe(0);
    expect(classifyEvents([])).toEqual([]);
    expect(deriveModelMessages([], fold)).toEqual([]);
  });
  it('item 73: checkpoints replacing earlier checkpoints leave [4, 5]', () => {
    const events = [
      userMessage(0, 'old'),
      logOnly(1),
      checkpoint(2, 'summary 1', { sourceEventSeqs: [0], surfaceOp: replace(0, 0) }),
      userMessage(3, 'retained tail'),
      checkpoint(4, 'summary 2', { sourceEventSeqs: [2, 3], surfaceOp: replace(2, 3) }),
      assistantMessage(5, 'latest answer'),
    ];
    const fold = foldSurface(events);
    expect(fold.surfaceSeqs().map((seq) => [seq, events[seq]!.type])).toEqual([
      [4, 'user/message'],
      [5, 'assistant/message'],
    ]);
    expect(classifyEvents(events, fold)).toEqual(['shadowed', 'log-only', 'shadowed', 'shadowed', 'current', 'current']);
  });
  it('item 78 (fold part): a user message without surfaceOp fails; an extra envelope key does not matter', () => {
    expectError(() => foldSurface([userMessage(0, 'x', {})]), {
      message: 'session event "user/message" is surface-eligible and requires a surfaceOp marker',
      code: 'SESSION_LOG_INVALID_SURFACE',
    });
    const withExtraKey = { ...userMessage(0, 'x'), extra: true } as SessionEvent;
    expect(foldSurface([withExtraKey]).surfaceSeqs()).toEqual([0]);
  });
});

describe('SurfaceFold API', () => {
  it('check validates without applying', () => {
    const fold = new SurfaceFold();
    fold.check(u0);
    expect(fold.nextSeq).toBe(0);
    expect(fold.surfaceSeqs()).toEqual([]);
    fold.apply(u0);
    expect(fold.eventAt(0)).toBe(u0);
    expect(fold.surfaceLength).toBe(1);
  });
  it('surfaceSeqs returns a copy', () => {
    const fold = foldSurface([u0]);
    (fold.surfaceSeqs() as number[]).push(99);
    expect(fold.surfaceSeqs()).toEqual([0]);
  });
  it('answers queries about seqs not applied yet', () => {
    const fold = foldSurface([u0]);
    expect(fold.isCurrent(5)).toBe(false);
    expect(fold.isShadowed(5)).toBe(false);
    expect(fold.classificationOf(5)).toBeUndefined();
    expect(fold.classificationOf(-1)).toBeUndefined();
    expect(fold.eventAt(5)).toBeUndefined();
  });
  it('grows past its initial capacity with O(1) appends', () => {
    const events: SessionEvent[] = [];
    for (let seq = 0; seq < 5000; seq++) events.push(seq % 2 === 0 ? userMessage(seq, 'x') : logOnly(seq));
    const fold = foldSurface(events);
    expect(fold.surfaceLength).toBe(2500);
    expect(fold.isCurrent(4998)).toBe(true);
    expect(fold.classificationOf(4999)).toBe('log-only');
  });
  it('a malformed tool/result replacement on an unvalidated path throws the native TypeError', () => {
    const t1 = toolResult(1, 'c', 'x');
    const bad = { type: 'tool/result', seq: 2, time: 1, data: null, sourceEventSeqs: [1], surfaceOp: replace(1, 1) } as SessionEvent;
    const fold = foldSurface([u0, t1]);
    expect(() => fold.apply(bad)).toThrow(TypeError);
    expect(fold.nextSeq).toBe(2);
  });
});

// HOST.md §3.3 replacement legality and §13 items 6, 7, 8.
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../src/main/stand-in/host/session.js';
import { Session as SessionClass } from '../../../../src/main/stand-in/host/session.js';
import {
  appendRaw,
  assistantData,
  compactRange,
  expectThrow,
  headerFor,
  newSession,
  openStep,
  toolCallBlock,
  toolResultData,
  userData,
} from './host-builders.js';

/** Turn 1 / step 1 with an assistant tool call `c1` and its result; returns the result seq. */
function withToolResult(session: Session): number {
  openStep(session, 1, 1);
  session.append('assistant/message', assistantData(1, 1, [toolCallBlock('c1')]), { surfaceOp: 'append' });
  return session.append('tool/result', toolResultData(1, 1, 'c1', 'long output'), { surfaceOp: 'append' }).seq;
}

function replaceOf(seq: number): { surfaceOp: unknown; sourceEventSeqs: number[] } {
  return { surfaceOp: { op: 'replace', start: seq, end: seq }, sourceEventSeqs: [seq] };
}

describe('tool/result replacement (§13 item 6)', () => {
  it('changing only the inner content succeeds in an open turn with no open step', () => {
    const session = newSession();
    const seq = withToolResult(session);
    session.append('step/end', { turn: 1, step: 1 });
    const rewritten = toolResultData(1, 1, 'c1', '[pruned]');
    const event = session.append('tool/result', rewritten, replaceOf(seq));
    expect(session.surface.at(1)).toBe(event.seq);
    expect(session.surface.shadowedBy(seq)).toBe(event.seq);
  });

  const changes: Array<[string, (data: Record<string, unknown>) => void]> = [
    [
      'data.error',
      (data) => {
        data['error'] = { name: 'E', code: 'X' };
      },
    ],
    [
      'data.turn',
      (data) => {
        data['turn'] = 2;
      },
    ],
    [
      'the message id',
      (data) => {
        (data['message'] as Record<string, unknown>)['id'] = 'other';
      },
    ],
  ];
  for (const [field, change] of changes) {
    it(`changing ${field} throws the SESSION-LOG rewrite text`, () => {
      const session = newSession();
      const seq = withToolResult(session);
      const data = toolResultData(1, 1, 'c1', '[pruned]') as unknown as Record<string, unknown>;
      change(data);
      expectThrow(() => appendRaw(session, 'tool/result', data, replaceOf(seq)), {
        message: 'tool/result surface replacement may change only content',
        code: 'HOST_INVALID_EVENT',
      });
      expect(session.events).toHaveLength(4);
    });
  }

  it('outside every turn throws HOST_NO_OPEN_TURN', () => {
    const session = newSession();
    const seq = withToolResult(session);
    session.append('step/end', { turn: 1, step: 1 });
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
    expectThrow(() => session.append('tool/result', toolResultData(1, 1, 'c1', '[pruned]'), replaceOf(seq)), {
      message: 'tool/result replacement requires an open turn',
      code: 'HOST_NO_OPEN_TURN',
    });
  });

  it('must rewrite exactly one current tool/result (SESSION-LOG §5.2 rule 6)', () => {
    const session = newSession();
    const seq = withToolResult(session);
    expectThrow(
      () =>
        session.append('tool/result', toolResultData(1, 1, 'c1', 'x'), {
          surfaceOp: { op: 'replace', start: seq - 1, end: seq },
          sourceEventSeqs: [seq - 1, seq],
        }),
      {
        message: 'tool/result surface replacement must rewrite exactly one current node',
        code: 'HOST_INVALID_EVENT',
      },
    );
    expectThrow(() => session.append('tool/result', toolResultData(1, 1, 'c1', 'x'), replaceOf(seq - 1)), {
      message: 'tool/result surface replacement must target a current tool/result',
      code: 'HOST_INVALID_EVENT',
    });
  });
});

describe('assistant/message replacement (§13 item 7)', () => {
  it('succeeds inside its own open step and survives a reload', () => {
    const session = newSession();
    openStep(session, 1, 1);
    const original = session.append('assistant/message', assistantData(1, 1, 'draft'), { surfaceOp: 'append' });
    session.append('assistant/message', assistantData(1, 1, 'final'), replaceOf(original.seq));
    session.append('step/end', { turn: 1, step: 1 });
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
    const reloaded = SessionClass.create('s', { header: headerFor('s'), seed: structuredClone(session.events) });
    expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(session.deriveMessages()));
    expect(reloaded.deriveMessages().map((message) => message.content)).toEqual([[{ type: 'text', text: 'final' }]]);
  });

  it('after step/end throws HOST_ASSISTANT_REPLACE', () => {
    const session = newSession();
    openStep(session, 1, 1);
    const original = session.append('assistant/message', assistantData(1, 1, 'draft'), { surfaceOp: 'append' });
    session.append('step/end', { turn: 1, step: 1 });
    expectThrow(() => session.append('assistant/message', assistantData(1, 1, 'final'), replaceOf(original.seq)), {
      message: 'assistant/message replacement must stay inside its own open step',
      code: 'HOST_ASSISTANT_REPLACE',
    });
  });

  it('from another step, of another node type, or over several nodes throws HOST_ASSISTANT_REPLACE', () => {
    const session = newSession();
    openStep(session, 1, 1);
    const first = session.append('assistant/message', assistantData(1, 1, 'one'), { surfaceOp: 'append' });
    session.append('step/end', { turn: 1, step: 1 });
    session.append('step/start', { turn: 1, step: 2 });
    const user = session.append('user/message', userData('u'), { surfaceOp: 'append' });
    const second = session.append('assistant/message', assistantData(1, 2, 'two'), { surfaceOp: 'append' });
    const message = { message: 'assistant/message replacement must stay inside its own open step', code: 'HOST_ASSISTANT_REPLACE' };
    expectThrow(() => session.append('assistant/message', assistantData(1, 2, 'x'), replaceOf(first.seq)), message);
    expectThrow(() => session.append('assistant/message', assistantData(1, 1, 'x'), replaceOf(first.seq)), message);
    expectThrow(() => session.append('assistant/message', assistantData(1, 2, 'x'), replaceOf(user.seq)), message);
    expectThrow(
      () =>
        session.append('assistant/message', assistantData(1, 2, 'x'), {
          surfaceOp: { op: 'replace', start: user.seq, end: second.seq },
          sourceEventSeqs: [user.seq, second.seq],
        }),
      message,
    );
    session.append('assistant/message', assistantData(1, 2, 'x'), replaceOf(second.seq));
  });
});

describe('user/message replacement (§13 item 8)', () => {
  it('a replace of two nodes yields one node; a second bracket over that checkpoint again yields one node', () => {
    const session = newSession();
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    const b = session.append('user/message', userData('b'), { surfaceOp: 'append' }).seq;
    const c = session.append('user/message', userData('c'), { surfaceOp: 'append' }).seq;
    const first = compactRange(session, 'k1', a, b, 'summary 1');
    expect(session.surface.slice(0, session.surface.length)).toEqual([first, c]);
    const second = compactRange(session, 'k2', first, c, 'summary 2');
    expect(session.surface.length).toBe(1);
    expect(session.surface.at(0)).toBe(second);
    expect(session.surface.shadowedOf(second)).toEqual([first, c]);
    expect(session.surface.shadowedBy(a)).toBe(first);
    expect(session.deriveMessages().map((message) => message.id)).toEqual(['cp-summary 2']);
  });

  it('may shadow assistant and tool nodes with no turn requirement', () => {
    const session = newSession();
    const result = withToolResult(session);
    session.append('step/end', { turn: 1, step: 1 });
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
    const checkpoint = session.append('user/message', userData('s'), {
      surfaceOp: { op: 'replace', start: result - 1, end: result },
      sourceEventSeqs: [result - 1, result],
    });
    expect(session.surface.slice(0, 9)).toEqual([checkpoint.seq]);
  });
});

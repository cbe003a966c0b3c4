// HOST.md §3.4 turn and step legality, rule by rule, with the exact HOST_TURN text.
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../src/main/stand-in/host/session.js';
import { appendRaw, assistantData, expectThrow, newSession, toolResultData, userData } from './host-builders.js';

/** Expects `HOST_TURN: <type> violates turn/step order (open turn <T>, open step <S>)` and an unchanged log. */
function expectTurnError(session: Session, type: string, data: unknown, openTurn: string, openStep: string, options = {}): void {
  const before = session.events.length;
  expectThrow(() => appendRaw(session, type, data, options), {
    message: `${type} violates turn/step order (open turn ${openTurn}, open step ${openStep})`,
    code: 'HOST_TURN',
    name: 'SessionAppendError',
  });
  expect(session.events).toHaveLength(before);
}

describe('rule 1: turn/start', () => {
  it('starts at 1 in a new session and must exceed every turn number of the log', () => {
    const session = newSession();
    expectTurnError(session, 'turn/start', { turn: 0 }, 'none', 'none');
    session.append('turn/start', { turn: 1 });
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
    expectTurnError(session, 'turn/start', { turn: 1 }, 'none', 'none');
    session.append('turn/start', { turn: 5 });
  });

  it('needs no open turn', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    expectTurnError(session, 'turn/start', { turn: 2 }, '1', 'none');
  });

  it('needs a safe-integer turn', () => {
    expectTurnError(newSession(), 'turn/start', { turn: '1' }, 'none', 'none');
    expectTurnError(newSession(), 'turn/start', {}, 'none', 'none');
  });
});

describe('rule 2: turn/end', () => {
  it('must name the open turn', () => {
    const session = newSession();
    expectTurnError(session, 'turn/end', { turn: 1, reason: { kind: 'completed' } }, 'none', 'none');
    session.append('turn/start', { turn: 1 });
    expectTurnError(session, 'turn/end', { turn: 2, reason: { kind: 'completed' } }, '1', 'none');
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
  });

  it('needs no open step', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    session.append('step/start', { turn: 1, step: 1 });
    expectTurnError(session, 'turn/end', { turn: 1, reason: { kind: 'completed' } }, '1', '1');
  });
});

describe('rule 3: step/start', () => {
  it('needs the open turn', () => {
    const session = newSession();
    expectTurnError(session, 'step/start', { turn: 1, step: 1 }, 'none', 'none');
    session.append('turn/start', { turn: 1 });
    expectTurnError(session, 'step/start', { turn: 2, step: 1 }, '1', 'none');
  });

  it('numbers steps from 1, then previous + 1', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    expectTurnError(session, 'step/start', { turn: 1, step: 0 }, '1', 'none');
    expectTurnError(session, 'step/start', { turn: 1, step: 2 }, '1', 'none');
    session.append('step/start', { turn: 1, step: 1 });
    session.append('step/end', { turn: 1, step: 1 });
    expectTurnError(session, 'step/start', { turn: 1, step: 1 }, '1', 'none');
    expectTurnError(session, 'step/start', { turn: 1, step: 3 }, '1', 'none');
    session.append('step/start', { turn: 1, step: 2 });
  });

  it('restarts at 1 in the next turn', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    session.append('step/start', { turn: 1, step: 1 });
    session.append('step/end', { turn: 1, step: 1 });
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
    session.append('turn/start', { turn: 2 });
    expectTurnError(session, 'step/start', { turn: 2, step: 2 }, '2', 'none');
    session.append('step/start', { turn: 2, step: 1 });
  });

  it('needs no open step', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    session.append('step/start', { turn: 1, step: 1 });
    expectTurnError(session, 'step/start', { turn: 1, step: 2 }, '1', '1');
  });
});

describe('rule 4: step/end', () => {
  it('must match the open step', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    expectTurnError(session, 'step/end', { turn: 1, step: 1 }, '1', 'none');
    session.append('step/start', { turn: 1, step: 1 });
    expectTurnError(session, 'step/end', { turn: 1, step: 2 }, '1', '1');
    expectTurnError(session, 'step/end', { turn: 2, step: 1 }, '1', '1');
    session.append('step/end', { turn: 1, step: 1 });
  });
});

describe('rule 5: assistant/message and tool/result appends', () => {
  for (const [type, data] of [
    ['assistant/message', assistantData(1, 1, 'hi')],
    ['tool/result', toolResultData(1, 1, 'c1', 'out')],
  ] as const) {
    it(`${type} needs data.turn/data.step equal to the open step`, () => {
      const session = newSession();
      expectTurnError(session, type, data, 'none', 'none', { surfaceOp: 'append' });
      session.append('turn/start', { turn: 1 });
      expectTurnError(session, type, data, '1', 'none', { surfaceOp: 'append' });
      session.append('step/start', { turn: 1, step: 1 });
      const wrongStep = { ...data, step: 2 };
      expectTurnError(session, type, wrongStep, '1', '1', { surfaceOp: 'append' });
      session.append(type, data, { surfaceOp: 'append' });
    });
  }
});

describe('rule 6: types without a turn or step requirement', () => {
  it('user/message, command/*, request/*, session/* and compaction/prune may come anywhere', () => {
    const session = newSession();
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    session.append('command/run', { commandId: 'c', name: 'x', source: { kind: 'user' } });
    session.append('command/done', { commandId: 'c', kind: 'success', text: '' });
    session.append('request/context', { provider: 'p', model: 'm', contextWindow: 1000 });
    session.append('session/title', { title: 't', messageSeqs: [0], source: { kind: 'user' } });
    session.append('compaction/prune', { shadowedRange: { start: 0, end: 0 }, shadowedSeqs: [0], shadowedTokenCount: 1 });
    session.append('turn/start', { turn: 1 });
    session.append('user/message', userData('b'), { surfaceOp: 'append' });
    session.append('session/title', { title: 't', messageSeqs: [0], source: { kind: 'user' } });
    expect(session.events).toHaveLength(9);
  });
});

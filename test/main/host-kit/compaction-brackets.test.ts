// HOST.md §3.5 compaction bracket invariant (§13 items 2–4), stale brackets after session/end-seed, the seed
// crash-closer exception (§3.8), openBrackets() (§2.5) and the fork boundary inside a bracket (§2.1 rule 3).
import type { CompactionSummaryData } from '../../../src/protocol/event-map.js';
import { describe, expect, it } from 'vitest';
import { interruptedTurnClosers } from '../../../src/protocol/closers.js';
import type { SessionEvent } from '../../../src/protocol/events.js';
import { Session } from '../../../src/main/stand-in/host/session.js';
import { appendRaw, checkpointData, expectThrow, headerFor, newSession, userData } from '../stand-in/host/host-builders.js';

/** A summary of the single node `seq` with a valid pricing record. */
function summaryOf(compactionId: string, seq: number, tokens = 9): CompactionSummaryData {
  return {
    compactionId,
    summary: [{ type: 'text', text: 's' }],
    shadowedRange: { start: seq, end: seq },
    shadowedSeqs: [seq],
    shadowedTokenCount: tokens,
    provider: 'p',
    model: 'm',
  };
}

/** The checkpoint replace of the single node `seq`, naming `compactionId`. */
function checkpointOver(session: Session, compactionId: string, seq: number, text = 'cp'): SessionEvent {
  return session.append('user/message', checkpointData(text, `cp-${text}-${session.events.length}`, compactionId), {
    surfaceOp: { op: 'replace', start: seq, end: seq },
    sourceEventSeqs: [seq],
  });
}

/** A new session reloaded from a clone of `session`'s events (so `session/end-seed` follows them). */
function reload(session: Session): Session {
  return Session.create(session.id, { header: session.header, seed: structuredClone(session.events) });
}

/** Expects a `SessionAppendError` with `code` / `message` and an unchanged log length. */
function expectRefused(session: Session, type: string, data: unknown, code: string, message: string, options = {}): void {
  const before = session.events.length;
  expectThrow(() => appendRaw(session, type, data, options), { message, code, name: 'SessionAppendError' });
  expect(session.events).toHaveLength(before);
}

/** `HOST_BRACKET: <type> does not match the open compaction bracket (<detail>)`. */
function bracketText(type: string, detail: string): string {
  return `${type} does not match the open compaction bracket (${detail})`;
}

describe('rule 1: compaction/start', () => {
  it('§13 item 2: a start while another bracket is open throws HOST_STILL_COMPACTING; after session/end-seed a new start succeeds', () => {
    const session = newSession();
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    session.append('compaction/start', { compactionId: 'first', turn: null });
    expectRefused(session, 'compaction/start', { compactionId: 'second', turn: null }, 'HOST_STILL_COMPACTING', 'still compacting first');
    const reloaded = reload(session);
    expect(reloaded.events.at(-1)!.type).toBe('session/end-seed');
    expect(reloaded.openBrackets()).toEqual([]);
    reloaded.append('compaction/start', { compactionId: 'second', turn: null });
    expect(reloaded.openBrackets()).toEqual([{ compactionId: 'second', turn: null, startSeq: 3 }]);
  });

  it('needs a non-empty string compactionId', () => {
    const session = newSession();
    const detail = 'compactionId must be a non-empty string';
    expectRefused(session, 'compaction/start', { compactionId: '', turn: null }, 'HOST_BRACKET', bracketText('compaction/start', detail));
    expectRefused(session, 'compaction/start', { compactionId: 7, turn: null }, 'HOST_BRACKET', bracketText('compaction/start', detail));
    expectRefused(session, 'compaction/start', { turn: null }, 'HOST_BRACKET', bracketText('compaction/start', detail));
  });

  it('a numbered turn must be the open turn; turn null requires that no turn is open', () => {
    const session = newSession();
    expectRefused(
      session,
      'compaction/start',
      { compactionId: 'c', turn: 1 },
      'HOST_BRACKET',
      bracketText('compaction/start', 'turn 1 is not the open turn none'),
    );
    expectRefused(
      session,
      'compaction/start',
      { compactionId: 'c' },
      'HOST_BRACKET',
      bracketText('compaction/start', 'turn must be a number or null'),
    );
    session.append('turn/start', { turn: 1 });
    expectRefused(
      session,
      'compaction/start',
      { compactionId: 'c', turn: 2 },
      'HOST_BRACKET',
      bracketText('compaction/start', 'turn 2 is not the open turn 1'),
    );
    expectRefused(
      session,
      'compaction/start',
      { compactionId: 'c', turn: null },
      'HOST_BRACKET',
      bracketText('compaction/start', 'turn null requires no open turn; open turn 1'),
    );
    session.append('compaction/start', { compactionId: 'c', turn: 1 });
    expect(session.openBrackets()).toEqual([{ compactionId: 'c', turn: 1, startSeq: 1 }]);
  });

  it('ids may repeat across the log: a closed id can open a new bracket', () => {
    const session = newSession();
    session.append('compaction/start', { compactionId: 'same', turn: null });
    session.append('compaction/end', { compactionId: 'same', turn: null, error: { message: 'failed' } });
    session.append('compaction/start', { compactionId: 'same', turn: null });
    expect(session.openBrackets()).toEqual([{ compactionId: 'same', turn: null, startSeq: 2 }]);
  });
});

describe('rule 2: compaction/summary', () => {
  it('names the open bracket, once, with valid pricing fields', () => {
    const session = newSession();
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    expectRefused(
      session,
      'compaction/summary',
      summaryOf('c', a),
      'HOST_BRACKET',
      bracketText('compaction/summary', 'no compaction bracket is open'),
    );
    session.append('compaction/start', { compactionId: 'c', turn: null });
    expectRefused(
      session,
      'compaction/summary',
      summaryOf('other', a),
      'HOST_BRACKET',
      bracketText('compaction/summary', 'compactionId other is not the open bracket c'),
    );
    const pricing = (patch: Record<string, unknown>) => ({ ...summaryOf('c', a), ...patch });
    expectRefused(
      session,
      'compaction/summary',
      pricing({ shadowedSeqs: [] }),
      'HOST_BRACKET',
      bracketText('compaction/summary', 'shadowedSeqs must be a non-empty array'),
    );
    expectRefused(
      session,
      'compaction/summary',
      pricing({ shadowedSeqs: 'x' }),
      'HOST_BRACKET',
      bracketText('compaction/summary', 'shadowedSeqs must be a non-empty array'),
    );
    const rangeDetail = 'shadowedRange must be {start: shadowedSeqs[0], end: shadowedSeqs.at(-1)}';
    expectRefused(
      session,
      'compaction/summary',
      pricing({ shadowedRange: { start: a, end: a + 1 } }),
      'HOST_BRACKET',
      bracketText('compaction/summary', rangeDetail),
    );
    const { shadowedRange: _omitted, ...withoutRange } = summaryOf('c', a);
    expectRefused(session, 'compaction/summary', withoutRange, 'HOST_BRACKET', bracketText('compaction/summary', rangeDetail));
    const tokenDetail = 'shadowedTokenCount must be a non-negative safe integer';
    expectRefused(
      session,
      'compaction/summary',
      pricing({ shadowedTokenCount: -1 }),
      'HOST_BRACKET',
      bracketText('compaction/summary', tokenDetail),
    );
    expectRefused(
      session,
      'compaction/summary',
      pricing({ shadowedTokenCount: 1.5 }),
      'HOST_BRACKET',
      bracketText('compaction/summary', tokenDetail),
    );
    const summary = session.append('compaction/summary', summaryOf('c', a));
    expect(session.openBrackets()).toEqual([{ compactionId: 'c', turn: null, startSeq: 1, summarySeq: summary.seq }]);
    expectRefused(
      session,
      'compaction/summary',
      summaryOf('c', a),
      'HOST_BRACKET',
      bracketText('compaction/summary', `bracket c already has a summary at seq ${summary.seq}`),
    );
  });

  it('needs the bracket turn state: a seed whose crash closer ended the bracket turn cannot add the summary', () => {
    const live = newSession();
    live.append('user/message', userData('a'), { surfaceOp: 'append' });
    live.append('turn/start', { turn: 1 });
    live.append('compaction/start', { compactionId: 'c', turn: 1 });
    const seed: unknown[] = structuredClone([...live.events, ...interruptedTurnClosers(live.events)]);
    seed.push({ type: 'compaction/summary', seq: seed.length, time: 1, data: summaryOf('c', 0) });
    expectThrow(() => Session.create('s', { header: headerFor(), seed }), {
      message: bracketText('compaction/summary', 'bracket turn 1, open turn none'),
      code: 'HOST_BRACKET',
    });
  });
});

describe('rule 3: compaction checkpoints', () => {
  it('§13 item 4: a checkpoint whose compactionId differs from the open bracket throws', () => {
    const session = newSession();
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryOf('c', a));
    const before = session.events.length;
    expectThrow(() => checkpointOver(session, 'other', a), {
      message: bracketText('user/message', 'compactionId other is not the open bracket c'),
      code: 'HOST_BRACKET',
    });
    expect(session.events).toHaveLength(before);
    expect(session.surface.at(0)).toBe(a);
    checkpointOver(session, 'c', a);
    session.append('compaction/end', { compactionId: 'c', turn: null });
    expect(session.openBrackets()).toEqual([]);
  });

  it('needs an open bracket, also without a compactionId; ordinary user replaces and appended checkpoints need none', () => {
    const session = newSession();
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    expectThrow(() => checkpointOver(session, 'c', a), {
      message: bracketText('user/message', 'no compaction bracket is open'),
      code: 'HOST_BRACKET',
    });
    const noId = { source: { kind: 'plugin', plugin: 'compact' }, content: [{ type: 'text', text: 'x' }], role: 'user', id: 'x' };
    expectThrow(() => appendRaw(session, 'user/message', noId, { surfaceOp: { op: 'replace', start: a, end: a }, sourceEventSeqs: [a] }), {
      message: bracketText('user/message', 'no compaction bracket is open'),
      code: 'HOST_BRACKET',
    });
    session.append('user/message', checkpointData('appended'), { surfaceOp: 'append' });
    session.append('user/message', userData('plain'), { surfaceOp: { op: 'replace', start: a, end: a }, sourceEventSeqs: [a] });
    expect(session.surface.length).toBe(2);
  });
});

describe('rule 4: compaction/end', () => {
  it('§13 item 3: a successful end without a summary throws; an end with error and no summary succeeds', () => {
    const session = newSession();
    session.append('compaction/start', { compactionId: 'c', turn: null });
    expectRefused(
      session,
      'compaction/end',
      { compactionId: 'c', turn: null },
      'HOST_BRACKET',
      bracketText('compaction/end', 'a successful end requires a summary'),
    );
    session.append('compaction/end', { compactionId: 'c', turn: null, error: { message: 'model failed', code: 'UNKNOWN' } });
    expect(session.openBrackets()).toEqual([]);
    session.append('compaction/start', { compactionId: 'd', turn: null });
  });

  it('names the open bracket and its turn', () => {
    const session = newSession();
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    expectRefused(
      session,
      'compaction/end',
      { compactionId: 'c', turn: null },
      'HOST_BRACKET',
      bracketText('compaction/end', 'no compaction bracket is open'),
    );
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryOf('c', a));
    expectRefused(
      session,
      'compaction/end',
      { compactionId: 'x', turn: null },
      'HOST_BRACKET',
      bracketText('compaction/end', 'compactionId x is not the open bracket c'),
    );
    expectRefused(
      session,
      'compaction/end',
      { compactionId: 'c', turn: 2 },
      'HOST_BRACKET',
      bracketText('compaction/end', 'turn 2 is not the bracket turn null'),
    );
    expectRefused(
      session,
      'compaction/end',
      { compactionId: 'c' },
      'HOST_BRACKET',
      bracketText('compaction/end', 'turn undefined is not the bracket turn null'),
    );
    session.append('compaction/end', { compactionId: 'c', turn: null });
  });
});

describe('rule 5: no turn events inside a bracket', () => {
  it('turn/start after a standalone start, and turn/end inside a turn bracket, throw HOST_BRACKET', () => {
    const standalone = newSession();
    standalone.append('compaction/start', { compactionId: 'c', turn: null });
    expectRefused(standalone, 'turn/start', { turn: 1 }, 'HOST_BRACKET', bracketText('turn/start', 'bracket c is open'));

    const inTurn = newSession();
    inTurn.append('turn/start', { turn: 1 });
    inTurn.append('compaction/start', { compactionId: 'c', turn: 1 });
    expectRefused(
      inTurn,
      'turn/end',
      { turn: 1, reason: { kind: 'completed' } },
      'HOST_BRACKET',
      bracketText('turn/end', 'bracket c is open'),
    );
    // The seed-only crash-closer exception does not apply to live appends.
    expectRefused(
      inTurn,
      'turn/end',
      { turn: 1, reason: { kind: 'interrupted' } },
      'HOST_BRACKET',
      bracketText('turn/end', 'bracket c is open'),
    );
  });
});

describe('rule 6: stale brackets after session/end-seed', () => {
  /** A reloaded session whose seed left bracket `c` open (standalone). */
  function staleSession(): Session {
    const live = newSession();
    live.append('user/message', userData('a'), { surfaceOp: 'append' });
    live.append('compaction/start', { compactionId: 'c', turn: null });
    return reload(live);
  }

  it('a summary, checkpoint or end naming the stale bracket throws HOST_STALE_BRACKET', () => {
    const session = staleSession();
    const stale = 'compaction bracket c is stale';
    expectRefused(session, 'compaction/summary', summaryOf('c', 0), 'HOST_STALE_BRACKET', stale);
    expectRefused(session, 'compaction/end', { compactionId: 'c', turn: null }, 'HOST_STALE_BRACKET', stale);
    expectRefused(session, 'compaction/end', { compactionId: 'c', turn: null, error: { message: 'x' } }, 'HOST_STALE_BRACKET', stale);
    expectThrow(() => checkpointOver(session, 'c', 0), { message: stale, code: 'HOST_STALE_BRACKET' });
  });

  it('no longer locks: another bracket opens, and naming the stale id inside it is still HOST_STALE_BRACKET', () => {
    const session = staleSession();
    session.append('compaction/start', { compactionId: 'd', turn: null });
    expectRefused(session, 'compaction/summary', summaryOf('c', 0), 'HOST_STALE_BRACKET', 'compaction bracket c is stale');
    session.append('compaction/summary', summaryOf('d', 0));
    checkpointOver(session, 'd', 0);
    session.append('compaction/end', { compactionId: 'd', turn: null });
  });

  it('a new bracket with the stale id can be continued while it is open, and the id is stale again after it ends', () => {
    const session = staleSession();
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryOf('c', 0));
    checkpointOver(session, 'c', 0);
    session.append('compaction/end', { compactionId: 'c', turn: null });
    expectRefused(session, 'compaction/end', { compactionId: 'c', turn: null }, 'HOST_STALE_BRACKET', 'compaction bracket c is stale');
  });

  it('no longer blocks turn events', () => {
    const live = newSession();
    live.append('turn/start', { turn: 1 });
    live.append('compaction/start', { compactionId: 'c', turn: 1 });
    expectRefused(
      live,
      'turn/end',
      { turn: 1, reason: { kind: 'completed' } },
      'HOST_BRACKET',
      bracketText('turn/end', 'bracket c is open'),
    );
    const session = reload(live);
    expect(session.openTurn()).toEqual({ turn: 1 });
    expect(session.openBrackets()).toEqual([]);
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
    session.append('turn/start', { turn: 2 });
  });

  it('a seed that already ends with session/end-seed keeps its stale brackets stale', () => {
    const once = reload(
      (() => {
        const live = newSession();
        live.append('compaction/start', { compactionId: 'c', turn: null });
        return live;
      })(),
    );
    const twice = reload(once);
    expect(twice.events).toHaveLength(once.events.length);
    expectRefused(twice, 'compaction/end', { compactionId: 'c', turn: null }, 'HOST_STALE_BRACKET', 'compaction bracket c is stale');
    twice.append('compaction/start', { compactionId: 'd', turn: null });
  });
});

describe('seed mode crash closer (§3.8)', () => {
  /** A live log that crashed inside a turn bracket: turn 1 open, step 1 open, bracket c open. */
  function crashedInsideBracket(): SessionEvent[] {
    const live = newSession();
    live.append('user/message', userData('a'), { surfaceOp: 'append' });
    live.append('turn/start', { turn: 1 });
    live.append('compaction/start', { compactionId: 'c', turn: 1 });
    live.append('step/start', { turn: 1, step: 1 });
    return structuredClone([...live.events]);
  }

  it('the synthetic turn/end {interrupted} closes the turn while the bracket is open; the bracket is stale afterwards', () => {
    const events = crashedInsideBracket();
    const closers = interruptedTurnClosers(events);
    expect(closers.map((event) => event.type)).toEqual(['step/end', 'turn/end']);
    const session = Session.create('s', { header: headerFor(), seed: [...events, ...structuredClone(closers)] });
    expect(session.events.at(-1)!.type).toBe('session/end-seed');
    expect(session.openTurn()).toBeNull();
    expect(session.openBrackets()).toEqual([]);
    expectRefused(session, 'compaction/end', { compactionId: 'c', turn: 1 }, 'HOST_STALE_BRACKET', 'compaction bracket c is stale');
    session.append('turn/start', { turn: 2 });
    session.append('compaction/start', { compactionId: 'd', turn: 2 });
  });

  it('any other turn/end inside the bracket still rejects the whole seed', () => {
    const events = crashedInsideBracket();
    const seed = [
      ...events,
      { type: 'step/end', seq: events.length, time: 1, data: { turn: 1, step: 1 } },
      { type: 'turn/end', seq: events.length + 1, time: 1, data: { turn: 1, reason: { kind: 'completed' } } },
    ];
    expectThrow(() => Session.create('s', { header: headerFor(), seed }), {
      message: bracketText('turn/end', 'bracket c is open'),
      code: 'HOST_BRACKET',
    });
  });
});

describe('openBrackets() (§2.5)', () => {
  it('lists the one open bracket as {compactionId, turn, startSeq, summarySeq?}, frozen, and nothing after its end', () => {
    const session = newSession();
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    expect(session.openBrackets()).toEqual([]);
    session.append('turn/start', { turn: 1 });
    session.append('compaction/start', { compactionId: 'c', turn: 1 });
    const [open] = session.openBrackets();
    expect(Object.keys(open!)).toEqual(['compactionId', 'turn', 'startSeq']);
    expect(open).toEqual({ compactionId: 'c', turn: 1, startSeq: 2 });
    expect(Object.isFrozen(open)).toBe(true);
    expect(Object.isFrozen(session.openBrackets())).toBe(true);
    session.append('compaction/summary', summaryOf('c', a));
    const [summarised] = session.openBrackets();
    expect(Object.keys(summarised!)).toEqual(['compactionId', 'turn', 'startSeq', 'summarySeq']);
    expect(summarised).toEqual({ compactionId: 'c', turn: 1, startSeq: 2, summarySeq: 3 });
    checkpointOver(session, 'c', a);
    expect(session.openBrackets()).toHaveLength(1);
    session.append('compaction/end', { compactionId: 'c', turn: 1 });
    expect(session.openBrackets()).toEqual([]);
  });
});

describe('rule 7: compaction/prune', () => {
  it('needs no bracket but valid pricing fields', () => {
    const session = newSession();
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    const prune = (patch: Record<string, unknown>) => ({
      shadowedRange: { start: a, end: a },
      shadowedSeqs: [a],
      shadowedTokenCount: 9,
      ...patch,
    });
    expectRefused(
      session,
      'compaction/prune',
      prune({ shadowedSeqs: [] }),
      'HOST_BRACKET',
      bracketText('compaction/prune', 'shadowedSeqs must be a non-empty array'),
    );
    expectRefused(
      session,
      'compaction/prune',
      prune({ shadowedRange: { start: a, end: 9 } }),
      'HOST_BRACKET',
      bracketText('compaction/prune', 'shadowedRange must be {start: shadowedSeqs[0], end: shadowedSeqs.at(-1)}'),
    );
    expectRefused(
      session,
      'compaction/prune',
      prune({ shadowedTokenCount: '9' }),
      'HOST_BRACKET',
      bracketText('compaction/prune', 'shadowedTokenCount must be a non-negative safe integer'),
    );
    session.append('compaction/prune', prune({}));
    session.append('turn/start', { turn: 1 });
    session.append('compaction/prune', prune({ shadowedTokenCount: 0 }));
  });
});

describe('fork boundary (§2.1 rule 3)', () => {
  it('refuses a cut inside an open non-stale bracket, accepts cuts before and after it', () => {
    const session = newSession('p');
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryOf('c', a));
    checkpointOver(session, 'c', a);
    session.append('compaction/end', { compactionId: 'c', turn: null });
    for (const cut of [2, 3, 4]) {
      expectThrow(() => session.fork(cut), {
        message: `fork at seq ${cut} is not at a turn boundary (open compaction bracket c)`,
        code: 'HOST_FORK',
      });
    }
    expect(session.fork(1, { id: 'before' }).events.map((event) => event.type)).toEqual(['user/message', 'session/end-seed']);
    const after = session.fork(5, { id: 'after' });
    expect(after.openBrackets()).toEqual([]);
    expect(after.deriveMessages().map((message) => message.id)).toEqual([session.deriveMessages()[0]!.id]);
  });

  it('reports the open turn first when the cut is inside both a turn and its bracket', () => {
    const session = newSession('p');
    session.append('turn/start', { turn: 1 });
    session.append('compaction/start', { compactionId: 'c', turn: 1 });
    expectThrow(() => session.fork(2), {
      message: 'fork at seq 2 is not at a turn boundary (open turn 1, open step none)',
      code: 'HOST_FORK',
    });
  });

  it('a stale bracket does not block a fork', () => {
    const live = newSession('p');
    live.append('compaction/start', { compactionId: 'c', turn: null });
    const reloaded = reload(live);
    const child = reloaded.fork(reloaded.events.length, { id: 'child' });
    expect(child.events.map((event) => event.type)).toEqual(['compaction/start', 'session/end-seed']);
    child.append('compaction/start', { compactionId: 'd', turn: null });
  });
});

// HOST.md §2.1: fork at a turn boundary, and reload equality of deriveMessages (§2.1 rule 4, §13 item 15),
// including every dsh-written fixture session (two-way compatibility, HOST.md §0).
import { describe, expect, it } from 'vitest';
import { deriveModelMessages, foldSurface } from '../../../../src/protocol/surface-fold.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { RAW_ROOT } from '../../../support/fixtures.js';
import { assistantData, expectThrow, headerFor, newSession, openStep, userData } from './host-builders.js';

/** One completed turn with a user message and an assistant reply. */
function completedTurn(session: Session, turn: number): void {
  session.append('turn/start', { turn });
  session.append('step/start', { turn, step: 1 });
  session.append('user/message', userData(`q${turn}`), { surfaceOp: 'append' });
  session.append('assistant/message', assistantData(turn, 1, `a${turn}`), { surfaceOp: 'append' });
  session.append('step/end', { turn, step: 1 });
  session.append('turn/end', { turn, reason: { kind: 'completed' } });
}

describe('fork (§2.1 rule 3)', () => {
  it('seeds the child with events[0..atSeq), appends session/end-seed and sets parentSession / seedLength', () => {
    const parent = Session.create('p', { header: { ...headerFor('p'), cwd: '/w' } });
    completedTurn(parent, 1);
    completedTurn(parent, 2);
    const child = parent.fork(6, { id: 'child', createdAt: 42 });
    expect(child.header).toEqual({ version: 0, id: 'child', createdAt: 42, cwd: '/w', parentSession: 'p', seedLength: 6 });
    expect(child.events.slice(0, 6)).toEqual(parent.events.slice(0, 6));
    expect(child.events[0]).toBe(parent.events[0]);
    expect(child.events[6]!.type).toBe('session/end-seed');
    expect(child.deriveMessages().map((message) => message.id)).toEqual(['u-q1', 'a-1-1']);
    expect(child.highestTurn()).toBe(1);
    // The child goes on independently; the parent is untouched.
    child.append('turn/start', { turn: 2 });
    expect(parent.events).toHaveLength(12);
  });

  it('refuses a cut inside a turn or a step, or outside the log', () => {
    const parent = newSession('p');
    completedTurn(parent, 1);
    expectThrow(() => parent.fork(1), {
      message: 'fork at seq 1 is not at a turn boundary (open turn 1, open step none)',
      code: 'HOST_FORK',
    });
    expectThrow(() => parent.fork(3), { message: 'fork at seq 3 is not at a turn boundary (open turn 1, open step 1)', code: 'HOST_FORK' });
    expectThrow(() => parent.fork(7), { message: 'fork seq 7 is outside the log (length 6)', code: 'HOST_FORK' });
    expectThrow(() => parent.fork(-1), { message: 'fork seq -1 is outside the log (length 6)', code: 'HOST_FORK' });
  });

  it('forks at 0 into an empty seed', () => {
    const child = newSession('p').fork(0, { id: 'c', createdAt: 1 });
    expect(child.header.seedLength).toBe(0);
    expect(child.events.map((event) => event.type)).toEqual(['session/end-seed']);
  });
});

describe('reload equality (§2.1 rule 4, §13 item 15)', () => {
  it('holds after appends and single- and multi-node replaces', () => {
    const session = newSession();
    completedTurn(session, 1);
    openStep(session, 2, 1);
    const a = session.append('assistant/message', assistantData(2, 1, 'draft'), { surfaceOp: 'append' }).seq;
    session.append('assistant/message', assistantData(2, 1, 'better'), {
      surfaceOp: { op: 'replace', start: a, end: a },
      sourceEventSeqs: [a],
    });
    session.append('user/message', userData('sum'), { surfaceOp: { op: 'replace', start: 2, end: 3 }, sourceEventSeqs: [2, 3] });
    session.append('step/end', { turn: 2, step: 1 });
    session.append('turn/end', { turn: 2, reason: { kind: 'completed' } });
    const reloaded = Session.create('s', { header: session.header, seed: structuredClone(session.events) });
    expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(session.deriveMessages()));
    expect(reloaded.surface.slice(0, 99)).toEqual(session.surface.slice(0, 99));
  });

  it('loads every dsh fixture session and derives the same messages as a cold fold', async () => {
    const store = await JsonlSessionStore.open({ root: RAW_ROOT, compression: 'none' });
    const headers = await store.list();
    expect(headers.length).toBeGreaterThan(0);
    for (const header of headers) {
      const { meta, events } = await store.inspect(asSessionId(header.id));
      const session = Session.create(header.id, { header: meta, seed: structuredClone(events) });
      const cold = deriveModelMessages(events, foldSurface(events));
      expect(JSON.stringify(session.deriveMessages())).toBe(JSON.stringify(cold));
      const reloaded = Session.create(header.id, { header: meta, seed: structuredClone(session.events) });
      expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(cold));
      expect(reloaded.events).toHaveLength(session.events.length);
    }
  });
});

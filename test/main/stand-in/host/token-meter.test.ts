// HOST.md §4.2 token meter: measure() fields, the invariant projectedTokens === surfaceTokens === a cold
// recomputation when every replace was priced exactly (property test), and reload equality (§13 item 15).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { deriveModelMessages, foldSurface } from '../../../../src/protocol/surface-fold.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import { estimateEvent, estimateMessage } from '../../../../src/protocol/token-estimator.js';
import { appendRaw, assistantData, checkpointData, newSession, toolResultData, userData } from './host-builders.js';

/** The surface total and message total of a cold fold over a clone of `events`. */
function coldTotals(events: readonly SessionEvent[]): { surface: number; messages: number } {
  const cloned = structuredClone(events) as SessionEvent[];
  const fold = foldSurface(cloned);
  const surface = fold.surfaceSeqs().reduce((sum, seq) => sum + estimateEvent(cloned[seq]!), 0);
  const messages = deriveModelMessages(cloned, fold).reduce((sum, message) => sum + estimateMessage(message), 0);
  return { surface, messages };
}

/** `⌈len/4⌉ + 4`, HOST.md §4.1's text rule, written out independently of the estimator. */
function textCost(length: number): number {
  return Math.ceil(length / 4) + 4;
}

describe('measure() fields', () => {
  it('starts at zero, without contextWindow or ratio when there is no header', () => {
    const measure = newSession().meter.measure();
    expect(measure).toEqual({ surfaceTokens: 0, messageTokens: 0, systemTokens: 0, toolsTokens: 0, totalTokens: 0, projectedTokens: 0 });
    expect(Object.isFrozen(measure)).toBe(true);
  });

  it('surface, message, system and tools figures; contextWindow and ratio from requestContext()', () => {
    const session = newSession('s', { contextWindowOf: (provider, model) => (provider === 'p' && model === 'm' ? 1000 : undefined) });
    session.append('user/message', userData('abcde'), { surfaceOp: 'append' });
    expect(session.meter.measure()).toEqual({
      surfaceTokens: 10,
      messageTokens: 10,
      systemTokens: 0,
      toolsTokens: 0,
      totalTokens: 10,
      projectedTokens: 10,
    });
    session.append('request/header', {
      header: { config: { provider: 'p', model: 'm' }, system: 'You are x', tools: [{ name: 't', description: 'd', parameters: {} }] },
      reason: 'initial',
    });
    const measure = session.meter.measure();
    expect(Object.keys(measure)).toEqual([
      'surfaceTokens',
      'messageTokens',
      'systemTokens',
      'toolsTokens',
      'totalTokens',
      'projectedTokens',
      'contextWindow',
      'ratio',
    ]);
    // system 'You are x' (9 chars) → 3 + 4; the tool definition serialises to 46 characters → 12 + 4.
    expect(measure).toEqual({
      surfaceTokens: 10,
      messageTokens: 10,
      systemTokens: 7,
      toolsTokens: 16,
      totalTokens: 33,
      projectedTokens: 10,
      contextWindow: 1000,
      ratio: 33 / 1000,
    });
    // A later header replaces both figures; an unknown model drops the window.
    session.append('request/header', { header: { config: { provider: 'p', model: 'other' }, system: '', tools: [] } });
    expect(session.meter.measure()).toEqual({
      surfaceTokens: 10,
      messageTokens: 10,
      systemTokens: 4,
      toolsTokens: 0,
      totalTokens: 14,
      projectedTokens: 10,
    });
  });

  it('messageTokens skips assistant messages with empty content; surfaceTokens counts them (4 each)', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    session.append('step/start', { turn: 1, step: 1 });
    session.append('user/message', userData('abcde'), { surfaceOp: 'append' });
    const empty = session.append('assistant/message', assistantData(1, 1, []), { surfaceOp: 'append' }).seq;
    expect(session.meter.measure()).toMatchObject({ surfaceTokens: 14, messageTokens: 10, totalTokens: 10, projectedTokens: 14 });
    // Replacing the empty message by a visible one: 4 + (⌈2/4⌉ + 4) = 9.
    session.append('assistant/message', assistantData(1, 1, 'ok', 'a-2'), {
      surfaceOp: { op: 'replace', start: empty, end: empty },
      sourceEventSeqs: [empty],
    });
    expect(session.meter.measure()).toMatchObject({ surfaceTokens: 19, messageTokens: 19 });
  });

  it('caches estimates per node: shadowed nodes keep theirs, log-only events have none', () => {
    const session = newSession();
    const a = session.append('user/message', userData('abcde'), { surfaceOp: 'append' }).seq;
    const title = session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } }).seq;
    const b = session.append('user/message', userData('x'), { surfaceOp: { op: 'replace', start: a, end: a }, sourceEventSeqs: [a] }).seq;
    expect(session.meter.estimateOf(a)).toBe(10);
    expect(session.meter.estimateOf(b)).toBe(9);
    expect(session.meter.estimateOf(title)).toBeUndefined();
    expect(session.meter.estimateOf(99)).toBeUndefined();
  });
});

/** One step of a generated session history. */
type Op =
  | { readonly kind: 'user'; readonly length: number }
  | { readonly kind: 'exchange'; readonly calls: number; readonly length: number; readonly empty: boolean }
  | { readonly kind: 'compact'; readonly a: number; readonly b: number; readonly inTurn: boolean; readonly failed: boolean }
  | { readonly kind: 'prune'; readonly a: number; readonly b: number }
  | { readonly kind: 'pruneResult'; readonly a: number }
  | { readonly kind: 'header'; readonly systemLength: number; readonly tools: number }
  | { readonly kind: 'reload' };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), length: fc.nat(40) }),
  fc.record({ kind: fc.constant('exchange' as const), calls: fc.nat(3), length: fc.nat(60), empty: fc.boolean() }),
  fc.record({ kind: fc.constant('compact' as const), a: fc.nat(), b: fc.nat(), inTurn: fc.boolean(), failed: fc.boolean() }),
  fc.record({ kind: fc.constant('prune' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('pruneResult' as const), a: fc.nat() }),
  fc.record({ kind: fc.constant('header' as const), systemLength: fc.nat(200), tools: fc.nat(3) }),
  fc.constant({ kind: 'reload' as const }),
);

/** Σ estimateEvent over `seqs`: the exact claim a writer puts in shadowedTokenCount. */
function exactTokens(session: Session, seqs: readonly number[]): number {
  return seqs.reduce((sum, seq) => sum + estimateEvent(session.events[seq]!), 0);
}

/** A random range `[i, j]` of current positions, or `undefined` on an empty surface. */
function rangeOf(session: Session, a: number, b: number): number[] | undefined {
  const length = session.surface.length;
  if (length === 0) return undefined;
  const i = a % length;
  const j = i + (b % (length - i));
  return session.surface.slice(i, j + 1);
}

/** Applies one generated op to `session` with only legal, exactly priced appends; returns the session to continue with. */
function applyOp(session: Session, op: Op, index: number): Session {
  const turn = (session.highestTurn() ?? 0) + 1;
  switch (op.kind) {
    case 'user':
      session.append('user/message', userData('u'.repeat(op.length), `u-${index}`), { surfaceOp: 'append' });
      return session;
    case 'exchange': {
      session.append('turn/start', { turn });
      session.append('step/start', { turn, step: 1 });
      session.append('user/message', userData(`q${index}`, `q-${index}`), { surfaceOp: 'append' });
      const calls = Array.from({ length: op.calls }, (_, call) => ({
        type: 'tool-call',
        id: `c-${index}-${call}`,
        name: 'read',
        arguments: JSON.stringify({ path: 'p'.repeat(call) }),
      }));
      const blocks = op.empty && calls.length === 0 ? [] : [{ type: 'text', text: 'a'.repeat(op.length) }, ...calls];
      session.append('assistant/message', assistantData(turn, 1, blocks, `a-${index}`), { surfaceOp: 'append' });
      for (const call of calls)
        session.append('tool/result', toolResultData(turn, 1, call.id, 'r'.repeat(op.length)), { surfaceOp: 'append' });
      session.append('step/end', { turn, step: 1 });
      session.append('turn/end', { turn, reason: { kind: 'completed' } });
      return session;
    }
    case 'compact': {
      const seqs = rangeOf(session, op.a, op.b);
      if (seqs === undefined) return session;
      const bracketTurn = op.inTurn ? turn : null;
      if (op.inTurn) session.append('turn/start', { turn });
      const compactionId = `k${index}`;
      const startSeq = session.append('compaction/start', { compactionId, turn: bracketTurn }).seq;
      const range = { start: seqs[0]!, end: seqs.at(-1)! };
      const summarySeq = session.append('compaction/summary', {
        compactionId,
        summary: [{ type: 'text', text: 'sum' }],
        shadowedRange: range,
        shadowedSeqs: seqs,
        shadowedTokenCount: exactTokens(session, seqs),
        provider: 'p',
        model: 'm',
      }).seq;
      if (op.failed) {
        session.append('compaction/end', { compactionId, turn: bracketTurn, error: { message: 'failed' } });
      } else {
        session.append('user/message', checkpointData(`summary ${index}`, `cp-${index}`, compactionId), {
          surfaceOp: { op: 'replace', ...range },
          sourceEventSeqs: [startSeq, summarySeq, ...seqs],
        });
        session.append('compaction/end', { compactionId, turn: bracketTurn });
      }
      if (op.inTurn) session.append('turn/end', { turn, reason: { kind: 'completed' } });
      return session;
    }
    case 'prune': {
      const seqs = rangeOf(session, op.a, op.b);
      if (seqs === undefined) return session;
      const range = { start: seqs[0]!, end: seqs.at(-1)! };
      session.append('compaction/prune', { shadowedRange: range, shadowedSeqs: seqs, shadowedTokenCount: exactTokens(session, seqs) });
      const purge = {
        source: { kind: 'plugin', plugin: 'dsh-dcp' },
        content: [{ type: 'text', text: '[errored tool unit removed]' }],
        role: 'user',
        id: `purge-${index}`,
      };
      appendRaw(session, 'user/message', purge, { surfaceOp: { op: 'replace', ...range }, sourceEventSeqs: seqs });
      return session;
    }
    case 'pruneResult': {
      const results = session.surface.slice(0, session.surface.length).filter((seq) => session.events[seq]!.type === 'tool/result');
      if (results.length === 0) return session;
      const target = session.events[results[op.a % results.length]!]!;
      const data = structuredClone(target.data) as { message: { content: Array<{ content: unknown[] }> } };
      data.message.content[0]!.content = [{ type: 'text', text: '[pruned]' }];
      session.append('turn/start', { turn });
      session.append('compaction/prune', {
        shadowedRange: { start: target.seq, end: target.seq },
        shadowedSeqs: [target.seq],
        shadowedTokenCount: exactTokens(session, [target.seq]),
      });
      appendRaw(session, 'tool/result', data, {
        surfaceOp: { op: 'replace', start: target.seq, end: target.seq },
        sourceEventSeqs: [target.seq],
      });
      session.append('turn/end', { turn, reason: { kind: 'completed' } });
      return session;
    }
    case 'header': {
      const tools = Array.from({ length: op.tools }, (_, tool) => ({ name: `t${tool}`, description: 'd'.repeat(tool), parameters: {} }));
      session.append('request/header', { header: { config: { provider: 'p', model: 'm' }, system: 's'.repeat(op.systemLength), tools } });
      return session;
    }
    case 'reload': {
      const reloaded = Session.create(session.id, { header: session.header, seed: structuredClone(session.events) });
      expect(reloaded.meter.measure()).toEqual(session.meter.measure());
      expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(session.deriveMessages()));
      return reloaded;
    }
    default: {
      const unreachable: never = op;
      return unreachable;
    }
  }
}

describe('meter invariant (§4.2)', () => {
  it('projectedTokens === surfaceTokens === a cold recomputation when every replace is priced exactly (property)', () => {
    fc.assert(
      fc.property(fc.array(opArbitrary, { maxLength: 30 }), (ops) => {
        let session = newSession();
        let system = 0;
        let tools = 0;
        for (const [index, op] of ops.entries()) {
          session = applyOp(session, op, index);
          if (op.kind === 'header') {
            system = textCost(op.systemLength);
            tools = Array.from({ length: op.tools }, (_, tool) =>
              textCost(JSON.stringify({ name: `t${tool}`, description: 'd'.repeat(tool), parameters: {} }).length),
            ).reduce((a, b) => a + b, 0);
          }
          const measure = session.meter.measure();
          const cold = coldTotals(session.events);
          expect(measure.surfaceTokens).toBe(cold.surface);
          expect(measure.projectedTokens).toBe(cold.surface);
          expect(measure.messageTokens).toBe(cold.messages);
          expect(measure.systemTokens).toBe(system);
          expect(measure.toolsTokens).toBe(tools);
          expect(measure.totalTokens).toBe(cold.messages + system + tools);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('an unpriced replace leaves the projection unchanged while the surface total stays exact', () => {
    const session = newSession();
    const a = session.append('user/message', userData('abcdefgh'), { surfaceOp: 'append' }).seq;
    const b = session.append('user/message', userData('abcdefgh'), { surfaceOp: 'append' }).seq;
    session.append('user/message', userData('x'), { surfaceOp: { op: 'replace', start: a, end: b }, sourceEventSeqs: [a, b] });
    // Each 8-character message: 4 + (2 + 4) = 10; the replacement: 4 + (1 + 4) = 9.
    expect(session.meter.measure()).toMatchObject({ surfaceTokens: 9, projectedTokens: 20 });
    expect(coldTotals(session.events).surface).toBe(9);
  });
});

describe('§13 item 15: reload from cloned events', () => {
  it('gives identical deriveMessages() and measure() after a harness run with tools and a context window', async () => {
    const harness = createTestHarness({
      contextWindow: 4096,
      tools: [{ name: 'read', description: 'read a file', parameters: { type: 'object' }, execute: () => 'file body' }],
      script: [{ toolCalls: [{ name: 'read', args: { path: 'a' } }] }, { text: 'done' }],
    });
    harness.prompt('read a');
    await harness.runUntilIdle();
    const measure = harness.session.meter.measure();
    expect(measure.contextWindow).toBe(4096);
    expect(measure.ratio).toBe(measure.totalTokens / 4096);
    expect(measure.systemTokens).toBe(4);
    const reloaded = harness.reload();
    expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(harness.session.deriveMessages()));
    expect(reloaded.meter.measure()).toEqual(measure);
  });
});

// HOST.md §2.4 surface view: members, costs that matter (no shifting on single-node replace), and agreement
// with the canonical fold of SESSION-LOG.md §5.2 over random logs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldSurface } from '../../../../src/protocol/surface-fold.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { SurfaceView } from '../../../../src/protocol/surface-view.js';
import { ToolPairingIndex } from '../../../../src/main/host-kit/tool-pairing-index.js';
import { newSession, userData } from './host-builders.js';

describe('SurfaceView members', () => {
  it('length, at, has, positionOf, slice after appends', () => {
    const view = new SurfaceView();
    view.append(2);
    view.append(5);
    view.append(9);
    expect(view.length).toBe(3);
    expect([view.at(0), view.at(1), view.at(2), view.at(3), view.at(-1)]).toEqual([2, 5, 9, undefined, undefined]);
    expect([view.has(5), view.has(4), view.has(-1), view.has(1e9)]).toEqual([true, false, false, false]);
    expect([view.positionOf(9), view.positionOf(3), view.positionOf(1.5)]).toEqual([2, -1, -1]);
    expect(view.slice(1, 3)).toEqual([5, 9]);
    expect(view.slice(-4, 99)).toEqual([2, 5, 9]);
    expect(view.replaceGeneration).toBe(0);
    expect(view.shadowedBy(5)).toBeUndefined();
    expect(view.shadowedOf(5)).toEqual([]);
  });

  it('a single-node replace shifts no position', () => {
    const view = new SurfaceView();
    for (const seq of [0, 1, 2, 3]) view.append(seq);
    expect(view.replace(1, 1, 10)).toEqual({ kind: 'replace', position: 1, shadowed: [1] });
    expect([0, 10, 2, 3].map((seq) => view.positionOf(seq))).toEqual([0, 1, 2, 3]);
    expect(view.positionOf(1)).toBe(-1);
    expect(view.shadowedBy(1)).toBe(10);
    expect(view.shadowedOf(10)).toEqual([1]);
    expect(view.replaceGeneration).toBe(1);
  });

  it('a multi-node replace renumbers the positions after it', () => {
    const view = new SurfaceView();
    for (const seq of [0, 1, 2, 3, 4]) view.append(seq);
    view.replace(1, 3, 7);
    expect(view.slice(0, 5)).toEqual([0, 7, 4]);
    expect([0, 7, 4].map((seq) => view.positionOf(seq))).toEqual([0, 1, 2]);
    expect(view.shadowedOf(7)).toEqual([1, 2, 3]);
    expect([1, 2, 3].map((seq) => view.shadowedBy(seq))).toEqual([7, 7, 7]);
  });

  it('grows past its initial by-seq capacity', () => {
    const view = new SurfaceView();
    view.append(5_000);
    expect(view.positionOf(5_000)).toBe(0);
    expect(view.shadowedBy(4_999)).toBeUndefined();
  });
});

/** One step of a generated surface history. */
type ViewOp =
  | { readonly kind: 'append'; readonly contribution: number }
  | {
      readonly kind: 'replace';
      readonly where: 'front' | 'back' | 'any';
      readonly a: number;
      readonly span: number;
      readonly balanced: boolean;
    };

const viewOp: fc.Arbitrary<ViewOp> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('append' as const), contribution: fc.integer({ min: -1, max: 2 }) }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      where: fc.constantFrom('front' as const, 'back' as const, 'any' as const),
      a: fc.nat(),
      span: fc.nat({ max: 9 }),
      balanced: fc.boolean(),
    }),
    weight: 2,
  },
);

/** A surface event whose tool-pairing contribution is `contribution` (−1 a result, n ≥ 0 an assistant with n calls). */
function pairingEvent(seq: number, contribution: number): SessionEvent {
  if (contribution < 0)
    return { type: 'tool/result', seq, time: seq, data: { message: { content: [] } }, surfaceOp: 'append' } as unknown as SessionEvent;
  const content = Array.from({ length: contribution }, (_, call) => ({ type: 'tool-call', id: `c${seq}-${call}` }));
  return { type: 'assistant/message', seq, time: seq, data: { message: { content } }, surfaceOp: 'append' } as unknown as SessionEvent;
}

describe('SurfaceView and the pairing counts against plain array models', () => {
  it.each([2, 3, 8, 16, 512])(
    'chunks of %i: order, positions, membership and pairing counts match after random appends and k-node replaces (property)',
    (chunkNodes) => {
      fc.assert(
        fc.property(fc.array(viewOp, { maxLength: 150 }), fc.array(fc.nat(), { maxLength: 20 }), (ops, queries) => {
          const view = new SurfaceView(chunkNodes);
          const pairing = new ToolPairingIndex(view);
          const model: number[] = [];
          const contributions: number[] = [];
          let seq = 0;
          for (const [step, op] of ops.entries()) {
            if (op.kind === 'append' || model.length === 0) {
              const contribution = op.kind === 'append' ? op.contribution : 0;
              contributions[seq] = contribution;
              pairing.apply(pairingEvent(seq, contribution), view.append(seq));
              model.push(seq);
            } else {
              const span = Math.min(op.span, model.length - 1);
              const start = op.where === 'front' ? 0 : op.where === 'back' ? model.length - 1 - span : op.a % (model.length - span);
              const removed = model.slice(start, start + span + 1).reduce((sum, node) => sum + (contributions[node] as number), 0);
              // A balanced replace carries what it removes (a checkpoint over closed units); otherwise a plain message.
              const contribution = op.balanced ? Math.max(-1, removed) : 0;
              contributions[seq] = contribution;
              pairing.apply(pairingEvent(seq, contribution), view.replace(start, start + span, seq));
              model.splice(start, span + 1, seq);
            }
            seq += 1;
            // Interleaved queries make counts valid at various depths before the next change.
            const query = queries[step % Math.max(1, queries.length)];
            if (query !== undefined && model.length > 0) pairing.countThrough(query % model.length);
          }
          expect(view.length).toBe(model.length);
          expect(view.slice(0, view.length)).toEqual(model);
          for (let candidate = 0; candidate < seq; candidate++) expect(view.positionOf(candidate)).toBe(model.indexOf(candidate));
          model.forEach((node, position) => expect(view.at(position)).toBe(node));
          let count = 0;
          model.forEach((node, position) => {
            count += contributions[node] as number;
            expect(pairing.countThrough(position)).toBe(count);
          });
        }),
        { numRuns: 200 },
      );
    },
  );

  it('refuses a chunk bound below 2', () => {
    expect(() => new SurfaceView(1)).toThrow(new RangeError('surface view: chunkNodes must be a safe integer >= 2, got 1'));
  });
});

describe('the session surface agrees with a cold fold', () => {
  it('for random append / replace sequences (property)', () => {
    const op = fc.oneof(
      fc.constant({ kind: 'append' as const }),
      fc.record({ kind: fc.constant('replace' as const), a: fc.nat(), b: fc.nat() }),
      fc.constant({ kind: 'log' as const }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const session = newSession();
        for (const [index, step] of ops.entries()) {
          const { surface } = session;
          if (step.kind === 'log') {
            session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } });
          } else if (step.kind === 'append' || surface.length === 0) {
            session.append('user/message', userData(`m${index}`), { surfaceOp: 'append' });
          } else {
            const i = step.a % surface.length;
            const j = i + (step.b % (surface.length - i));
            const shadowed = surface.slice(i, j + 1);
            session.append('user/message', userData(`c${index}`), {
              surfaceOp: { op: 'replace', start: surface.at(i), end: surface.at(j) },
              sourceEventSeqs: shadowed,
            });
          }
        }
        const cold = foldSurface(structuredClone(session.events));
        const seqs = cold.surfaceSeqs();
        expect(session.surface.slice(0, session.surface.length)).toEqual(seqs);
        seqs.forEach((seq, position) => expect(session.surface.positionOf(seq)).toBe(position));
        for (let seq = 0; seq < session.events.length; seq++) {
          expect(session.surface.has(seq)).toBe(cold.isCurrent(seq));
          expect(session.surface.shadowedBy(seq) !== undefined).toBe(cold.isShadowed(seq));
        }
        expect(JSON.stringify(session.deriveMessages())).toBe(JSON.stringify(seqs.map((seq) => session.events[seq]!.data)));
      }),
      { numRuns: 200 },
    );
  });
});

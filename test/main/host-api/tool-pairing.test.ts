// HOST.md §5 tool-pairing balance functions (§13 item 10), HOST_NOT_ON_SURFACE, and the lazy prefix counts
// against a naive recount over random surfaces (property).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/main/stand-in/host/session.js';
import { NotOnSurfaceError, toolPairingBalancedAfter, toolPairingBalancedBefore } from '../../../src/main/host-api/tool-pairing.js';
import {
  appendRaw,
  assistantData,
  expectThrow,
  newSession,
  toolCallBlock,
  toolResultData,
  userData,
} from '../stand-in/host/host-builders.js';

/** The running count after each position, recounted from the events by HOST.md §5's definition. */
function naiveCounts(session: Session): number[] {
  const counts: number[] = [];
  let count = 0;
  for (const seq of session.surface.slice(0, session.surface.length)) {
    const event = session.events[seq]!;
    if (event.type === 'tool/result') count -= 1;
    if (event.type === 'assistant/message') {
      const content = (event.data as { message: { content: Array<{ type: string }> } }).message.content;
      count += content.filter((block) => block.type === 'tool-call').length;
    }
    counts.push(count);
  }
  return counts;
}

describe('§13 item 10', () => {
  it('surface [assistant(call c1), tool/result(c1), user]: balanced before the assistant, not before the result, balanced before the user message', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    session.append('step/start', { turn: 1, step: 1 });
    const assistant = session.append('assistant/message', assistantData(1, 1, [toolCallBlock('c1')]), { surfaceOp: 'append' }).seq;
    const result = session.append('tool/result', toolResultData(1, 1, 'c1', 'out'), { surfaceOp: 'append' }).seq;
    const user = session.append('user/message', userData('next'), { surfaceOp: 'append' }).seq;
    expect(toolPairingBalancedBefore(session, assistant)).toBe(true);
    expect(toolPairingBalancedBefore(session, result)).toBe(false);
    expect(toolPairingBalancedBefore(session, user)).toBe(true);
    expect(toolPairingBalancedAfter(session, assistant)).toBe(false);
    expect(toolPairingBalancedAfter(session, result)).toBe(true);
    expect(toolPairingBalancedAfter(session, user)).toBe(true);
  });
});

describe('HOST_NOT_ON_SURFACE', () => {
  it('both functions throw for a shadowed seq, a log-only seq and an unknown seq', () => {
    const session = newSession();
    const a = session.append('user/message', userData('a'), { surfaceOp: 'append' }).seq;
    const title = session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } }).seq;
    session.append('user/message', userData('b'), { surfaceOp: { op: 'replace', start: a, end: a }, sourceEventSeqs: [a] });
    for (const seq of [a, title, 42]) {
      const error = expectThrow(() => toolPairingBalancedBefore(session, seq), {
        message: `seq ${seq} is not on the current surface`,
        code: 'HOST_NOT_ON_SURFACE',
        name: 'NotOnSurfaceError',
      });
      expect(error).toBeInstanceOf(NotOnSurfaceError);
      expectThrow(() => toolPairingBalancedAfter(session, seq), {
        message: `seq ${seq} is not on the current surface`,
        code: 'HOST_NOT_ON_SURFACE',
      });
    }
  });
});

describe('counts across replaces', () => {
  it('a checkpoint over a closed unit keeps later answers; a replace that cuts a pair changes them', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    session.append('step/start', { turn: 1, step: 1 });
    const a1 = session.append('assistant/message', assistantData(1, 1, [toolCallBlock('c1')], 'a1'), { surfaceOp: 'append' }).seq;
    const r1 = session.append('tool/result', toolResultData(1, 1, 'c1', 'out'), { surfaceOp: 'append' }).seq;
    const a2 = session.append('assistant/message', assistantData(1, 1, [toolCallBlock('c2')], 'a2'), { surfaceOp: 'append' }).seq;
    const r2 = session.append('tool/result', toolResultData(1, 1, 'c2', 'out'), { surfaceOp: 'append' }).seq;
    expect(toolPairingBalancedBefore(session, r2)).toBe(false);
    const summary = session.append('user/message', userData('unit 1'), {
      surfaceOp: { op: 'replace', start: a1, end: r1 },
      sourceEventSeqs: [a1, r1],
    }).seq;
    expect(toolPairingBalancedAfter(session, summary)).toBe(true);
    expect(toolPairingBalancedBefore(session, a2)).toBe(true);
    expect(toolPairingBalancedBefore(session, r2)).toBe(false);
    expect(toolPairingBalancedAfter(session, r2)).toBe(true);
    // Replacing only the call leaves its result unpaired: every later count drops by one.
    const cut = session.append('user/message', userData('call only'), {
      surfaceOp: { op: 'replace', start: a2, end: a2 },
      sourceEventSeqs: [a2],
    }).seq;
    expect(toolPairingBalancedAfter(session, cut)).toBe(true);
    expect(toolPairingBalancedAfter(session, r2)).toBe(false);
  });
});

type PairingOp =
  | { readonly kind: 'user' }
  | { readonly kind: 'assistant'; readonly calls: number }
  | { readonly kind: 'result' }
  | { readonly kind: 'replaceRange'; readonly a: number; readonly b: number }
  | { readonly kind: 'rewriteResult'; readonly a: number }
  | { readonly kind: 'rewriteAssistant'; readonly a: number; readonly calls: number }
  | { readonly kind: 'query'; readonly a: number };

const pairingOp: fc.Arbitrary<PairingOp> = fc.oneof(
  fc.constant({ kind: 'user' as const }),
  fc.record({ kind: fc.constant('assistant' as const), calls: fc.nat(3) }),
  fc.constant({ kind: 'result' as const }),
  fc.record({ kind: fc.constant('replaceRange' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('rewriteResult' as const), a: fc.nat() }),
  fc.record({ kind: fc.constant('rewriteAssistant' as const), a: fc.nat(), calls: fc.nat(3) }),
  fc.record({ kind: fc.constant('query' as const), a: fc.nat() }),
);

describe('lazy prefix counts (property)', () => {
  it('every answer equals a naive recount, whatever mix of balanced and unbalanced replaces came before', () => {
    fc.assert(
      fc.property(fc.array(pairingOp, { maxLength: 60 }), (ops) => {
        const session = newSession();
        session.append('turn/start', { turn: 1 });
        session.append('step/start', { turn: 1, step: 1 });
        const pending: string[] = [];
        const current = (type: string) =>
          session.surface.slice(0, session.surface.length).filter((seq) => session.events[seq]!.type === type);
        for (const [index, op] of ops.entries()) {
          switch (op.kind) {
            case 'user':
              session.append('user/message', userData(`u${index}`), { surfaceOp: 'append' });
              break;
            case 'assistant': {
              const calls = Array.from({ length: op.calls }, (_, call) => `c${index}-${call}`);
              pending.push(...calls);
              session.append(
                'assistant/message',
                assistantData(
                  1,
                  1,
                  calls.map((id) => toolCallBlock(id)),
                  `a${index}`,
                ),
                { surfaceOp: 'append' },
              );
              break;
            }
            case 'result':
              session.append('tool/result', toolResultData(1, 1, pending.shift() ?? `orphan${index}`, 'r'), { surfaceOp: 'append' });
              break;
            case 'replaceRange': {
              const length = session.surface.length;
              if (length === 0) break;
              const i = op.a % length;
              const j = i + (op.b % (length - i));
              const seqs = session.surface.slice(i, j + 1);
              session.append('user/message', userData(`s${index}`), {
                surfaceOp: { op: 'replace', start: seqs[0], end: seqs.at(-1) },
                sourceEventSeqs: seqs,
              });
              break;
            }
            case 'rewriteResult': {
              const results = current('tool/result');
              if (results.length === 0) break;
              const target = session.events[results[op.a % results.length]!]!;
              const data = structuredClone(target.data) as { message: { content: Array<{ content: unknown[] }> } };
              data.message.content[0]!.content = [{ type: 'text', text: 'short' }];
              appendRaw(session, 'tool/result', data, {
                surfaceOp: { op: 'replace', start: target.seq, end: target.seq },
                sourceEventSeqs: [target.seq],
              });
              break;
            }
            case 'rewriteAssistant': {
              const assistants = current('assistant/message');
              if (assistants.length === 0) break;
              const target = assistants[op.a % assistants.length]!;
              const calls = Array.from({ length: op.calls }, (_, call) => toolCallBlock(`w${index}-${call}`));
              session.append('assistant/message', assistantData(1, 1, calls, `w${index}`), {
                surfaceOp: { op: 'replace', start: target, end: target },
                sourceEventSeqs: [target],
              });
              break;
            }
            case 'query': {
              const length = session.surface.length;
              if (length === 0) break;
              const position = op.a % length;
              const counts = naiveCounts(session);
              expect(toolPairingBalancedAfter(session, session.surface.at(position)!)).toBe(counts[position] === 0);
              break;
            }
            default: {
              const unreachable: never = op;
              throw new Error(`unexpected op ${JSON.stringify(unreachable)}`);
            }
          }
        }
        const counts = naiveCounts(session);
        session.surface.slice(0, session.surface.length).forEach((seq, position) => {
          expect(toolPairingBalancedBefore(session, seq)).toBe((position === 0 ? 0 : counts[position - 1]) === 0);
          expect(toolPairingBalancedAfter(session, seq)).toBe(counts[position] === 0);
          expect(session.toolPairing.countThrough(position)).toBe(counts[position]);
        });
      }),
      { numRuns: 300 },
    );
  });
});

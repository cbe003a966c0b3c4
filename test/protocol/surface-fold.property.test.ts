/**
 * Property tests of the surface fold: random valid logs fold the same incrementally and whole, agree with an
 * independent reference model of SESSION-LOG.md §5, and a random invalidating mutation is rejected without
 * changing the fold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLogError } from '../../src/protocol/errors.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import type { EventClassification } from '../../src/protocol/surface-fold.js';
import { SurfaceFold, classifyEvents, foldSurface } from '../../src/protocol/surface-fold.js';
import { assistantMessage, logOnly, replace, toolResult, userMessage } from './event-builders.js';

/** One step of a generated log. Indices are reduced modulo the current surface when interpreted. */
type Command =
  | { readonly kind: 'log' }
  | { readonly kind: 'append'; readonly type: 'user' | 'assistant' | 'tool'; readonly cite: boolean }
  | {
      readonly kind: 'replace';
      readonly from: number;
      readonly span: number;
      readonly type: 'user' | 'assistant';
      readonly extraCite: boolean;
    }
  | { readonly kind: 'rewrite'; readonly pick: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'log' } as const), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      type: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const),
      cite: fc.boolean(),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      from: fc.nat(),
      span: fc.nat(),
      type: fc.constantFrom('user' as const, 'assistant' as const),
      extraCite: fc.boolean(),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('rewrite' as const), pick: fc.nat() }), weight: 2 },
);

/** A valid log plus the surface and classification an independent model expects for it. */
interface GeneratedLog {
  readonly events: SessionEvent[];
  readonly surface: number[];
  readonly classes: EventClassification[];
}

/** Interprets commands into a valid log, tracking the expected surface with plain array operations. */
function buildLog(commands: readonly Command[]): GeneratedLog {
  const events: SessionEvent[] = [];
  const surface: number[] = [];
  const classes: EventClassification[] = [];
  for (const cmd of commands) {
    const seq = events.length;
    const currentTools = surface.filter((node) => events[node]!.type === 'tool/result');
    if (cmd.kind === 'rewrite' && currentTools.length > 0) {
      const target = currentTools[cmd.pick % currentTools.length]!;
      const data = structuredClone(events[target]!.data) as { message: { content: Array<{ content: unknown }> } };
      data.message.content[0]!.content = [{ type: 'text', text: `[rewritten at ${seq}]` }];
      events.push({ type: 'tool/result', seq, time: 1000 + seq, data, sourceEventSeqs: [target], surfaceOp: replace(target, target) });
      surface[surface.indexOf(target)] = seq;
      classes[target] = 'shadowed';
      classes.push('current');
      continue;
    }
    if (cmd.kind === 'replace' && surface.length > 0) {
      const startIndex = cmd.from % surface.length;
      const endIndex = startIndex + (cmd.span % (surface.length - startIndex));
      const shadowed = surface.slice(startIndex, endIndex + 1);
      // Provenance may cite more than the shadow set: any earlier event not already cited.
      const cited = cmd.extraCite && seq > 0 && !shadowed.includes(seq - 1) ? [...shadowed, seq - 1] : shadowed;
      const meta = { sourceEventSeqs: cited, surfaceOp: replace(surface[startIndex]!, surface[endIndex]!) };
      events.push(cmd.type === 'user' ? userMessage(seq, `summary ${seq}`, meta) : assistantMessage(seq, `summary ${seq}`, meta));
      surface.splice(startIndex, shadowed.length, seq);
      for (const node of shadowed) classes[node] = 'shadowed';
      classes.push('current');
      continue;
    }
    if (cmd.kind === 'append') {
      const meta = cmd.cite && seq > 0 ? { sourceEventSeqs: [seq - 1], surfaceOp: 'append' as const } : { surfaceOp: 'append' as const };
      events.push(
        cmd.type === 'user'
          ? userMessage(seq, `u${seq}`, meta)
          : cmd.type === 'assistant'
            ? assistantMessage(seq, `a${seq}`, meta)
            : toolResult(seq, `call-${seq}`, `out ${seq}`, meta),
      );
      surface.push(seq);
      classes.push('current');
      continue;
    }
    // 'log', and replace/rewrite commands that found nothing to act on.
    events.push(logOnly(seq));
    classes.push('log-only');
  }
  return { events, surface, classes };
}

const validLog = fc.array(command, { maxLength: 80, size: 'medium' }).map(buildLog);

/** Invalidating edits of the event at `seq`, each guaranteed to break a §5.2 rule whatever the log. */
function mutations(event: SessionEvent, prefix: readonly SessionEvent[], surfaceBefore: readonly number[]): SessionEvent[] {
  const out: SessionEvent[] = [{ ...event, seq: event.seq + 1 }];
  const op = event.surfaceOp;
  if (op === undefined) {
    out.push({ ...event, surfaceOp: 'append' });
    if (event.seq > 0) out.push({ ...event, sourceEventSeqs: [0] });
    return out;
  }
  const { surfaceOp: _dropped, ...withoutOp } = event;
  out.push(withoutOp as SessionEvent, { ...event, surfaceOp: 'prepend' } as unknown as SessionEvent);
  out.push({ ...event, sourceEventSeqs: [event.seq] });
  if (op === 'append') {
    out.push({ ...event, surfaceOp: { op: 'replace', start: 0, end: 0, extra: true } } as unknown as SessionEvent);
    return out;
  }
  const { sourceEventSeqs: _cited, ...uncited } = event;
  out.push(uncited as SessionEvent);
  const offSurface = prefix.findIndex((candidate) => !surfaceBefore.includes(candidate.seq));
  if (offSurface !== -1) out.push({ ...event, surfaceOp: replace(offSurface, op.end) });
  if (event.type === 'tool/result') {
    const data = structuredClone(event.data) as { turn: number };
    data.turn += 1;
    out.push({ ...event, data });
  }
  return out;
}

describe('surface fold properties', () => {
  it('incremental application equals the whole-log fold and the reference model', () => {
    const seen = { replaces: 0, rewrites: 0 };
    fc.assert(
      fc.property(validLog, ({ events, surface, classes }) => {
        for (const event of events) {
          if (event.surfaceOp === undefined || event.surfaceOp === 'append') continue;
          if (event.type === 'tool/result') seen.rewrites++;
          else seen.replaces++;
        }
        const incremental = new SurfaceFold();
        for (const event of events) {
          incremental.check(event);
          incremental.apply(event);
          expect(incremental.nextSeq).toBe(event.seq + 1);
        }
        const whole = foldSurface(events);
        expect(incremental.surfaceSeqs()).toEqual(whole.surfaceSeqs());
        expect(classifyEvents(events, incremental)).toEqual(classifyEvents(events, whole));
        expect(whole.surfaceSeqs()).toEqual(surface);
        expect(classifyEvents(events, whole)).toEqual(classes);
      }),
      { numRuns: 300 },
    );
    // The generator really exercises both replacement paths.
    expect(seen.replaces).toBeGreaterThan(300);
    expect(seen.rewrites).toBeGreaterThan(300);
  });

  it('a random invalidating mutation is rejected and leaves the fold unchanged', () => {
    const logWithTarget = validLog
      .filter(({ events }) => events.length > 0)
      .chain((log) => fc.record({ log: fc.constant(log), at: fc.nat({ max: log.events.length - 1 }), pick: fc.nat() }));
    fc.assert(
      fc.property(logWithTarget, ({ log, at, pick }) => {
        const prefix = log.events.slice(0, at);
        const fold = foldSurface(prefix);
        const surfaceBefore = fold.surfaceSeqs();
        const classesBefore = classifyEvents(prefix, fold);
        const candidates = mutations(log.events[at]!, prefix, surfaceBefore);
        const mutated = candidates[pick % candidates.length]!;
        let thrown: unknown;
        try {
          fold.apply(mutated);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(SessionLogError);
        expect((thrown as SessionLogError).code).toBe('SESSION_LOG_INVALID_SURFACE');
        expect(fold.nextSeq).toBe(at);
        expect(fold.surfaceSeqs()).toEqual(surfaceBefore);
        expect(classifyEvents(prefix, fold)).toEqual(classesBefore);
        // The untouched fold still accepts the rest of the original log.
        for (const event of log.events.slice(at)) fold.apply(event);
        expect(fold.surfaceSeqs()).toEqual(log.surface);
      }),
      { numRuns: 500 },
    );
  });
});

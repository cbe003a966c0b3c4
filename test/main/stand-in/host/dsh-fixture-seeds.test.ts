// Two-way compatibility (HOST.md §0) of the bracket and claim layers: every dsh-written fixture session, with
// its real native compactions (automatic, manual /compact, overflow recovery), loads as a Session seed; every
// dsh checkpoint replace is priced by its summary's claim, whose shadowedTokenCount equals the HOST.md §4.1
// estimate; measure() survives a reload (§13 item 15); and a real log cut inside a bracket loads with that
// bracket stale.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent, SessionHeader } from '../../../../src/protocol/events.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { foldSurface } from '../../../../src/protocol/surface-fold.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { estimateEvent } from '../../../../src/protocol/token-estimator.js';
import { DSH_SMALL, RAW_ROOT } from '../../../support/fixtures.js';
import { expectThrow } from './host-builders.js';

interface Inspected {
  readonly meta: SessionHeader;
  readonly events: readonly SessionEvent[];
}

/** Compaction counts by session id from `sessions.tsv` (`yes(<n>, <n> checkpoints)` or `no`). */
function compactionCounts(): Map<string, number> {
  const lines = readFileSync(join(DSH_SMALL, 'sessions.tsv'), 'utf8').trim().split('\n').slice(1);
  const counts = new Map<string, number>();
  for (const line of lines) {
    const [id, , , , , compaction] = line.split('\t');
    const match = /^yes\((\d+), (\d+) checkpoints\)$/.exec(compaction!);
    counts.set(id!, match === null ? 0 : Number(match[1]));
  }
  return counts;
}

type Data = Readonly<Record<string, unknown>>;

const sessions = new Map<string, Inspected>();

beforeAll(async () => {
  const store = await JsonlSessionStore.open({ root: RAW_ROOT, compression: 'none' });
  for (const header of await store.list()) {
    const { meta, events } = await store.inspect(asSessionId(header.id));
    sessions.set(header.id, { meta, events });
  }
});

/** A session seeded with a clone of `events`. */
function seeded(id: string, inspected: Inspected, events: readonly SessionEvent[] = inspected.events): Session {
  return Session.create(id, { header: inspected.meta, seed: structuredClone(events) });
}

describe('every dsh fixture session loads with the bracket and claim layers', () => {
  it('covers the whole corpus, with the compactions sessions.tsv lists', () => {
    const counts = compactionCounts();
    expect(sessions.size).toBe(counts.size);
    let brackets = 0;
    for (const [id, inspected] of sessions) {
      const session = seeded(id, inspected);
      const starts = session.events.filter((event) => event.type === 'compaction/start').length;
      expect(starts, id).toBe(counts.get(id));
      brackets += starts;
      expect(session.openBrackets(), id).toEqual([]);
    }
    // Automatic, manual (/compact with turn null) and overflow-recovery brackets are all in there.
    expect(brackets).toBeGreaterThanOrEqual(10);
  });

  it('prices every dsh checkpoint by its summary claim, keeps surfaceTokens exact, and survives a reload', () => {
    for (const [id, inspected] of sessions) {
      const session = seeded(id, inspected);
      const events = session.events;
      // Each priced replace moves the projection by estimate(new) − claim and the surface by estimate(new) −
      // Σ estimate(shadowed), so the two differ by Σ (Σ estimate(shadowedSeqs) − shadowedTokenCount).
      let drift = 0;
      for (const [index, event] of events.entries()) {
        if (event.type !== 'compaction/summary') continue;
        const data = event.data as Data;
        const next = events[index + 1]!;
        expect(next.surfaceOp, `${id} seq ${event.seq}`).toEqual({ op: 'replace', ...(data['shadowedRange'] as object) });
        expect(session.surface.shadowedOf(next.seq)).toEqual(data['shadowedSeqs']);
        const shadowed = (data['shadowedSeqs'] as number[]).reduce((sum, seq) => sum + estimateEvent(events[seq]!), 0);
        drift += shadowed - (data['shadowedTokenCount'] as number);
        // dsh's compaction engine counted these tokens with its own estimator; HOST.md §4.1 must agree exactly.
        expect(shadowed, `${id} seq ${event.seq}`).toBe(data['shadowedTokenCount']);
      }
      const measure = session.meter.measure();
      const cold = structuredClone(events) as SessionEvent[];
      const surfaceTokens = foldSurface(cold)
        .surfaceSeqs()
        .reduce((sum, seq) => sum + estimateEvent(cold[seq]!), 0);
      expect(measure.surfaceTokens, id).toBe(surfaceTokens);
      expect(measure.projectedTokens - measure.surfaceTokens, id).toBe(drift);
      expect(measure.projectedTokens, id).toBe(measure.surfaceTokens);
      const reloaded = seeded(id, inspected, events);
      expect(reloaded.meter.measure(), id).toEqual(measure);
      expect(JSON.stringify(reloaded.deriveMessages()), id).toBe(JSON.stringify(session.deriveMessages()));
    }
  });
});

/** The first session with a bracket whose `compaction/start` has `turn` matching `predicate`, and that start. */
function sessionWithBracket(predicate: (turn: unknown) => boolean): { id: string; inspected: Inspected; start: SessionEvent } {
  for (const [id, inspected] of sessions) {
    const start = inspected.events.find((event) => event.type === 'compaction/start' && predicate((event.data as Data)['turn']));
    if (start !== undefined) return { id, inspected, start };
  }
  throw new Error('no fixture session has such a bracket');
}

describe('a real log cut inside a bracket', () => {
  it('an automatic bracket cut after its summary: stale after session/end-seed, cannot be continued, no longer blocks the turn', () => {
    const { id, inspected, start } = sessionWithBracket((turn) => typeof turn === 'number');
    const compactionId = (start.data as Data)['compactionId'] as string;
    const turn = (start.data as Data)['turn'] as number;
    const session = seeded(id, inspected, inspected.events.slice(0, start.seq + 2));
    expect(session.events[start.seq + 1]!.type).toBe('compaction/summary');
    expect(session.openBrackets()).toEqual([]);
    expect(session.openTurn()).toEqual({ turn });
    const stale = `compaction bracket ${compactionId} is stale`;
    expectThrow(() => session.append('compaction/end', { compactionId, turn }), { message: stale, code: 'HOST_STALE_BRACKET' });
    session.append('compaction/start', { compactionId: 'fresh', turn });
    session.append('compaction/end', { compactionId: 'fresh', turn, error: { message: 'gave up' } });
    if (session.openStep() !== null) session.append('step/end', { turn, step: session.openStep()!.step });
    session.append('turn/end', { turn, reason: { kind: 'completed' } });
  });

  it('a manual /compact bracket (turn null): forks inside it are refused; a seed cut inside it loads stale', () => {
    const { id, inspected, start } = sessionWithBracket((turn) => turn === null);
    const compactionId = (start.data as Data)['compactionId'] as string;
    const full = seeded(id, inspected);
    expectThrow(() => full.fork(start.seq + 1), {
      message: `fork at seq ${start.seq + 1} is not at a turn boundary (open compaction bracket ${compactionId})`,
      code: 'HOST_FORK',
    });
    const child = full.fork(start.seq, { id: 'child', createdAt: 1 });
    expect(child.openBrackets()).toEqual([]);
    const cut = seeded(id, inspected, inspected.events.slice(0, start.seq + 1));
    expect(cut.openBrackets()).toEqual([]);
    expectThrow(
      () =>
        cut.append('compaction/summary', {
          compactionId,
          summary: [],
          shadowedRange: { start: 4, end: 4 },
          shadowedSeqs: [4],
          shadowedTokenCount: 1,
          provider: 'p',
          model: 'm',
        }),
      {
        message: `compaction bracket ${compactionId} is stale`,
        code: 'HOST_STALE_BRACKET',
      },
    );
    cut.append('turn/start', { turn: (cut.highestTurn() ?? 0) + 1 });
  });
});

/**
 * Verification 51 (D2): the cost model of §10.6 pinned by operation counts, not timing. Retaining
 * 4,000 × 1 KiB items serialises the whole data object at most once, measures each text at most
 * once plus once per shortening, and probes O(log max) candidates per round.
 */
import { describe, expect, it } from 'vitest';
import type { ProjectedItem } from '../../../src/workers/reference/project-surface.js';
import type { RetentionCounters, RetentionInput } from '../../../src/workers/reference/retain-source.js';
import { retainSource } from '../../../src/workers/reference/retain-source.js';
import { retainByDefinition } from '../../support/reference-definition.js';

const KIB = 1024;
const COUNT = 4000;

/** Exactly 1 KiB of mixed text: ASCII with escapes and `<`, then CJK, then ASCII padding. */
function kibText(index: number): string {
  const head = `message ${index} <tag> "quoted"\n`;
  return head + '界'.repeat(100) + 'x'.repeat(KIB - head.length - 300);
}

function corpus(checkpointEvery: number): RetentionInput {
  const items: ProjectedItem[] = [];
  for (let index = 0; index < COUNT; index += 1) {
    const checkpoint = checkpointEvery > 0 && index % checkpointEvery === 0;
    items.push({ role: checkpoint || index % 2 === 0 ? 'user' : 'assistant', originalText: kibText(index), checkpoint });
  }
  return { sessionId: 'big', label: 'big', cwd: '/w', capturedThroughSeq: 123456, items };
}

/** The per-round probe bound: one binary search over at most `max` values plus the notice-only check. */
const probesPerRound = (max: number): number => Math.ceil(Math.log2(max + 1)) + 2;

function counted(input: RetentionInput, max: number) {
  const counters: RetentionCounters = { serializeCalls: 0, measureCalls: 0, probes: 0 };
  const result = retainSource(input, max, counters);
  return { result, counters };
}

describe('operation counts (Verification 51)', () => {
  it('the texts are 1 KiB each', () => {
    for (const entry of corpus(0).items) expect(Buffer.byteLength(entry.originalText, 'utf8')).toBe(KIB);
  });

  it('mostly drops (default budget): one serialisation, one measure per item, bounded probes', () => {
    const { result, counters } = counted(corpus(0), 65536);
    expect(result.fits).toBe(true);
    const rounds = result.fits ? result.rounds : 0;
    expect(counters.serializeCalls).toBe(1);
    expect(counters.measureCalls).toBeLessThanOrEqual(COUNT + rounds);
    expect(counters.probes).toBeLessThanOrEqual(rounds * probesPerRound(65536));
  });

  it('mostly shortens (every item a checkpoint): thousands of rounds, still one serialisation', () => {
    const max = COUNT * 300;
    const { result, counters } = counted(corpus(1), max);
    if (!result.fits) throw new Error('4,000 notices fit in 1.2 MB');
    expect(result.rounds).toBeGreaterThanOrEqual(COUNT);
    expect(Buffer.byteLength(result.json, 'utf8')).toBeLessThanOrEqual(max);
    expect(counters.serializeCalls).toBe(1);
    expect(counters.measureCalls).toBeLessThanOrEqual(COUNT + result.rounds);
    expect(counters.probes).toBeLessThanOrEqual(result.rounds * probesPerRound(max));
  });

  it('a budget that cannot hold 4,000 notices fails without any serialisation', () => {
    const { result, counters } = counted(corpus(1), 65536);
    expect(result).toEqual({ fits: false });
    expect(counters.serializeCalls).toBe(0);
  });

  it('on a 150-item slice of the same corpus the counted runs equal the definition', () => {
    for (const [every, max] of [
      [0, 8000],
      [1, 150 * 300],
      [3, 20000],
    ] as const) {
      const input = { ...corpus(every), items: corpus(every).items.slice(0, 150) };
      const fast = retainSource(input, max);
      const definition = retainByDefinition(input, max);
      expect(fast.fits).toBe(definition.fits);
      if (fast.fits && definition.fits) {
        expect(fast.json).toBe(definition.json);
        expect(fast.stats).toEqual(definition.stats);
      }
    }
  });
});

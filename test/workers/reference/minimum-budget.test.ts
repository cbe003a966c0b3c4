/**
 * `minimumFittingBudget`: the least `maxReferenceBytes` a source fits, the figure `SESSION_REFERENCE_BUDGET_EXCEEDED`
 * reports. On random small sources it equals the least budget found by scanning every budget from 1 up, fitting is
 * monotone (every budget from it up fits, so a binary search is exact), and the literal §10.3 definition agrees that
 * the answer fits and one byte less does not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyTagSafeJson } from '../../../src/protocol/tag-safe-json.js';
import type { ProjectedItem } from '../../../src/workers/reference/project-surface.js';
import type { RetentionInput } from '../../../src/workers/reference/retain-source.js';
import { retainSource } from '../../../src/workers/reference/retain-source.js';
import { minimumFittingBudget, unretainedSize } from '../../../src/workers/reference/minimum-budget.js';
import { retainByDefinition } from '../../support/reference-definition.js';

/** The alphabet of the retention property tests: escapes, `<`, multi-byte and astral code points, a lone surrogate. */
const unit = fc.constantFrom('a', ' ', '<', '"', '\n', '\u0001', '界', '😀', '\ud800');
const text = (maxLength: number) =>
  fc
    .integer({ min: 1, max: maxLength })
    .chain((length) => fc.array(unit, { minLength: length, maxLength: length }))
    .map((units) => units.join(''));

const item: fc.Arbitrary<ProjectedItem> = fc
  .record({ role: fc.constantFrom('user' as const, 'assistant' as const), originalText: text(60), checkpoint: fc.boolean() })
  .map(({ role, originalText, checkpoint }) => ({ role, originalText, checkpoint: role === 'user' && checkpoint }));

const input: fc.Arbitrary<RetentionInput> = fc.record({
  sessionId: fc.constantFrom('s', 'source', '会话<1>'),
  label: fc.array(unit, { maxLength: 4 }).map((units) => units.join('')),
  cwd: fc.constantFrom(null, '/w'),
  capturedThroughSeq: fc.oneof(fc.constant(null), fc.nat(500)),
  items: fc.array(item, { maxLength: 5, size: 'max' }),
});

/** The unretained data object's own serialisation: the size at which retention has nothing to do. */
function serialisedSize(source: RetentionInput): number {
  const conversation = source.items.map((entry) => ({ role: entry.role, text: entry.originalText }));
  const data = {
    sessionId: source.sessionId,
    label: source.label,
    cwd: source.cwd,
    capturedThroughSeq: source.capturedThroughSeq,
    conversation,
  };
  return Buffer.byteLength(stringifyTagSafeJson(data), 'utf8');
}

describe('minimumFittingBudget', () => {
  it('on 400 random sources equals the least budget of a scan over every budget, and every larger budget fits', () => {
    let searched = 0;
    fc.assert(
      fc.property(input, (source) => {
        const size = unretainedSize(source);
        expect(size).toBe(serialisedSize(source));
        let least: number | undefined;
        for (let budget = 1; budget <= size; budget += 1) {
          const fits = retainSource(source, budget).fits;
          if (least === undefined && fits) least = budget;
          // Monotone: once a budget fits, every larger one does.
          if (least !== undefined) expect(fits).toBe(true);
        }
        expect(least).toBeDefined();
        const scanned = least as number;
        if (scanned === 1) return;
        searched += 1;
        // From any failing budget below it, the search lands on the scanned least budget.
        for (const failed of [1, Math.max(1, Math.floor(scanned / 2)), scanned - 1])
          expect(minimumFittingBudget(source, failed)).toBe(scanned);
        // The literal definition, which shares no code with the fast method, agrees at the edge.
        expect(retainByDefinition(source, scanned).fits).toBe(true);
        expect(retainByDefinition(source, scanned - 1).fits).toBe(false);
      }),
      { numRuns: 400 },
    );
    expect(searched).toBeGreaterThan(350);
  });

  it('refuses a lower end that fits (there is nothing to search above it)', () => {
    const source: RetentionInput = {
      sessionId: 's',
      label: 's',
      cwd: null,
      capturedThroughSeq: 1,
      items: [{ role: 'user', originalText: 'hello', checkpoint: false }],
    };
    expect(() => minimumFittingBudget(source, unretainedSize(source))).toThrow(RangeError);
  });
});

// Discovery's match keys in one lower-cased string (issue 27 item 3) find exactly the records a per-record test finds
// (§7.3: the needle a case-insensitive substring of the id, the cwd or the label), in order, the first `limit` of
// them — for random and hostile ids, cwds, labels and needles: NUL (the fields' separator) in fields and needles,
// needles spanning two fields, case mappings that change length (İ, ß), final sigma, combining marks, astral
// characters, empty cwds and labels equal to the id.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../../../src/main/engine/corpus/session-query.js';
import { DiscoveryHaystack } from '../../../../src/main/engine/reference/discovery-haystack.js';
import { asSessionId } from '../../../../src/protocol/events.js';

/** The per-record definition, written out independently of the haystack. */
function expectedMatches(
  records: readonly SessionRecord[],
  labelOf: (record: SessionRecord) => string,
  needle: string,
  limit: number,
): SessionRecord[] {
  return records
    .filter((record) =>
      [record.header.id, record.header.cwd ?? '', labelOf(record)].some((field) => field.toLocaleLowerCase().includes(needle)),
    )
    .slice(0, limit);
}

const PIECES = ['a', 'B', 'İ', 'ß', 'Σ', 'ς', 'é', 'e\u0301', '\u0000', ' ', '/', '-', '😀', 'Ω', 'x', 'fix', 'Checkout', 'ǅ'];
const piece = fc.constantFrom(...PIECES);
const text = fc.array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: 6 }).map((parts) => parts.join(''));

const session = fc.record({
  id: text.map((value) => `id${value}`),
  cwd: fc.option(text, { nil: undefined }),
  label: fc.option(text, { nil: undefined }),
});

function recordsOf(sessions: readonly { id: string; cwd: string | undefined }[]): SessionRecord[] {
  return sessions.map(({ id, cwd }, index) => ({
    header:
      cwd === undefined
        ? { version: 0, id: asSessionId(id), createdAt: index }
        : { version: 0, id: asSessionId(id), createdAt: index, cwd },
    live: false,
    persisted: true,
  }));
}

describe('DiscoveryHaystack', () => {
  it('matches as the per-record definition for random and hostile keys and needles', () => {
    fc.assert(
      fc.property(
        fc.array(session, { maxLength: 25 }),
        fc.array(
          fc.oneof(
            text.filter((value) => value !== ''),
            piece,
          ),
          { minLength: 1, maxLength: 8 },
        ),
        fc.integer({ min: 1, max: 30 }),
        (sessions, rawNeedles, limit) => {
          const records = recordsOf(sessions);
          const labels = new Map(sessions.map((entry, index) => [records[index] as SessionRecord, entry.label] as const));
          const labelOf = (record: SessionRecord): string => labels.get(record) ?? record.header.id;
          const haystack = new DiscoveryHaystack(records, labelOf);
          // Needles drawn at random and from the keys themselves, including ones spanning a field boundary.
          const joined = sessions.map((entry) => `${entry.id}\u0000${entry.cwd ?? ''}\u0000${entry.label ?? entry.id}`).join('\u0000');
          const spanning = joined.length < 2 ? [] : [joined.slice(Math.max(0, joined.indexOf('\u0000') - 1), joined.indexOf('\u0000') + 2)];
          for (const raw of [...rawNeedles, ...spanning]) {
            const needle = raw.toLocaleLowerCase();
            if (needle === '') continue;
            expect(haystack.matching(needle, limit), JSON.stringify(needle)).toEqual(expectedMatches(records, labelOf, needle, limit));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never joins two fields: a needle across an id and its cwd finds nothing', () => {
    const records = recordsOf([{ id: 'alpha', cwd: 'beta' }]);
    const haystack = new DiscoveryHaystack(records, () => 'gamma');
    expect(haystack.matching('ab', 10)).toEqual([]);
    expect(haystack.matching('hab', 10)).toEqual([]);
    expect(haystack.matching('a\u0000b', 10)).toEqual([]);
    expect(haystack.matching('ag', 10)).toEqual([]);
    expect(haystack.matching('lph', 10)).toEqual(records);
  });

  it('stops at the limit and keeps the listing order', () => {
    const records = recordsOf(
      Array.from({ length: 50 }, (_, index) => ({ id: `session-${index}`, cwd: index % 2 === 0 ? '/w/even' : undefined })),
    );
    const haystack = new DiscoveryHaystack(records, (record) => `Title of ${record.header.id}`);
    expect(haystack.matching('even', 3)).toEqual([records[0], records[2], records[4]]);
    expect(haystack.matching('session-4', 100)).toEqual([records[4], ...records.slice(40, 50)]);
    expect(new DiscoveryHaystack([], () => '').matching('a', 5)).toEqual([]);
  });
});

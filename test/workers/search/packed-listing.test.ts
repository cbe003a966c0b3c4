// The listing a search sync sends its worker is packed into two strings and three typed arrays (so the sending thread
// does not clone 10,000 objects); unpacked it is the same sessions, and a packed value whose parts disagree is refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPackedListing, packListing, unpackListing } from '../../../src/workers/search/packed-listing.js';
import { isSearchRequest } from '../../../src/workers/search/search-messages.js';

const listedArb = fc.array(
  fc.record({
    id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
    cwd: fc.option(fc.string({ unit: 'binary', maxLength: 20 }), { nil: undefined }),
    createdAt: fc.double({ noNaN: true, noDefaultInfinity: true }),
  }),
  { maxLength: 40 },
);

describe('packed listing', () => {
  it('unpacks to the sessions it was packed from (ids, cwds or none, times)', () => {
    fc.assert(
      fc.property(listedArb, (listed) => {
        const packed = packListing(listed);
        expect(isPackedListing(structuredClone(packed))).toBe(true);
        expect(unpackListing(structuredClone(packed))).toEqual(
          listed.map((session) => ({ sessionId: session.id, cwd: session.cwd ?? null, createdAt: session.createdAt })),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('an empty cwd is kept apart from a missing one', () => {
    const packed = packListing([
      { id: 'a', cwd: '', createdAt: 1 },
      { id: 'b', createdAt: 2 },
    ]);
    expect(unpackListing(packed).map((session) => session.cwd)).toEqual(['', null]);
  });

  it('refuses packed values whose parts disagree', () => {
    const good = packListing([
      { id: 'abc', cwd: '/w', createdAt: 1 },
      { id: 'de', createdAt: 2 },
    ]);
    expect(isPackedListing(good)).toBe(true);
    const broken = [
      { ...good, ids: `${good.ids}x` },
      { ...good, cwds: '' },
      { ...good, idLengths: new Uint32Array([3]) },
      { ...good, cwdLengths: new Int32Array([2, -2]) },
      { ...good, createdAt: new Float64Array([1, Number.NaN]) },
      { ...good, idLengths: [3, 2] },
      null,
      'listing',
    ];
    for (const value of broken) expect(isPackedListing(value), JSON.stringify(value)).toBe(false);
    // The worker's check of a sync request refuses an unpacked (object) listing as well.
    const request = { type: 'sync', id: 1, root: '/r', storeRoot: '/r', compression: 'none', includeTools: false, live: [] };
    expect(isSearchRequest({ ...request, artifacts: good })).toBe(true);
    expect(isSearchRequest({ ...request, artifacts: null })).toBe(true);
    expect(isSearchRequest({ ...request, artifacts: [{ sessionId: 'abc', cwd: null, createdAt: 1 }] })).toBe(false);
    expect(isSearchRequest({ ...request, artifacts: good, live: [{ sessionId: 'x', cwd: null, createdAt: 1, logId: 'l', log: {} }] })).toBe(
      false,
    );
  });
});

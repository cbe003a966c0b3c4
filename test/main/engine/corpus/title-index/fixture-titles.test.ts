/**
 * The dsh-written fixture corpus (copied to a temporary root, so no test can touch the fixture; the index file
 * itself goes to the test's cache directory) read through the title index equals dsh's own results, expected/titles.json and
 * titles-extra.json, raw and zstd: on the first observation (full scans), on the second (stat only), and from
 * a new store that loads the persisted index.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../../src/protocol/events.js';
import { RAW_ROOT, ZSTD_ROOT, readExpected } from '../../../../support/fixtures.js';
import { comparable, copyRoot, openPair, removeTempDirs } from './title-index-harness.js';

afterAll(removeTempDirs);

const roots = [
  { name: 'raw', source: RAW_ROOT, compression: 'none' as const },
  { name: 'zstd', source: ZSTD_ROOT, compression: 'zstd' as const },
];

describe.each(roots)('fixture titles through the title index ($name)', ({ source, compression }) => {
  it('readTitleSnapshots equals expected/titles.json and titles-extra.json, cold, warm and reloaded', async () => {
    const root = await copyRoot(source);
    const titles = JSON.stringify(readExpected('titles.json'));
    const extra = readExpected<Array<{ ids: string[]; result: unknown }>>('titles-extra.json');

    const check = async (pair: Awaited<ReturnType<typeof openPair>>): Promise<void> => {
      const records = await pair.indexedQuery.listSessions();
      const observations = await pair.indexedQuery.readTitleSnapshots(records.map((record) => record.header.id));
      expect(JSON.stringify(observations.map(comparable))).toBe(titles);
      for (const testCase of extra) {
        const result = await pair.indexedQuery.readTitleSnapshots(testCase.ids.map(asSessionId));
        expect(JSON.stringify(result.map(comparable))).toBe(JSON.stringify(testCase.result));
      }
    };

    const pair = await openPair(root, compression);
    await check(pair);
    const cold = pair.indexed.titleIndexStats;
    expect(cold?.full).toBe(14);
    expect(cold?.unavailable).toBe(0);
    await check(pair);
    expect(pair.indexed.titleIndexStats?.full).toBe(14);
    expect(pair.indexed.titleIndexStats?.statOnly).toBeGreaterThanOrEqual(14);
    await pair.indexed.flushTitleIndex();

    const reloaded = await openPair(root, compression);
    await check(reloaded);
    expect(reloaded.indexed.titleIndexStats?.full).toBe(0);
    expect(reloaded.indexed.titleIndexStats?.unavailable).toBe(0);
  });
});

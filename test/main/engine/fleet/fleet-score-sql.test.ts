/**
 * The fleet ranking's SQL (docs/FLEET.md §7 "Ranking") against its definition, on a real PostgreSQL: the occurrence
 * count now divides byte lengths (`octet_length`, no character count over each matching text) and is computed once per
 * document in a subquery, so it must still be the phrase's non-overlapping occurrences — with multibyte tokens, CJK
 * folds, overlapping candidates and none — and the score `documentScore` of it, to the last bit.
 */
import { describe, expect, it } from 'vitest';
import { documentScore, occurrences, occurrencesSql, scoreSql } from '../../../../src/main/engine/fleet/phrase-match.js';
import { useFleetFixture } from './fleet-test-fixture.js';

const fleet = useFleetFixture('fleet-score-sql');

/** Token strings as published (` tok1 tok2 `), a needle each, and a token count. */
const CASES: ReadonlyArray<{ readonly text: string; readonly needle: string; readonly tokens: number }> = [
  { text: ' checkout the cart ', needle: ' checkout ', tokens: 3 },
  { text: ' über straße über straße über ', needle: ' über straße ', tokens: 5 },
  { text: ' a a a a ', needle: ' a a ', tokens: 4 },
  { text: ' 東京タワー 東京 ', needle: ' 東京 ', tokens: 2 },
  { text: '東京タワーの東京駅', needle: '東京', tokens: 9 },
  { text: ' 😀 😀 x 😀 ', needle: ' 😀 ', tokens: 4 },
  { text: ' nothing here ', needle: ' absent ', tokens: 2 },
  { text: ` ${'word '.repeat(5000)}`, needle: ' word word ', tokens: 5000 },
];

describe('the fleet score in SQL', () => {
  it('counts non-overlapping occurrences by bytes and scores them exactly as documentScore', async () => {
    const database = await fleet.cluster.createDatabase('score');
    for (const { text, needle, tokens } of CASES) {
      const rows = await fleet.cluster.sql(
        database,
        `SELECT tf, ${scoreSql()} AS score FROM (
           SELECT d.token_count, ${occurrencesSql('tokens', '$1::text')} AS tf
           FROM (VALUES ($2::text, $3::int)) AS d (tokens, token_count) OFFSET 0
         ) counted`,
        [needle, text, tokens],
      );
      const tf = occurrences(text, needle);
      expect(rows[0]?.['tf'], text.slice(0, 40)).toBe(tf);
      expect(rows[0]?.['score'], text.slice(0, 40)).toBe(documentScore(tf, tokens));
    }
  });
});

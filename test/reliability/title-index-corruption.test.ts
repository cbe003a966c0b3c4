/**
 * Reliability (issue 12, build item 5): random damage to the title index file never changes an answer
 * (SESSION-LOG.md §10.7, index file integrity). A fixture root copy gets a built index file; each run damages
 * that file (bit flips, a truncation, or byte overwrites), opens a fresh indexed store over the same root and
 * compares every title observation with the independent answer of a store opened with `titleIndex: false`
 * (dsh's full inspection, no index code involved). After the run the index must be rebuilt: the file written
 * back decodes, with every artifact's entry present and intact.
 *
 * Two scenarios per encoding: `unchanged` logs (every lookup would be a stat-only answer, lookup rule 1) and
 * `grown` logs (a blank line appended to every log after the index was built, so every lookup resumes from the
 * entry's checkpoint, rule 2). Bounded: 4 × 80 runs over the fixture's eight sessions under 200 KB, under a minute on a loaded 2-core machine.
 */
import { appendFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Compression } from '../../src/protocol/storage-paths.js';
import { InMemoryLiveRegistry } from '../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../src/main/engine/corpus/session-query.js';
import { decodeTitleIndex } from '../../src/main/engine/corpus/title-index/title-index-file.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { artifactPathFor } from '../../src/io/artifact-path.js';
import { RAW_ROOT, ZSTD_ROOT, readExpected } from '../support/fixtures.js';
import {
  batchFileBytes,
  cacheEnv,
  comparable,
  copyRoot,
  indexPathOf,
  removeTempDirs,
} from '../main/engine/corpus/title-index/title-index-harness.js';
import { assertNever } from '../../src/protocol/assert-never.js';

afterAll(removeTempDirs);

const RUNS_PER_SCENARIO = 80;

/**
 * The fixture's sessions of more than 200 KB (sessions.tsv `fileBytes`), left out of the copy: every discarded
 * file rescans the whole root, and the small half of the corpus keeps each run cheap while still covering
 * titles, no-title, no-cwd and compacted sessions.
 */
const LARGE_SESSIONS = new Set([
  'session-b2f4f8ab-862e-4eff-b7d3-68298f7abfc7',
  'session-f8151068-dc58-4d60-b7e2-f553f8b6d366',
  'session-a2470bba-537b-4474-9cb8-e4c2bc4e00d9',
  'session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
  'session-547c4005-0b6e-49a0-9497-6be9b6b464cd',
  'session-bdb6fde9-318a-4aa6-8f98-10d7a3a22414',
]);

/** A copy of `source` without {@link LARGE_SESSIONS}. */
async function smallCopy(source: string): Promise<string> {
  const root = await copyRoot(source);
  for (const project of await readdir(root)) {
    for (const session of await readdir(join(root, project))) {
      if (LARGE_SESSIONS.has(session)) await rm(join(root, project, session), { recursive: true });
    }
  }
  return root;
}

/** One way to damage the index file. */
type Damage =
  | { readonly kind: 'flip'; readonly bits: ReadonlyArray<{ readonly at: number; readonly bit: number }> }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'overwrite'; readonly bytes: ReadonlyArray<{ readonly at: number; readonly value: number }> };

/** Damage of a file of `length` bytes: mostly single-bit flips (the probe), also multi-bit, truncations, overwrites. */
function damageOf(length: number): fc.Arbitrary<Damage> {
  const at = fc.nat({ max: length - 1 });
  const flip = fc.record({ at, bit: fc.nat({ max: 7 }) });
  return fc.oneof(
    { weight: 5, arbitrary: fc.array(flip, { minLength: 1, maxLength: 1 }).map((bits) => ({ kind: 'flip' as const, bits })) },
    { weight: 1, arbitrary: fc.array(flip, { minLength: 2, maxLength: 4 }).map((bits) => ({ kind: 'flip' as const, bits })) },
    { weight: 2, arbitrary: at.map((cut) => ({ kind: 'truncate' as const, at: cut })) },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.record({ at, value: fc.nat({ max: 255 }) }), { minLength: 1, maxLength: 4 })
        .map((bytes) => ({ kind: 'overwrite' as const, bytes })),
    },
  );
}

function damaged(pristine: Uint8Array, damage: Damage): Uint8Array {
  switch (damage.kind) {
    case 'flip': {
      const out = Uint8Array.from(pristine);
      for (const { at, bit } of damage.bits) out[at] = (out[at] as number) ^ (1 << bit);
      return out;
    }
    case 'truncate':
      return pristine.slice(0, damage.at);
    case 'overwrite': {
      const out = Uint8Array.from(pristine);
      for (const { at, value } of damage.bytes) out[at] = value;
      return out;
    }
    default:
      assertNever(damage, 'unknown damage');
  }
}

/** A store over `root` behind a query layer; `indexed: false` is the independent full inspection. */
async function queryOver(
  root: string,
  compression: Compression,
  indexed: boolean,
): Promise<{ store: JsonlSessionStore; query: SessionQuery }> {
  const store = await JsonlSessionStore.open(
    indexed ? { root, compression, env: await cacheEnv() } : { root, compression, titleIndex: false },
  );
  return { store, query: new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store }) };
}

async function titles(query: SessionQuery): Promise<string> {
  const records = await query.listSessions();
  return JSON.stringify((await query.readTitleSnapshots(records.map((record) => record.header.id))).map(comparable));
}

/** What the runs of one scenario found (reported, and some asserted). */
interface Tally {
  runs: number;
  wrong: number;
  discardedFiles: number;
  discardedEntries: number;
  /** Runs that discarded nothing: the damage renamed the root (the file is then ignored) or hit an unused checkpoint. */
  harmless: number;
}

const roots = [
  { name: 'raw', source: RAW_ROOT, compression: 'none' as const },
  { name: 'zstd', source: ZSTD_ROOT, compression: 'zstd' as const },
];
const tallies: string[] = [];

afterAll(() => {
  // The figures RELIABILITY.md records (issue 12, item 5).
  console.info(`title index corruption:\n${tallies.join('\n')}`);
});

describe.each(roots)('title index file damage never changes an answer ($name)', ({ source, compression }) => {
  it.each(['unchanged', 'grown'] as const)(
    '%s logs: every answer equals the full inspection, and the index is rebuilt',
    async (scenario) => {
      const started = performance.now();
      const root = await smallCopy(source);
      const builder = await queryOver(root, compression, true);
      // The fixture's own expectation, so the baseline itself is independent of both stores.
      const expected = readExpected<Array<{ sessionId: string }>>('titles.json').filter(
        (observation) => !LARGE_SESSIONS.has(observation.sessionId),
      );
      expect(await titles(builder.query)).toBe(JSON.stringify(expected));
      await builder.store.flushTitleIndex();
      const indexPath = await indexPathOf(root);
      const pristine = await readFile(indexPath);
      const records = await builder.query.listSessions();
      if (scenario === 'grown') {
        // A blank line (a whitespace-only record every reader skips): each revision changes, each prefix stays.
        for (const { header } of records)
          await appendFile(artifactPathFor(builder.store.config, header.id, header.cwd), await batchFileBytes('\n', compression));
      }
      const independent = await titles((await queryOver(root, compression, false)).query);
      const tally: Tally = { runs: 0, wrong: 0, discardedFiles: 0, discardedEntries: 0, harmless: 0 };

      await fc.assert(
        fc.asyncProperty(damageOf(pristine.length), async (damage) => {
          await writeFile(indexPath, damaged(pristine, damage));
          const { store, query } = await queryOver(root, compression, true);
          const answer = await titles(query);
          // Written back before the next run damages the file again (and checked: the index was rebuilt).
          await store.flushTitleIndex();
          const stats = store.titleIndexStats;
          tally.runs += 1;
          if (answer !== independent) tally.wrong += 1;
          tally.discardedFiles += stats?.discardedFiles ?? 0;
          tally.discardedEntries += stats?.discarded ?? 0;
          if (stats?.discarded === 0 && stats.discardedFiles === 0) tally.harmless += 1;
          expect(answer).toBe(independent);
          // Nothing ever falls back to the unindexed path: damage costs a rescan, not an index failure.
          expect(stats?.unavailable).toBe(0);
          const rebuilt = decodeTitleIndex(await readFile(indexPath));
          expect(rebuilt?.discarded).toBe(0);
          expect(rebuilt?.entries.size).toBe(records.length);
        }),
        { numRuns: RUNS_PER_SCENARIO },
      );
      const seconds = (performance.now() - started) / 1000;
      tallies.push(
        `  ${compression} ${scenario}: ${tally.runs} runs, ${tally.wrong} wrong answers, ${tally.discardedFiles} files and ${tally.discardedEntries} entries discarded, ${tally.harmless} runs without a discard (root renamed or an unused checkpoint damaged), ${seconds.toFixed(1)} s`,
      );
      expect(tally.wrong).toBe(0);
      expect(tally.runs).toBe(RUNS_PER_SCENARIO);
    },
  );
});

// Issue 27 item 5: an index never changes an answer. A built index is damaged by seeded random byte flips and opened
// by a fresh engine (the logs unchanged, so nothing is re-read unless the damage is noticed); every query's whole
// answer (every page: sessions, scores, hits, snippets) must equal the answer of an index built fresh from the same
// logs, or fail with a typed SearchError — never differ silently. Both ways the file can be found: with the digest
// its last connection wrote at close, and without one (a process that was killed), where the full check at open and
// the per-hit checksums must find the damage.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { SearchQuery } from '../../../../src/protocol/search-types.js';
import { CorpusSession, writeSession } from './search-corpus.js';
import { mulberry32 } from '../../../support/seeded-random.js';

const T0 = 1_767_225_600_000;
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'café', 'invoice', 'rounding', 'cart', 'total', 'the', 'quokka', 'budget'];
const QUERIES: readonly SearchQuery[] = [
  { query: 'alpha' },
  { query: 'beta gamma' },
  { query: 'the' },
  { query: 'cafe', roles: ['assistant'] },
  { query: 'invoice', cwd: '/work/b' },
  { query: 'total', since: T0 + 30_000_000 },
  { query: 'rounding total', roles: ['user', 'checkpoint'] },
  { query: '東京タワー' },
];
/** Trials per variant (each a fresh copy of the built file, damaged, then opened by a fresh engine). */
const TRIALS = 60;

let dir: string;
let root: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-faults-'));
  root = join(dir, 'root');
  const next = mulberry32(5);
  const sentence = (length: number): string => Array.from({ length }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  for (let index = 0; index < 12; index += 1) {
    const session = new CorpusSession(`s-${index}`, `/work/${'abc'[index % 3]}`, T0 + index * 10_000_000);
    for (let turn = 0; turn < 4; turn += 1) session.turn(sentence(12), sentence(40));
    if (index % 4 === 0) session.compact(`checkpoint ${sentence(20)}`);
    if (index % 5 === 0) session.turn('東京タワーに行きました', sentence(10));
    session.turn(sentence(8), sentence(30));
    await writeSession(root, session, 'none');
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function engineAt(directory: string): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'none',
    workers: false,
    corpus: { watch: false },
    store: { cacheDirectory: join(dir, 'cache') },
    search: { directory, busyTimeoutMs: 200 },
  });
}

/** Every page of every query (limit 3, so cursors and offsets are part of the answer), or the error it failed with. */
async function answers(engine: LocalSessionEngine): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const pages: unknown[] = [];
    try {
      let cursor: string | undefined;
      do {
        const page = await engine.searchSessions({ ...query, limit: 3, ...(cursor === undefined ? {} : { cursor }) });
        pages.push(page.results);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      out.push(pages);
    } catch (error) {
      out.push({ failed: error });
    }
  }
  return out;
}

/** Builds an index in `directory` and closes it (the digest is written at close). */
async function buildAt(directory: string): Promise<unknown[]> {
  const engine = await engineAt(directory);
  try {
    return await answers(engine);
  } finally {
    await engine.close();
  }
}

describe('random byte flips in a built index', () => {
  let expected: unknown[];
  let pristine: Buffer;
  let digest: Buffer;

  beforeAll(async () => {
    expected = await buildAt(join(dir, 'fresh'));
    for (const answer of expected) expect(answer).not.toHaveProperty('failed');
    // At least one query matches several sessions over several pages.
    expect(expected.some((answer) => (answer as unknown[]).length > 1)).toBe(true);
    const built = join(dir, 'built');
    await buildAt(built);
    pristine = readFileSync(join(built, 'index.sqlite'));
    expect(existsSync(join(built, 'index.sqlite-wal'))).toBe(false);
    digest = readFileSync(join(built, 'index.sqlite.sum'));
  });

  async function trials(withDigest: boolean, seed: number): Promise<{ equal: number; failed: number; differed: string[] }> {
    const random = mulberry32(seed);
    const outcome = { equal: 0, failed: 0, differed: [] as string[] };
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const directory = join(dir, `${withDigest ? 'digest' : 'bare'}-${trial}`);
      mkdirSync(directory, { recursive: true });
      const bytes = Buffer.from(pristine);
      const flips: string[] = [];
      const count = 1 + Math.floor(random() * 4);
      for (let flip = 0; flip < count; flip += 1) {
        const at = Math.floor(random() * bytes.length);
        const bit = 1 << Math.floor(random() * 8);
        bytes[at] = (bytes[at] as number) ^ bit;
        flips.push(`${at}^${bit}`);
      }
      writeFileSync(join(directory, 'index.sqlite'), bytes);
      if (withDigest) writeFileSync(join(directory, 'index.sqlite.sum'), digest);
      const engine = await engineAt(directory);
      let got: unknown[];
      try {
        got = await answers(engine);
      } finally {
        await engine.close();
      }
      let same = true;
      for (const [index, answer] of got.entries()) {
        const failure = (answer as { failed?: unknown }).failed;
        if (failure !== undefined) {
          // A typed failure is allowed (a file no longer ours, for one): never an untyped one.
          expect((failure as Error).name, String(failure)).toBe('SearchError');
          outcome.failed += 1;
          continue;
        }
        try {
          expect(answer).toEqual(expected[index]);
        } catch {
          same = false;
        }
      }
      if (same) outcome.equal += 1;
      else outcome.differed.push(`trial ${trial}: ${flips.join(', ')}`);
      rmSync(directory, { recursive: true, force: true });
    }
    return outcome;
  }

  it('with the digest written at close: every answer equals a fresh index or fails typed', async () => {
    const outcome = await trials(true, 101);
    expect(outcome.differed).toEqual([]);
    expect(outcome.equal).toBeGreaterThan(0);
  });

  it('without a digest (the last process was killed): the full check at open and per-hit checksums catch it', async () => {
    const outcome = await trials(false, 202);
    expect(outcome.differed).toEqual([]);
    expect(outcome.equal).toBeGreaterThan(0);
  });

  it('a verified file is used as it is (no rebuild): its digest is kept until the first write', async () => {
    const directory = join(dir, 'kept');
    mkdirSync(directory, { recursive: true });
    copyFileSync(join(dir, 'built', 'index.sqlite'), join(directory, 'index.sqlite'));
    writeFileSync(join(directory, 'index.sqlite.sum'), digest);
    const engine = await engineAt(directory);
    try {
      expect(await answers(engine)).toEqual(expected);
      expect(readFileSync(join(directory, 'index.sqlite.sum')).equals(digest)).toBe(true);
    } finally {
      await engine.close();
    }
    // Nothing was written: the file and its digest are as they were.
    expect(readFileSync(join(directory, 'index.sqlite')).equals(pristine)).toBe(true);
  });
});

/**
 * Issue 12, build item 5: the title index cannot serve a corrupted entry (SESSION-LOG.md §10.7, index file
 * integrity). The exact defect: one flipped bit inside a cached title of the index file ("Nightly" → "Nhghtly")
 * was served by `readTitleSnapshots` and `sessions --query` (exit 0) and kept by `index build`, because an
 * unchanged log is answered from `stat` alone. Each entry is now sealed with XXH64 checksums, verified when the
 * entry is loaded (answer part) or first used (checkpoint part); a failing entry is discarded and recomputed.
 * Expected titles come from the dsh fixture (expected/titles.json), never from the code under test.
 */
import { execFile } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../../src/protocol/events.js';
import { REPO_ROOT, RAW_ROOT, ZSTD_ROOT, readExpected } from '../../../../support/fixtures.js';
import { batchFileBytes, comparable, copyRoot, indexPathOf, openPair, removeTempDirs, tempDir } from './title-index-harness.js';

afterAll(removeTempDirs);

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

const TITLE = 'Nightly training job OOM';
const SESSION = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f';
const ARTIFACT_DIR = join('--home-dev-projects-ml-pipeline--', SESSION);
const encoder = new TextEncoder();

/** Every offset at which `needle` occurs in `haystack`. */
function occurrences(haystack: Uint8Array, needle: Uint8Array): number[] {
  const out: number[] = [];
  const buffer = Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength);
  for (let at = buffer.indexOf(needle); at !== -1; at = buffer.indexOf(needle, at + 1)) out.push(at);
  return out;
}

/** `bytes` with the lowest bit of the second title character flipped: "Nightly" → "Nhghtly" ('i' 0x69 → 'h' 0x68). */
function flipTitleBit(bytes: Uint8Array, titleAt: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  out[titleAt + 1] = (out[titleAt + 1] as number) ^ 0x01;
  return out;
}

/** dsh's expected title observations of the fixture, as JSON text. */
const expectedTitles = (): string => JSON.stringify(readExpected('titles.json'));

const roots = [
  { name: 'raw', source: RAW_ROOT, compression: 'none' as const },
  { name: 'zstd', source: ZSTD_ROOT, compression: 'zstd' as const },
];

describe.each(roots)('a flipped bit inside a cached title ($name)', ({ source, compression }) => {
  /** A root copy with a built, flushed index file; returns the root and the index file's bytes. */
  async function built(): Promise<{ root: string; indexPath: string; bytes: Uint8Array }> {
    const root = await copyRoot(source);
    const pair = await openPair(root, compression);
    await pair.indexedQuery.readTitleSnapshots((await pair.indexedQuery.listSessions()).map((record) => record.header.id));
    await pair.indexed.flushTitleIndex();
    const indexPath = await indexPathOf(root);
    return { root, indexPath, bytes: await readFile(indexPath) };
  }

  async function titlesThroughIndex(root: string): Promise<{ json: string; pair: Awaited<ReturnType<typeof openPair>> }> {
    const pair = await openPair(root, compression);
    const records = await pair.indexedQuery.listSessions();
    const observations = await pair.indexedQuery.readTitleSnapshots(records.map((record) => record.header.id));
    return { json: JSON.stringify(observations.map(comparable)), pair };
  }

  it('is never served from stat alone: the entry is discarded, recomputed, and rewritten with the true title', async () => {
    const { root, indexPath, bytes } = await built();
    const found = occurrences(bytes, encoder.encode(TITLE));
    // The title is cached in the entry's answer (its outcome) and, for resuming, in its checkpoint.
    expect(found.length).toBeGreaterThanOrEqual(1);
    const answerAt = found[0] as number;
    await writeFile(indexPath, flipTitleBit(bytes, answerAt));
    // The damage is the issue's: the file now holds the wrong title and not the right one at that place.
    expect(occurrences(await readFile(indexPath), encoder.encode('Nhghtly training job OOM'))).toContain(answerAt);

    const { json, pair } = await titlesThroughIndex(root);
    expect(json).toBe(expectedTitles());
    const stats = pair.indexed.titleIndexStats;
    // Exactly the damaged entry was discarded and scanned again; the 13 others were answered from stat.
    expect(stats).toMatchObject({ discarded: 1, discardedFiles: 0, full: 1, statOnly: 13, unavailable: 0 });

    // The recomputed entry reaches the file: what `index build` then keeps is the true title.
    await pair.indexed.flushTitleIndex();
    const rewritten = await readFile(indexPath);
    expect(occurrences(rewritten, encoder.encode('Nhghtly'))).toEqual([]);
    const again = await titlesThroughIndex(root);
    expect(again.json).toBe(expectedTitles());
    expect(again.pair.indexed.titleIndexStats).toMatchObject({ discarded: 0, statOnly: 14, full: 0 });
  });

  it('a damaged checkpoint is verified when first used: a grown log is rescanned, never continued from it', async () => {
    const { root, indexPath, bytes } = await built();
    const found = occurrences(bytes, encoder.encode(TITLE));
    // The last occurrence lies in the checkpoint part (the state keeps the last title event to resume from).
    expect(found.length).toBeGreaterThanOrEqual(2);
    await writeFile(indexPath, flipTitleBit(bytes, found[found.length - 1] as number));

    // Unchanged logs: the stat-only answer comes from the intact, verified answer part; the checkpoint is not needed.
    const unchanged = await titlesThroughIndex(root);
    expect(unchanged.json).toBe(expectedTitles());
    expect(unchanged.pair.indexed.titleIndexStats).toMatchObject({ statOnly: 14, discarded: 0 });
    await unchanged.pair.indexed.flushTitleIndex();

    // A whitespace-only line appended to the log (a blank line is skipped by every reader) changes the revision,
    // so the lookup needs the checkpoint: its checksum fails, it is discarded and the log scanned from offset 0.
    await appendFile(
      join(root, ARTIFACT_DIR, compression === 'none' ? 'session.jsonl' : 'session.jsonl.zstd'),
      await batchFileBytes('\n', compression),
    );
    const pair = await openPair(root, compression);
    const observed = await pair.indexedQuery.readTitleSnapshots([asSessionId(SESSION)]);
    const independent = await pair.fullQuery.readTitleSnapshots([asSessionId(SESSION)]);
    expect(observed.map(comparable)).toEqual(independent.map(comparable));
    expect(pair.indexed.titleIndexStats).toMatchObject({ discarded: 1, full: 1, incremental: 0 });
  });

  it('the built CLI: sessions --query prints the true title, and index build replaces the damaged entry', async () => {
    const { root, indexPath, bytes } = await built();
    const cacheHome = join(indexPath, '..', '..', '..');
    const env = { ...process.env, XDG_CACHE_HOME: cacheHome };
    // The independent answer: the same query over the same root with no index file at all (a cold, full scan).
    const cold = await run(process.execPath, [BIN, 'sessions', '--root', root, '--query', 'a', '--json'], {
      env: { ...process.env, XDG_CACHE_HOME: await tempDir('sessionctx-cold-') },
    });
    expect(cold.stdout).toContain(TITLE);

    await writeFile(indexPath, flipTitleBit(bytes, occurrences(bytes, encoder.encode(TITLE))[0] as number));
    const damaged = await run(process.execPath, [BIN, 'sessions', '--root', root, '--query', 'a', '--json'], { env });
    expect(damaged.stderr).toBe('');
    expect(damaged.stdout).not.toContain('Nhghtly');
    expect(JSON.parse(damaged.stdout)).toEqual(JSON.parse(cold.stdout));

    // The query above may already have rewritten the file; damage it again for the build.
    const current = await readFile(indexPath);
    await writeFile(indexPath, flipTitleBit(current, occurrences(current, encoder.encode(TITLE))[0] as number));
    const build = await run(process.execPath, [BIN, 'index', 'build', '--titles', '--root', root, '--json'], { env });
    expect(JSON.parse(build.stdout).titles).toMatchObject({ fulfilled: 14, stats: { discarded: 1, full: 1, statOnly: 13 } });
    expect(occurrences(await readFile(indexPath), encoder.encode('Nhghtly'))).toEqual([]);
  });
});

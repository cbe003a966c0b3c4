/**
 * Issue 27 item 6 (main-thread budget) for the title index file (SESSION-LOG.md §10.7): the file is encoded a slice of
 * entries at a time with a hop between slices, into exactly the bytes of the one-stretch encoding; and a process whose
 * last write is still the file on disk merges with memory instead of reading and decoding the file again, while a file
 * another process wrote since is still read and its entries kept.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../../src/protocol/events.js';
import {
  TITLE_INDEX_DECODE_SLICE_ENTRIES,
  TITLE_INDEX_VERSION,
  decodeTitleIndex,
  decodeTitleIndexInSlices,
  encodeTitleIndex,
  encodeTitleIndexInSlices,
  holdEntry,
  type HeldTitleIndexEntry,
  type TitleIndexFileContent,
} from '../../../../../src/main/engine/corpus/title-index/title-index-file.js';
import {
  CountingFs,
  appendLines,
  expectSameTitles,
  indexPathOf,
  openPair,
  readIndexEntries,
  removeTempDirs,
  tempDir,
} from './title-index-harness.js';

afterAll(removeTempDirs);

const T0 = 1_767_225_600_000;

/** A fresh (open-checkpoint) entry whose fields all depend on `index`. */
function entryFor(index: number): HeldTitleIndexEntry {
  return holdEntry({
    dev: '2049',
    ino: String(1000 + index),
    size: String(300 + index),
    mtimeNs: String(1_767_225_600_000_000_000n + BigInt(index)),
    ctimeNs: String(1_767_225_600_000_000_000n + BigInt(index)),
    outcome: { kind: 'read-failed', error: { name: 'Error', message: `entry ${index}`, code: 'EIO', cause: null } },
    // No checkpoint (a read that failed): the simplest well-formed checkpoint part.
    headerDigest: null,
    resumeOffset: 0,
    guard: null,
    state: null,
  });
}

function concat(blocks: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(blocks);
}

describe('the index file encoded in slices', () => {
  it('is the same bytes as the one-stretch encoding, with a hop whenever a slice ran out of time', async () => {
    const count = 200;
    const entries = new Map<string, HeldTitleIndexEntry>(
      Array.from({ length: count }, (_, index) => [`p/session-${index}.jsonl`, entryFor(index)]),
    );
    // A clock that moves 1 ms at each look and a 10 ms budget: a hop about every 10 entries.
    let clock = 0;
    let hops = 0;
    const blocks = await encodeTitleIndexInSlices('/real/root', entries, (key) => key, {
      budgetMs: 10,
      now: () => clock++,
      pause: async () => {
        hops += 1;
      },
    });
    expect(hops).toBeGreaterThanOrEqual(count / 11);
    expect(hops).toBeLessThanOrEqual(count / 9 + 1);
    // A clock that stands still: no slice ever runs out (the output is below one block, so no block hop either).
    let stillHops = 0;
    const still = await encodeTitleIndexInSlices('/real/root', entries, (key) => key, {
      now: () => 0,
      pause: async () => {
        stillHops += 1;
      },
    });
    expect(stillHops).toBe(0);
    expect(Buffer.from(concat(still)).equals(Buffer.from(concat(blocks)))).toBe(true);
    const sliced = concat(blocks);
    expect(Buffer.from(sliced).equals(Buffer.from(encodeTitleIndex('/real/root', entries)))).toBe(true);
    const decoded = decodeTitleIndex(sliced);
    expect(decoded?.root).toBe('/real/root');
    expect(decoded?.discarded).toBe(0);
    expect([...(decoded?.entries.keys() ?? [])]).toEqual([...entries.keys()]);
    for (const [key, entry] of decoded?.entries ?? []) {
      const { checkpoint: _sealed, ...answer } = entry;
      const { checkpoint: _open, ...expected } = entries.get(key) as HeldTitleIndexEntry;
      expect(answer).toEqual(expected);
    }
  });

  it('leaves out the entries whose key maps to none, as the one-stretch encoding of the rest', async () => {
    const entries = new Map(Array.from({ length: 10 }, (_, index) => [`/abs/${index}`, entryFor(index)] as const));
    const keyOf = (path: string): string | undefined => (Number(path.slice(5)) % 2 === 0 ? `k${path.slice(5)}` : undefined);
    const kept = new Map(
      [...entries].flatMap(([path, entry]) => (keyOf(path) === undefined ? [] : [[keyOf(path) as string, entry] as const])),
    );
    const blocks = await encodeTitleIndexInSlices('/r', entries, keyOf);
    expect(Buffer.from(concat(blocks)).equals(Buffer.from(encodeTitleIndex('/r', kept)))).toBe(true);
    expect([...(decodeTitleIndex(concat(blocks))?.entries.keys() ?? [])]).toEqual(['k0', 'k2', 'k4', 'k6', 'k8']);
  });

  it('an empty index is a record with an empty entry list', async () => {
    const decoded = decodeTitleIndex(concat(await encodeTitleIndexInSlices('/r', new Map(), (key) => key)));
    expect(decoded?.entries.size).toBe(0);
    expect(decoded?.root).toBe('/r');
  });
});

/** What a decoding says about a file, comparable with `toEqual` (sealed checkpoints as hex). */
function comparableContent(content: TitleIndexFileContent | undefined): unknown {
  if (content === undefined) return undefined;
  return {
    root: content.root,
    discarded: content.discarded,
    entries: [...content.entries].map(([key, { checkpoint, ...answer }]) => [
      key,
      answer,
      checkpoint.kind === 'sealed' ? [Buffer.from(checkpoint.bytes).toString('hex'), checkpoint.checksum] : checkpoint.value,
    ]),
  };
}

/** A deterministic generator of 32-bit values (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

describe('the index file decoded in slices', () => {
  const count = TITLE_INDEX_DECODE_SLICE_ENTRIES * 3 + 8;
  const entries = new Map<string, HeldTitleIndexEntry>(
    Array.from({ length: count }, (_, index) => [`p/s-${index}.jsonl`, entryFor(index)]),
  );
  const file = encodeTitleIndex('/real/root', entries);

  it('gives the one-stretch decoding’s content, with hops between slices', async () => {
    let hops = 0;
    const sliced = await decodeTitleIndexInSlices(file, async () => {
      hops += 1;
    });
    expect(comparableContent(sliced)).toEqual(comparableContent(decodeTitleIndex(file)));
    expect(sliced?.entries.size).toBe(count);
    // 4 slices read (a hop after each); the unsealing hops only when its time slice runs out.
    expect(hops).toBeGreaterThanOrEqual(4);
  });

  it('gives the one-stretch decoding’s answer for every damaged copy: flipped bytes, truncations, appended bytes', async () => {
    const next = random(27);
    for (let trial = 0; trial < 300; trial++) {
      const damaged = Uint8Array.from(file);
      let bytes: Uint8Array = damaged;
      const kind = trial % 3;
      if (kind === 0) {
        for (let flips = 1 + (next() % 3); flips > 0; flips--) {
          const at = next() % damaged.length;
          damaged[at] = (damaged[at] as number) ^ (1 << (next() % 8));
        }
      } else if (kind === 1) {
        bytes = damaged.subarray(0, next() % damaged.length);
      } else {
        bytes = Buffer.concat([damaged, Uint8Array.of(next() % 256)]);
      }
      const whole = decodeTitleIndex(bytes);
      const sliced = await decodeTitleIndexInSlices(bytes, async () => undefined);
      expect(comparableContent(sliced), `trial ${trial} (kind ${kind})`).toEqual(comparableContent(whole));
    }
  });

  it('reads a file of another layout (the one-stretch record msgpack gives) as the one-stretch decoding does', async () => {
    const { Packr } = await import('msgpackr');
    const packr = new Packr({ useRecords: false, mapsAsObjects: true });
    const sealedList = (packr.unpack(file) as { entries: unknown[] }).entries;
    const other = packr.pack({ version: TITLE_INDEX_VERSION, format: 'sessionctx-title-index', root: '/real/root', entries: sealedList });
    expect(comparableContent(await decodeTitleIndexInSlices(other))).toEqual(comparableContent(decodeTitleIndex(other)));
    expect((await decodeTitleIndexInSlices(other))?.entries.size).toBe(count);
  });
});

describe('rewriting the index file', () => {
  /** A root of `count` titled raw sessions. */
  async function corpus(count: number): Promise<{ root: string; ids: string[]; paths: string[] }> {
    const root = join(await tempDir(), 'sessions');
    const { full } = await openPair(root, 'none');
    const ids: string[] = [];
    const paths: string[] = [];
    for (let index = 0; index < count; index++) {
      const id = `rewrite-${index}`;
      const path = await full.create({ version: 0, id: asSessionId(id), createdAt: T0 + index, cwd: '/w' } as SessionHeader);
      await appendLines(path, [titleLine(0, `t ${index}`)], 'none');
      ids.push(id);
      paths.push(path);
    }
    return { root, ids, paths };
  }

  function titleLine(seq: number, title: string): string {
    return JSON.stringify({ type: 'session/title', seq, time: T0 + seq, data: { title, messageSeqs: [], source: { kind: 'user' } } });
  }

  it('does not read the file back while it is still the one this process wrote', async () => {
    const { root, ids } = await corpus(8);
    const fs = new CountingFs();
    const pair = await openPair(root, 'none', { titleIndexFs: fs });
    await expectSameTitles(pair, ids.slice(0, 4), 'first half');
    await pair.indexed.flushTitleIndex();
    const indexPath = await indexPathOf(root);
    fs.reset();
    await expectSameTitles(pair, ids.slice(4), 'second half');
    await pair.indexed.flushTitleIndex();
    expect(fs.of(indexPath).reads).toBe(0);
    expect((await readIndexEntries(root))?.size).toBe(8);
    // A fresh process answers every session from the file alone.
    const fresh = await openPair(root, 'none');
    await expectSameTitles(fresh, ids, 'fresh');
    expect(fresh.indexed.titleIndexStats?.statOnly).toBe(8);
  });

  it('reads a file another process wrote since, and keeps that process’s newer entries', async () => {
    const { root, ids, paths } = await corpus(4);
    const fs = new CountingFs();
    const first = await openPair(root, 'none', { titleIndexFs: fs });
    await expectSameTitles(first, ids, 'first process');
    await first.indexed.flushTitleIndex();
    // Another process sees session 0 grow and writes the file.
    await appendLines(paths[0] as string, [titleLine(1, 'grown by the other')], 'none');
    const other = await openPair(root, 'none');
    await expectSameTitles(other, ids.slice(0, 1), 'other process');
    await other.indexed.flushTitleIndex();
    // The first process changes only session 1, then writes.
    await appendLines(paths[1] as string, [titleLine(1, 'grown by the first')], 'none');
    const indexPath = await indexPathOf(root);
    fs.reset();
    await expectSameTitles(first, ids.slice(1, 2), 'first again');
    await first.indexed.flushTitleIndex();
    expect(fs.of(indexPath).reads).toBe(1);
    const entries = await readIndexEntries(root);
    const keyOf = (path: string): string => path.slice(root.length + 1);
    expect(entries?.get(keyOf(paths[0] as string))?.size).toBe(String((await stat(paths[0] as string)).size));
    expect(entries?.get(keyOf(paths[1] as string))?.size).toBe(String((await stat(paths[1] as string)).size));
  });
});

// Issue 15 item 2: the source cache's files and bounds. Cache files are never trusted — damaged, foreign (another
// artifact's entry, another format version) or garbage files are ignored, counted and rebuilt, and the answer stays
// the cold one; the in-memory LRU holds no more than its byte bound; the configuration is validated; `false` turns
// the cache off.
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { SourceServedReport } from '../../../../src/main/engine/pool/pool-source-renderer.js';
import { initZstd } from '../../../../src/workers/decode/zstd-codec.js';
import { artifactBytes, artifactPathOf, longSession } from '../../../../bench/support/long-session.js';

const TARGET = { id: 'target-session', session: { header: {} } };
const IDS = ['source-a', 'source-b'] as const;

let dir: string;
let root: string;

beforeAll(async () => {
  await initZstd();
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-source-cache-files-'));
  root = join(dir, 'root');
  for (const [index, id] of IDS.entries()) {
    const session = longSession({
      id,
      cwd: '/work/p',
      seed: index + 1,
      minEvents: 60,
      textBytes: 80,
      toolCallsPerTurn: 1,
      chunksPerAnswer: 2,
      compactAfterTurn: 2,
    });
    const path = artifactPathOf(root, session.header, 'zstd');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, artifactBytes(session.header, session.events, 'zstd', 8));
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function text(engine: LocalSessionEngine, id: string): Promise<string> {
  const prepared = await engine.prepare(TARGET, [{ type: 'text', text: 'x' }], [{ sessionId: id }]);
  return JSON.stringify(prepared.additionalContext?.content);
}

async function coldTexts(): Promise<string[]> {
  const cold = await createEngine({ root, compression: 'zstd', workers: false, sourceCache: false });
  try {
    return [await text(cold, 'source-a'), await text(cold, 'source-b')];
  } finally {
    await cold.close();
  }
}

/** A cache directory filled by one engine that prepared both sources (closed, so its files are written). */
async function filledCache(name: string): Promise<string> {
  const cacheDir = join(dir, name);
  const engine = await createEngine({ root, compression: 'zstd', workers: false, sourceCache: { directory: cacheDir } });
  try {
    for (const id of IDS) await text(engine, id);
  } finally {
    await engine.close();
  }
  return cacheDir;
}

async function entryFiles(cacheDir: string): Promise<string[]> {
  return (await readdir(cacheDir))
    .filter((name) => name.endsWith('.v2'))
    .sort()
    .map((name) => join(cacheDir, name));
}

describe('source cache files', () => {
  it('a fresh engine over a filled cache directory serves both sources warm, with the cold answers', async () => {
    const cacheDir = await filledCache('reload');
    expect(await entryFiles(cacheDir)).toHaveLength(2);
    const served: SourceServedReport[] = [];
    const engine = await createEngine({
      root,
      compression: 'zstd',
      workers: false,
      sourceCache: { directory: cacheDir },
      onSourceServed: (report) => served.push(report),
    });
    try {
      expect([await text(engine, 'source-a'), await text(engine, 'source-b')]).toEqual(await coldTexts());
      expect(served.map((report) => report.served)).toEqual(['warm', 'warm']);
    } finally {
      await engine.close();
    }
  });

  const damages: ReadonlyArray<[string, (files: string[]) => Promise<void>]> = [
    [
      'a flipped payload byte (checksum mismatch)',
      async (files) => {
        for (const file of files) {
          const bytes = await readFile(file);
          const at = bytes.length - 10;
          bytes[at] = (bytes[at] as number) ^ 0x01;
          await writeFile(file, bytes);
        }
      },
    ],
    [
      'a truncated file',
      async (files) => {
        for (const file of files) await writeFile(file, (await readFile(file)).subarray(0, 100));
      },
    ],
    [
      'garbage',
      async (files) => {
        for (const file of files) await writeFile(file, 'not a cache file at all\n');
      },
    ],
    [
      'another format version',
      async (files) => {
        for (const file of files)
          await writeFile(file, (await readFile(file, 'utf8')).replace('sessionctx-source-cache 2', 'sessionctx-source-cache 9'));
      },
    ],
    [
      "each artifact's file swapped for the other's (foreign key)",
      async (files) => {
        const [first, second] = files as [string, string];
        await copyFile(first, `${first}.swap`);
        await copyFile(second, first);
        await copyFile(`${first}.swap`, second);
        await rm(`${first}.swap`);
      },
    ],
  ];

  for (const [name, damage] of damages) {
    it(`ignores and rebuilds ${name}`, async () => {
      const cacheDir = await filledCache(`damaged-${name.replace(/\W+/g, '-')}`);
      await damage(await entryFiles(cacheDir));
      const served: SourceServedReport[] = [];
      const engine = await createEngine({
        root,
        compression: 'zstd',
        workers: false,
        sourceCache: { directory: cacheDir },
        onSourceServed: (report) => served.push(report),
      });
      try {
        expect([await text(engine, 'source-a'), await text(engine, 'source-b')]).toEqual(await coldTexts());
        expect(served.map((report) => report.served)).toEqual(['cold', 'cold']);
        expect(engine.sourceCache?.stats.discardedFiles).toBe(2);
      } finally {
        await engine.close();
      }
      // Rebuilt: the next engine is warm again.
      const again = await createEngine({ root, compression: 'zstd', workers: false, sourceCache: { directory: cacheDir } });
      try {
        await text(again, 'source-a');
        expect(again.sourceCache?.stats.warm).toBe(1);
      } finally {
        await again.close();
      }
    });
  }

  it('an unwritable cache directory leaves the cache in memory, never failing a preparation', async () => {
    const blocker = join(dir, 'blocker');
    await writeFile(blocker, 'a file where the directory should be');
    const engine = await createEngine({ root, compression: 'zstd', workers: false, sourceCache: { directory: join(blocker, 'cache') } });
    try {
      expect(await text(engine, 'source-a')).toEqual((await coldTexts())[0]);
      await engine.sourceCache?.flush();
      expect(engine.sourceCache?.persistenceNote).toMatch(/memory only/);
      await text(engine, 'source-a');
      expect(engine.sourceCache?.stats.warm).toBe(1);
    } finally {
      await engine.close();
    }
  });
});

describe('source cache bounds and configuration', () => {
  it('holds no more than maxBytes in memory, evicting the least recently used entry', async () => {
    const probe = await createEngine({ root, compression: 'zstd', workers: false, sourceCache: { directory: null } });
    let one: number;
    try {
      await text(probe, 'source-a');
      // The entry of a miss is built in the background after the uncached read.
      await probe.sourceCache?.flush();
      one = probe.sourceCache?.stats.bytes ?? 0;
    } finally {
      await probe.close();
    }
    expect(one).toBeGreaterThan(0);
    // Room for the larger of the two entries, not for both.
    const maxBytes = Math.floor(one * 1.5);
    const engine = await createEngine({ root, compression: 'zstd', workers: false, sourceCache: { directory: null, maxBytes } });
    try {
      await text(engine, 'source-a');
      await engine.sourceCache?.flush();
      await text(engine, 'source-b');
      await engine.sourceCache?.flush();
      const stats = engine.sourceCache?.stats;
      expect(stats?.entries).toBe(1);
      expect(stats?.evicted).toBe(1);
      expect(stats?.bytes).toBeLessThanOrEqual(maxBytes);
      // source-a was evicted (least recently used): it is read cold again, source-b is warm.
      await text(engine, 'source-b');
      await text(engine, 'source-a');
      await engine.sourceCache?.flush();
      expect(engine.sourceCache?.stats.warm).toBe(1);
      expect(engine.sourceCache?.stats.cold).toBe(3);
    } finally {
      await engine.close();
    }
  });

  it('maxBytes 0 keeps nothing in memory', async () => {
    const engine = await createEngine({ root, compression: 'zstd', workers: false, sourceCache: { directory: null, maxBytes: 0 } });
    try {
      await text(engine, 'source-a');
      await engine.sourceCache?.flush();
      await text(engine, 'source-a');
      await engine.sourceCache?.flush();
      expect(engine.sourceCache?.stats).toMatchObject({ entries: 0, bytes: 0, warm: 0, cold: 2 });
    } finally {
      await engine.close();
    }
  });

  it('sourceCache: false turns the cache off: every source is served cold', async () => {
    const served: SourceServedReport[] = [];
    const engine = await createEngine({
      root,
      compression: 'zstd',
      workers: false,
      sourceCache: false,
      onSourceServed: (report) => served.push(report),
    });
    try {
      await text(engine, 'source-a');
      await text(engine, 'source-a');
      expect(engine.sourceCache).toBeUndefined();
      expect(served).toEqual([
        { sessionId: 'source-a', served: 'cold' },
        { sessionId: 'source-a', served: 'cold' },
      ]);
    } finally {
      await engine.close();
    }
  });

  for (const [name, sourceCache] of [
    ['a negative maxBytes', { maxBytes: -1 }],
    ['a fractional maxBytes', { maxBytes: 1.5 }],
    ['a string maxBytes', { maxBytes: '64' }],
    ['an empty directory', { directory: '' }],
    ['a numeric directory', { directory: 7 }],
  ] as const) {
    it(`refuses ${name} with SESSION_SOURCE_CACHE_INVALID_CONFIG`, async () => {
      await expect(createEngine({ root, compression: 'zstd', workers: false, sourceCache })).rejects.toMatchObject({
        code: 'SESSION_SOURCE_CACHE_INVALID_CONFIG',
      });
    });
  }
});

describe('a rewrite that puts its modification time back', () => {
  it('an equal-size in-place rewrite with the tail kept and the mtime restored is read again, not served warm', async () => {
    const rawRoot = join(dir, 'raw-root');
    const session = longSession({
      id: 'source-r',
      cwd: '/work/p',
      seed: 7,
      minEvents: 60,
      textBytes: 80,
      toolCallsPerTurn: 1,
      chunksPerAnswer: 2,
      // No compaction: the first prompt stays on the surface, so the changed letter is model-visible.
      compactAfterTurn: 1_000,
    });
    const path = artifactPathOf(rawRoot, session.header, 'none');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, artifactBytes(session.header, session.events, 'none'));
    // A whole-second modification time, so that putting it back restores it to the nanosecond.
    const mtime = new Date(1_780_000_000_000);
    await utimes(path, mtime, mtime);
    const cacheDir = join(dir, 'rewrite-cache');
    const prepareText = async (engine: LocalSessionEngine): Promise<string> => {
      const prepared = await engine.prepare(TARGET, [{ type: 'text', text: 'x' }], [{ sessionId: 'source-r' }]);
      return JSON.stringify(prepared.additionalContext?.content);
    };
    const first = await createEngine({ root: rawRoot, compression: 'none', workers: false, sourceCache: { directory: cacheDir } });
    const before = await prepareText(first);
    await first.close();
    // Change one letter of the first user prompt: same size, the last 4 KiB untouched, still a valid log.
    const bytes = await readFile(path);
    const text = bytes.toString('utf8');
    const at = text.indexOf('"text":"', text.indexOf('"user/message"')) + '"text":"'.length;
    const original = text[at] as string;
    const rewritten = `${text.slice(0, at)}${original === 'Q' ? 'R' : 'Q'}${text.slice(at + 1)}`;
    expect(Buffer.byteLength(rewritten)).toBe(bytes.length);
    expect(at).toBeLessThan(bytes.length - 4096);
    await writeFile(path, rewritten);
    await utimes(path, mtime, mtime);
    expect((await stat(path, { bigint: true })).mtimeNs).toBe(1_780_000_000_000_000_000n);
    const served: SourceServedReport[] = [];
    const second = await createEngine({
      root: rawRoot,
      compression: 'none',
      workers: false,
      sourceCache: { directory: cacheDir },
      onSourceServed: (report) => served.push(report),
    });
    const cold = await createEngine({ root: rawRoot, compression: 'none', workers: false, sourceCache: false });
    try {
      const after = await prepareText(second);
      expect(after).not.toBe(before);
      expect(after).toBe(await prepareText(cold));
      expect(served.map((report) => report.served)).toEqual(['cold']);
    } finally {
      await second.close();
      await cold.close();
    }
  });
});

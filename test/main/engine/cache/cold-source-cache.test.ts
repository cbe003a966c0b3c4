// Issue 27 item 1: a cold source is read once, on its own worker, which also encodes the cache entry; the main thread
// only writes those bytes, after the answer, and a preparation issued right after a cold one is warm (no read).
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactBytes, artifactPathOf, longSession } from '../../../../bench/support/long-session.js';
import { SourceCache } from '../../../../src/main/engine/cache/source-cache.js';
import { resolveSourceCacheConfig } from '../../../../src/main/engine/cache/source-cache-config.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import { InThreadTaskRunner } from '../../../../src/main/engine/pool/in-thread-runner.js';
import { PoolSourceRenderer, type SourceServedReport } from '../../../../src/main/engine/pool/pool-source-renderer.js';
import type { TaskRunner } from '../../../../src/main/engine/pool/task-runner.js';
import { SessionReferenceService } from '../../../../src/main/engine/reference/session-reference-service.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { initZstd } from '../../../../src/workers/decode/zstd-codec.js';
import { projectSurface } from '../../../../src/workers/reference/project-surface.js';

const TARGET = { id: 'target-session', session: { header: {} } };
const IDS = ['cold-a', 'cold-b'] as const;

let dir: string;

beforeAll(async () => {
  await initZstd();
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-cold-source-cache-'));
  for (const compression of ['none', 'zstd'] as const) {
    for (const [index, id] of IDS.entries()) {
      const session = longSession({
        id,
        cwd: '/work/p',
        seed: index + 3,
        minEvents: 80,
        textBytes: 60,
        toolCallsPerTurn: 1,
        chunksPerAnswer: 2,
        compactAfterTurn: 2,
      });
      const path = artifactPathOf(join(dir, compression), session.header, compression);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, artifactBytes(session.header, session.events, compression, 8));
    }
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The seam: every task the renderer and the cache run, by kind and payload source. */
class CountingRunner implements Pick<TaskRunner, 'run' | 'close'> {
  readonly tasks: string[] = [];
  readonly #inner = new InThreadTaskRunner();
  run: TaskRunner['run'] = (kind, payload, options) => {
    this.tasks.push(`${kind}:${(payload as { source?: string }).source ?? ''}`);
    return this.#inner.run(kind, payload, options);
  };
  close(): Promise<void> {
    return this.#inner.close();
  }
}

interface Rig {
  readonly service: SessionReferenceService;
  readonly runner: CountingRunner;
  readonly cache: SourceCache;
  readonly served: SourceServedReport[];
}

async function rig(compression: Compression, cacheDir: string | null): Promise<Rig> {
  const root = join(dir, compression);
  const store = await JsonlSessionStore.open({ root, compression });
  const registry = new InMemoryLiveRegistry();
  const runner = new CountingRunner();
  const cache = new SourceCache(resolveSourceCacheConfig({ directory: cacheDir }));
  const served: SourceServedReport[] = [];
  const renderer = new PoolSourceRenderer({
    runner: runner as TaskRunner,
    registry,
    storage: store,
    sourceCache: cache,
    onSourceServed: (report) => served.push(report),
  });
  const service = new SessionReferenceService({ sessionQuery: new SessionQuery({ registry, storage: store }), renderer });
  return { service, runner, cache, served };
}

/** The answer by an independent pipeline: the in-thread query layer and projection, no pool, no cache. */
async function uncachedText(compression: Compression, ids: readonly string[]): Promise<string> {
  const store = await JsonlSessionStore.open({ root: join(dir, compression), compression });
  const service = new SessionReferenceService({ sessionQuery: new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store }) });
  return textOf(service, ids);
}

async function textOf(service: SessionReferenceService, ids: readonly string[]): Promise<string> {
  const prepared = await service.prepare(
    TARGET,
    [{ type: 'text', text: 'x' }],
    ids.map((sessionId) => ({ sessionId })),
  );
  return JSON.stringify(prepared.additionalContext?.content);
}

describe.each(['none', 'zstd'] as const)('cold preparation with the source cache (%s)', (compression) => {
  it('reads each cold source once and answers a preparation right after it warm, without reading the logs', async () => {
    const cacheDir = join(dir, `cache-twice-${compression}`);
    const { service, runner, cache, served } = await rig(compression, cacheDir);
    const expected = await uncachedText(compression, IDS);
    try {
      expect(await textOf(service, IDS)).toBe(expected);
      // One readSource task per source: no second scan to build the entry.
      expect(runner.tasks).toEqual(['readSource:scan', 'readSource:scan']);
      // The entry files are still being written (flush not awaited): the next preparation is answered from memory.
      expect(await textOf(service, IDS)).toBe(expected);
      expect(runner.tasks).toHaveLength(2);
      expect(served.map((report) => report.served)).toEqual(['cold', 'cold', 'warm', 'warm']);
    } finally {
      await cache.flush();
      await runner.close();
    }
  });

  it('writes entry files of the documented format that a fresh cache reads back to the cold answer', async () => {
    const cacheDir = join(dir, `cache-file-${compression}`);
    const first = await rig(compression, cacheDir);
    const root = join(dir, compression);
    try {
      await textOf(first.service, IDS);
      await first.cache.flush();
    } finally {
      await first.runner.close();
    }
    const names = (await readdir(cacheDir)).filter((name) => name.endsWith('.v2')).sort();
    expect(names).toHaveLength(2);
    const store = await JsonlSessionStore.open({ root, compression });
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
    for (const id of IDS) {
      const path = await store.locate(id as never);
      const key = [compression, root, path, id].join('\u0000');
      const name = `${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}.v2`;
      const text = await readFile(join(cacheDir, name), 'utf8');
      // The format by its definition (README "Source cache"): magic line, SHA-256 of the rest, JSON.
      const [magic, digest] = text.split('\n', 2) as [string, string];
      const payload = text.slice(magic.length + digest.length + 2);
      expect(magic).toBe('sessionctx-source-cache 2');
      expect(digest).toBe(createHash('sha256').update(payload, 'utf8').digest('hex'));
      const record = JSON.parse(payload) as {
        key: string;
        revision: { size: string };
        nodes: Array<{ item: unknown }>;
        provisional: unknown[];
      };
      expect(record.key).toBe(key);
      expect(record.revision.size).toBe(String(statSync(path as string).size));
      // The kept projection is the projection of the stored surface (independent: the query layer's fold).
      const snapshot = await query.readSurface(id as never);
      expect(record.provisional).toEqual([]);
      expect(record.nodes.flatMap((node) => (node.item === null ? [] : [node.item]))).toEqual(projectSurface(snapshot.events));
    }
    const second = await rig(compression, cacheDir);
    try {
      expect(await textOf(second.service, IDS)).toBe(await uncachedText(compression, IDS));
      expect(second.runner.tasks).toEqual([]);
      expect(second.served.map((report) => report.served)).toEqual(['warm', 'warm']);
    } finally {
      await second.runner.close();
    }
  });
});

describe('where cache entries are encoded', () => {
  it('no module of the main thread imports the entry encoder (the worker that scanned the source encodes it)', () => {
    const main = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..'), 'src', 'main');
    const files = (function walk(folder: string): string[] {
      return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
      );
    })(main);
    expect(files.length).toBeGreaterThan(50);
    const encoding = files.filter((file) => /encodeSourceCacheRecord|buildCacheEntry/.test(readFileSync(file, 'utf8')));
    expect(encoding).toEqual([]);
  });
});

// HOST.md §11 optional storage: the domain API of the in-memory and JSON-file storages, storage that arrives
// late (ctx.on('storage/available')), and failures that stay with the plugin.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonFileStorage } from '../../../../src/main/stand-in/host/storage/json-file-storage.js';
import { MemoryStorage } from '../../../../src/main/host-kit/storage/memory-storage.js';
import { PluginStorageError } from '../../../../src/main/host-kit/storage/plugin-storage.js';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import type { PluginContext, PluginStorage } from '../../../../src/main/host-api/host-api.js';

/** Awaits `promise`, expecting a `PluginStorageError` with `code` (and `message` when given). */
async function expectStorageError(promise: Promise<unknown>, code: string, message?: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PluginStorageError);
  expect((error as PluginStorageError).code).toBe(code);
  if (message !== undefined) expect((error as Error).message).toBe(message);
}

const directories: string[] = [];

async function scratchDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'sessionctx-storage-'));
  directories.push(directory);
  return directory;
}

afterEach(async () => {
  while (directories.length > 0) await rm(directories.pop()!, { recursive: true, force: true });
});

/** The domain contract shared by both storages. */
function domainContract(name: string, makeStorage: () => Promise<PluginStorage>): void {
  describe(`${name}: domain contract`, () => {
    it('put / get / list (sorted by key) / close, with fresh JSON copies', async () => {
      const storage = await makeStorage();
      const domain = await storage.open('dcp_stats', { version: 1 });
      expect(await domain.get('missing')).toBeUndefined();
      await domain.put('s-2', { v: 1, n: [1, 2] });
      await domain.put('s-1', 'text');
      await domain.put('__proto__', { odd: true });
      const value = (await domain.get('s-2')) as { n: number[] };
      expect(value).toEqual({ v: 1, n: [1, 2] });
      value.n.push(3);
      expect(await domain.get('s-2')).toEqual({ v: 1, n: [1, 2] });
      expect(await domain.list()).toEqual([
        { key: '__proto__', value: { odd: true } },
        { key: 's-1', value: 'text' },
        { key: 's-2', value: { v: 1, n: [1, 2] } },
      ]);
      await domain.put('s-1', null);
      expect(await domain.get('s-1')).toBeNull();
      await domain.close();
      await domain.close();
      await expectStorageError(domain.get('s-1'), 'HOST_STORAGE_CLOSED', 'storage domain dcp_stats v1 is closed');
      await expectStorageError(domain.put('s-1', 1), 'HOST_STORAGE_CLOSED');
      await expectStorageError(domain.list(), 'HOST_STORAGE_CLOSED');
    });

    it('rejects values that are not JSON and keeps the old value', async () => {
      const domain = await (await makeStorage()).open('d', { version: 1 });
      await domain.put('k', 1);
      await expectStorageError(
        domain.put('k', { when: new Date(0) }),
        'HOST_STORAGE_VALUE',
        'storage domain d v1: the value for key "k" is not JSON',
      );
      await expectStorageError(domain.put('k', Number.NaN), 'HOST_STORAGE_VALUE');
      await expectStorageError(domain.put('k', undefined), 'HOST_STORAGE_VALUE');
      await expectStorageError(domain.put(7 as unknown as string, 1), 'HOST_STORAGE_ARGUMENT');
      expect(await domain.get('k')).toBe(1);
    });

    it('separates versions and shares one domain between handles', async () => {
      const storage = await makeStorage();
      const v1 = await storage.open('d', { version: 1 });
      const again = await storage.open('d', { version: 1 });
      const v2 = await storage.open('d', { version: 2 });
      await v1.put('k', 'one');
      expect(await again.get('k')).toBe('one');
      expect(await v2.get('k')).toBeUndefined();
    });

    it('rejects bad domain names and versions asynchronously', async () => {
      const storage = await makeStorage();
      await expectStorageError(
        storage.open('../escape', { version: 1 }),
        'HOST_STORAGE_ARGUMENT',
        'storage domain name "../escape" must match [A-Za-z0-9][A-Za-z0-9_.-]*',
      );
      await expectStorageError(storage.open('', { version: 1 }), 'HOST_STORAGE_ARGUMENT');
      await expectStorageError(
        storage.open('d', { version: -1 }),
        'HOST_STORAGE_ARGUMENT',
        'storage domain "d" needs a non-negative integer version',
      );
      await expectStorageError(storage.open('d', {} as { version: number }), 'HOST_STORAGE_ARGUMENT');
    });

    it('applies concurrent writes in call order', async () => {
      const domain = await (await makeStorage()).open('d', { version: 1 });
      await Promise.all([domain.put('k', 1), domain.put('k', 2), domain.put('other', 3), domain.put('k', 4)]);
      expect(await domain.list()).toEqual([
        { key: 'k', value: 4 },
        { key: 'other', value: 3 },
      ]);
    });
  });
}

domainContract('MemoryStorage', async () => new MemoryStorage());
domainContract('JsonFileStorage', async () => new JsonFileStorage(join(await scratchDirectory(), 'nested')));

describe('JsonFileStorage files', () => {
  it('persists each domain version in <domain>.v<version>.json and reads it back in a new instance', async () => {
    const directory = await scratchDirectory();
    const first = await new JsonFileStorage(directory).open('dcp_stats', { version: 1 });
    await first.put('b', { n: 1 });
    await first.put('a', [true]);
    const text = await readFile(join(directory, 'dcp_stats.v1.json'), 'utf8');
    expect(JSON.parse(text)).toEqual({
      domain: 'dcp_stats',
      version: 1,
      entries: [
        ['b', { n: 1 }],
        ['a', [true]],
      ],
    });
    const reopened = await new JsonFileStorage(directory).open('dcp_stats', { version: 1 });
    expect(await reopened.list()).toEqual([
      { key: 'a', value: [true] },
      { key: 'b', value: { n: 1 } },
    ]);
  });

  it('an unreadable file rejects open with HOST_STORAGE_IO; a write failure rejects put and keeps the old value', async () => {
    const directory = await scratchDirectory();
    await writeFile(join(directory, 'broken.v1.json'), '{not json', 'utf8');
    await expectStorageError(new JsonFileStorage(directory).open('broken', { version: 1 }), 'HOST_STORAGE_IO');

    // Opened while its directory does not exist yet; then a file takes the directory's place.
    const target = join(directory, 'later');
    const domain = await new JsonFileStorage(target).open('d', { version: 1 });
    await writeFile(target, 'x', 'utf8');
    await expectStorageError(domain.put('k', 1), 'HOST_STORAGE_IO');
    expect(await domain.get('k')).toBeUndefined();
    expect(await domain.list()).toEqual([]);
  });
});

describe('storage in the plugin context (§1, §11)', () => {
  it('may be missing at start; storage/available fires once when it appears, and ctx.storage then reads it', async () => {
    const seen: PluginStorage[] = [];
    let context: PluginContext | undefined;
    const harness = createTestHarness({
      script: [{ text: 'still fine' }],
      plugins: [
        {
          name: 'stats',
          apply: (ctx) => {
            context = ctx;
            expect(ctx.storage).toBeUndefined();
            ctx.on('storage/available', (storage) => {
              seen.push(storage);
            });
          },
        },
      ],
    });
    const storage = new MemoryStorage();
    harness.agent.provideStorage(storage);
    expect(seen).toEqual([storage]);
    expect(context!.storage).toBe(storage);
    const late: PluginStorage[] = [];
    context!.on('storage/available', (value) => {
      late.push(value);
    });
    expect(() => harness.agent.provideStorage(new MemoryStorage())).toThrow('plugin storage is already available');
    expect(seen).toHaveLength(1);
    expect(late).toEqual([]);
    await (await context!.storage!.open('d', { version: 1 })).put('k', 'v');
    harness.prompt('hello');
    await harness.runUntilIdle();
    expect(harness.session.events.map((event) => event.type)).not.toContain('storage');
  });

  it('is there from the start when the host wires it, and storage/available never fires', () => {
    const storage = new MemoryStorage();
    let fired = false;
    let atStart: PluginStorage | undefined;
    createTestHarness({
      storage,
      plugins: [
        {
          name: 'p',
          apply: (ctx) => {
            atStart = ctx.storage;
            ctx.on('storage/available', () => {
              fired = true;
            });
          },
        },
      ],
    });
    expect(atStart).toBe(storage);
    expect(fired).toBe(false);
  });

  it('a failing storage/available listener (throw or rejection) is logged; other listeners run and nothing reaches the host or the loop', async () => {
    const reached: string[] = [];
    const harness = createTestHarness({
      script: [{ text: 'ok' }],
      plugins: [
        {
          name: 'p',
          apply: (ctx) => {
            ctx.on('storage/available', () => {
              throw new Error('sync failure');
            });
            ctx.on('storage/available', async () => {
              throw new Error('async failure');
            });
            ctx.on('storage/available', () => {
              reached.push('third');
            });
          },
        },
      ],
    });
    expect(() => harness.agent.provideStorage(new MemoryStorage())).not.toThrow();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(reached).toEqual(['third']);
    expect(harness.logs.map((line) => [line.level, line.text])).toEqual([
      ['error', 'storage/available listener failed: sync failure'],
      ['error', 'storage/available listener failed: async failure'],
    ]);
    harness.prompt('go');
    await harness.runUntilIdle();
    expect(harness.errors).toEqual([]);
    expect(harness.session.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'completed' } });
  });
});

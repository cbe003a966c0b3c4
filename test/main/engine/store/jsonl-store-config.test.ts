// Store configuration (SESSION-LOG.md §9.1), a missing or empty root, and the encoding detection the CLI
// uses for roots it did not create.
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionLogError } from '../../../../src/protocol/errors.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { detectCompression } from '../../../../src/main/engine/store/detect-compression.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { defaultSessionRoot, resolveJsonlStoreConfig } from '../../../../src/main/engine/store/store-config.js';
import type { JsonlStoreOptions } from '../../../../src/main/engine/store/store-config.js';
import { RAW_ROOT, ZSTD_ROOT } from '../../../support/fixtures.js';
import { EventSequence, expectRejection, makeTempDir, removeTempDir, sessionHeader } from './store-test-builders.js';

let temp: string;
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(temp);
});

/** Asserts that opening with these options fails as an invalid configuration. */
async function expectInvalidConfig(options: JsonlStoreOptions): Promise<void> {
  let thrown: unknown;
  try {
    await JsonlSessionStore.open(options);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SessionLogError);
  expect((thrown as SessionLogError).code).toBe('SESSION_STORE_INVALID_CONFIG');
}

describe('store configuration (§9.1)', () => {
  it('defaults to compression "zstd", packChunks true and a tolerant listing, and resolves the root to an absolute path once', async () => {
    const store = await JsonlSessionStore.open({ root: join(temp, 'sessions') });
    expect(store.config).toEqual({ root: join(temp, 'sessions'), compression: 'zstd', packChunks: true, listing: 'tolerant' });
    expect(resolveJsonlStoreConfig({ root: 'relative/sessions', compression: 'none', packChunks: false, listing: 'strict' })).toEqual({
      root: resolve('relative/sessions'),
      compression: 'none',
      packChunks: false,
      listing: 'strict',
    });
  });

  it('rejects a listing mode other than "strict" or "tolerant" with the key named', async () => {
    for (const listing of ['lenient', '', true, 0]) {
      await expectInvalidConfig({ root: temp, listing: listing as never });
      expect(() => resolveJsonlStoreConfig({ root: temp, listing: listing as never })).toThrow(
        `session store: listing must be "strict" or "tolerant", got ${JSON.stringify(listing)}`,
      );
    }
  });

  it('rootExists tells a missing root from an empty one (both list nothing)', async () => {
    const missing = await JsonlSessionStore.open({ root: join(temp, 'missing', 'sessions') });
    expect(await missing.rootExists()).toBe(false);
    expect(await missing.list()).toEqual([]);
    const empty = await JsonlSessionStore.open({ root: temp });
    expect(await empty.rootExists()).toBe(true);
    expect(await empty.list()).toEqual([]);
  });

  it('rejects an unknown compression, an empty root and a non-boolean packChunks with SESSION_STORE_INVALID_CONFIG', async () => {
    await expectInvalidConfig({ root: temp, compression: 'gzip' as never });
    await expectInvalidConfig({ root: temp, compression: 'raw' as never });
    await expectInvalidConfig({ root: '' });
    await expectInvalidConfig({ root: undefined as never });
    await expectInvalidConfig({ root: temp, packChunks: 'yes' as never });
  });

  it('rejects a root that is an existing file', async () => {
    const file = join(temp, 'not-a-directory');
    await writeFile(file, 'x');
    await expectInvalidConfig({ root: file, compression: 'none' });
    await expectInvalidConfig({ root: file, compression: 'zstd' });
  });

  it.each(['none', 'zstd'] as const)('a missing root (%s) lists nothing and inspect reports the id as not found', async (compression) => {
    const store = await JsonlSessionStore.open({ root: join(temp, 'missing', 'sessions'), compression });
    expect(await store.list()).toEqual([]);
    await expectRejection(store.inspect(asSessionId('a/b')), {
      message: 'session "a/b" not found',
      code: 'SESSION_QUERY_SESSION_NOT_FOUND',
      name: 'Error',
    });
    expect(await store.locate(asSessionId('a/b'))).toBeUndefined();
  });

  it.each(['none', 'zstd'] as const)('an empty root (%s) lists nothing and inspect reports the id as not found', async (compression) => {
    const store = await JsonlSessionStore.open({ root: temp, compression });
    expect(await store.list()).toEqual([]);
    await expectRejection(store.inspect(asSessionId('abc')), {
      message: 'session "abc" not found',
      code: 'SESSION_QUERY_SESSION_NOT_FOUND',
    });
  });

  it('the first create materialises a missing root', async () => {
    const root = join(temp, 'a', 'b', 'sessions');
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const log = new EventSequence();
    const path = await store.create(sessionHeader('s1', '/w'), log.closedTurn(1, 'hi', ['a']));
    expect(path).toBe(join(root, '--w--', 's1', 'session.jsonl'));
    expect((await store.list()).map((header) => header.id)).toEqual(['s1']);
  });
});

describe('defaultSessionRoot', () => {
  it('is $DSH_HOME/sessions, with DSH_HOME defaulting to ~/.dsh and a relative DSH_HOME taken from the working directory', () => {
    expect(defaultSessionRoot({ DSH_HOME: '/opt/dsh' })).toBe('/opt/dsh/sessions');
    expect(defaultSessionRoot({})).toBe(join(homedir(), '.dsh', 'sessions'));
    expect(defaultSessionRoot({ DSH_HOME: '' })).toBe(join(homedir(), '.dsh', 'sessions'));
    expect(defaultSessionRoot({ DSH_HOME: 'rel/home' })).toBe(resolve('rel/home', 'sessions'));
  });
});

describe('detectCompression', () => {
  it('reports the fixture roots: raw → "none", zstd → "zstd"', async () => {
    expect(await detectCompression(RAW_ROOT)).toBe('none');
    expect(await detectCompression(ZSTD_ROOT)).toBe('zstd');
  });

  it('reports roots written by the store, and "zstd" for an empty, missing or artifact-less root', async () => {
    const raw = join(temp, 'raw');
    const zstd = join(temp, 'zstd');
    await (await JsonlSessionStore.open({ root: raw, compression: 'none' })).create(sessionHeader('r'));
    await (await JsonlSessionStore.open({ root: zstd, compression: 'zstd' })).create(sessionHeader('z', '/p'));
    expect(await detectCompression(raw)).toBe('none');
    expect(await detectCompression(zstd)).toBe('zstd');
    const empty = join(temp, 'empty');
    await mkdir(join(empty, '--p--', 'no-artifact'), { recursive: true });
    await writeFile(join(empty, 'session.jsonl'), '');
    expect(await detectCompression(empty)).toBe('zstd');
    expect(await detectCompression(join(temp, 'missing'))).toBe('zstd');
  });
});

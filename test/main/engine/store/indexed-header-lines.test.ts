/**
 * The listing recalls an unchanged artifact's header from the title index (issue 26 start-up, issue 27 at scale): a
 * store in a fresh process over a root the index has scanned lists every dsh-written session without reading one
 * header (no open, no Zstandard frame decoded), with exactly the headers a listing that reads them gives; an artifact
 * whose revision moved since the index scanned it is read again and listed as it now is.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { fixtureSessions, RAW_ROOT, ZSTD_ROOT } from '../../../support/fixtures.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-indexed-headers-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Opens a store over `root` with its title index in `cache`, scans every title and writes the index. */
async function indexedStore(root: string, compression: Compression, cache: string): Promise<string> {
  const store = await JsonlSessionStore.open({ root, compression, cacheDirectory: cache });
  const listing = await store.list();
  for (const header of listing) await store.inspectTitle(header.id);
  await store.flushTitleIndex();
  return JSON.stringify(listing);
}

describe('listed headers recalled from the title index', () => {
  for (const [compression, root] of [
    ['none', RAW_ROOT],
    ['zstd', ZSTD_ROOT],
  ] as const) {
    it(`a fresh store lists the ${compression} fixture root without reading a header, as reading them lists it`, async () => {
      const cache = join(dir, `cache-${compression}`);
      const expected = await indexedStore(root, compression, cache);
      const fresh = await JsonlSessionStore.open({ root, compression, cacheDirectory: cache });
      expect(JSON.stringify(await fresh.list())).toBe(expected);
      expect(fresh.listedHeaderIndexHits).toBe(fixtureSessions().length);
      // The definition: a store that reads every header.
      const reading = await JsonlSessionStore.open({ root, compression, titleIndex: false });
      expect(JSON.stringify(await reading.list())).toBe(expected);
    });
  }

  it('an artifact rewritten since the index scanned it is read again and listed with its new header', async () => {
    const root = join(dir, 'rewritten');
    await cp(RAW_ROOT, root, { recursive: true });
    const cache = join(dir, 'cache-rewritten');
    await indexedStore(root, 'none', cache);
    const [changed] = fixtureSessions();
    if (changed === undefined) throw new Error('no fixture session');
    const path = join(root, changed.projectDir, changed.id, 'session.jsonl');
    const text = await readFile(path, 'utf8');
    const rewritten = text.replace(/"createdAt":(\d)/, (_match, digit: string) => `"createdAt":${digit === '9' ? '8' : '9'}`);
    expect(rewritten).not.toBe(text);
    await writeFile(path, rewritten);
    const fresh = await JsonlSessionStore.open({ root, compression: 'none', cacheDirectory: cache });
    const listed = await fresh.list();
    const reading = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
    expect(JSON.stringify(listed)).toBe(JSON.stringify(await reading.list()));
    expect(listed.find((header) => header.id === changed.id)?.createdAt).toBe(
      JSON.parse(rewritten.slice(0, rewritten.indexOf('\n'))).createdAt,
    );
    expect(fresh.listedHeaderIndexHits).toBe(fixtureSessions().length - 1);
  });
});

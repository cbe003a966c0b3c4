/**
 * SESSION-REFERENCE.md §15 item 97 (SESSION-LOG.md §10.7, SESSION-REFERENCE.md §7.5): an unchanged log is
 * answered with one `stat` and no read, also by a new store that loads the persisted index; appending one line
 * to a 50 MB log reads less than 1 MiB of it. Reads are counted through the index's file-system layer. Through the
 * query layer that one `stat` is the listing's (the call's own listing hands its revisions to the title lookup),
 * so the index itself stats nothing; a lookup without that listing stats the file.
 */
import { appendFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../../src/protocol/events.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import { artifactPathFor } from '../../../../../src/io/artifact-path.js';
import { noiseText } from '../../store/store-test-builders.js';
import { appendLines, batchFileBytes, CountingFs, expectSameTitles, openPair, removeTempDirs, tempDir } from './title-index-harness.js';

afterAll(removeTempDirs);

const T0 = 1_767_225_600_000;
const MiB = 1024 * 1024;

function titleLine(seq: number, title: string): string {
  return JSON.stringify({ type: 'session/title', seq, time: T0 + seq, data: { title, messageSeqs: [0], source: { kind: 'user' } } });
}

/** A closed turn of `count` events (a prompt, chunks, a title, the end), as lines. */
function turnLines(count: number, textLength: number, seed: number): string[] {
  const lines = [
    JSON.stringify({ type: 'turn/start', seq: 0, time: T0, data: { turn: 1 } }),
    JSON.stringify({
      type: 'user/message',
      seq: 1,
      time: T0,
      data: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } },
      surfaceOp: 'append',
    }),
  ];
  for (let seq = 2; seq < count - 2; seq++) {
    lines.push(
      JSON.stringify({
        type: 'assistant/chunk',
        seq,
        time: T0 + seq,
        data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: noiseText(textLength, seed + seq) } },
      }),
    );
  }
  lines.push(titleLine(count - 2, 'first title'));
  lines.push(JSON.stringify({ type: 'turn/end', seq: count - 1, time: T0 + count, data: { turn: 1, reason: { kind: 'completed' } } }));
  return lines;
}

describe.each(['none', 'zstd'] as const)('item 97: title index cost (%s)', (compression: Compression) => {
  it('uses only the revisions of the listing it is given: a later append is seen by a fresh listing or none, never hidden', async () => {
    const root = join(await tempDir(), 'sessions');
    const pair = await openPair(root, compression);
    const header = { version: 0, id: asSessionId('s-revision'), createdAt: T0, cwd: '/w' } as SessionHeader;
    const path = await pair.full.create(header);
    await appendLines(path, turnLines(10, 20, 7), compression);
    await expectSameTitles(pair, [header.id], 'first');
    const listing = await pair.indexed.list();
    await appendLines(path, [titleLine(10, 'second title')], compression);
    // With the listing taken before the append: the observation that listing saw (as if taken then).
    const atListing = await pair.indexed.inspectTitle(header.id, undefined, listing);
    expect((atListing.events.at(-1)?.data as { title: string }).title).toBe('first title');
    // Without a listing, or with a listing this store never returned: the file as it is now.
    for (const foreign of [undefined, [...listing]]) {
      const now = await pair.indexed.inspectTitle(header.id, undefined, foreign);
      expect((now.events.at(-1)?.data as { title: string }).title).toBe('second title');
    }
    // A query call lists again, so it sees the append.
    const [fresh] = await expectSameTitles(pair, [header.id], 'after append');
    expect(fresh).toMatchObject({ status: 'fulfilled', value: { title: { title: 'second title' } } });
  });

  it("an unchanged log costs the listing's stat and no read, in this store and in a new one loading the index file", async () => {
    const root = join(await tempDir(), 'sessions');
    const fs = new CountingFs();
    const pair = await openPair(root, compression, { titleIndexFs: fs });
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const header = { version: 0, id: asSessionId(`s${index}`), createdAt: T0 + index, cwd: '/w' } as SessionHeader;
      const path = await pair.full.create(header);
      await appendLines(path, turnLines(20, 50, index * 100), compression);
      ids.push(header.id);
    }
    await expectSameTitles(pair, ids, 'first observation');
    expect(pair.indexed.titleIndexStats?.full).toBe(5);
    await pair.indexed.flushTitleIndex();

    fs.reset();
    const again = await expectSameTitles(pair, ids, 'unchanged');
    expect(again.every((observation) => observation.status === 'fulfilled')).toBe(true);
    for (const id of ids) {
      const path = artifactPathFor(pair.indexed.config, id, '/w');
      expect(fs.of(path), id).toEqual({ stats: 0, reads: 0, bytesRead: 0 });
    }
    expect(pair.indexed.titleIndexStats?.statOnly).toBe(5);

    // A lookup that is not part of a query call (no listing of its own) stats the file once and reads nothing.
    fs.reset();
    await pair.indexed.inspectTitle(asSessionId(ids[0]!));
    expect(fs.of(artifactPathFor(pair.indexed.config, ids[0]!, '/w'))).toEqual({ stats: 1, reads: 0, bytesRead: 0 });

    const reloadedFs = new CountingFs();
    const reloaded = await openPair(root, compression, { titleIndexFs: reloadedFs });
    await expectSameTitles(reloaded, ids, 'new store, persisted index');
    for (const id of ids) {
      expect(reloadedFs.of(artifactPathFor(reloaded.indexed.config, id, '/w')), id).toEqual({ stats: 0, reads: 0, bytesRead: 0 });
    }
    expect(reloaded.indexed.titleIndexStats).toEqual({
      statOnly: 5,
      incremental: 0,
      full: 0,
      unavailable: 0,
      discarded: 0,
      discardedFiles: 0,
    });
  });

  it('appending one line to a 50 MB log reads less than 1 MiB and finds the new title', async () => {
    const root = join(await tempDir(), 'sessions');
    const fs = new CountingFs();
    const pair = await openPair(root, compression, { titleIndexFs: fs });
    const header = { version: 0, id: asSessionId('big'), createdAt: T0, cwd: '/w' } as SessionHeader;
    const path = await pair.full.create(header);
    // 50 MB of hard-to-compress chunk lines (base64 noise packs to 3/4 in zstd), written in batches of about
    // 1 MB (one frame each in zstd mode).
    const count = compression === 'none' ? 50_000 : 68_000;
    const lines = turnLines(count, 1000, 7);
    const body = lines.slice(0, -2);
    for (let from = 0; from < body.length; from += 1000) {
      await appendFile(
        path,
        await batchFileBytes(
          body
            .slice(from, from + 1000)
            .map((line) => `${line}\n`)
            .join(''),
          compression,
        ),
      );
    }
    await appendLines(path, lines.slice(-2), compression);
    const size = (await fs.statRevision(path)).size;
    expect(Number(size)).toBeGreaterThan(50_000_000);

    const [first] = await expectSameTitles(pair, ['big'], 'first observation');
    expect(first?.status === 'fulfilled' && first.value.title?.title).toBe('first title');
    expect(fs.of(path).bytesRead).toBe(Number(size));

    await appendLines(path, [titleLine(count, 'appended title')], compression);
    fs.reset();
    const [second] = await expectSameTitles(pair, ['big'], 'after one appended line');
    expect(second?.status === 'fulfilled' && second.value.title?.title).toBe('appended title');
    expect(fs.of(path).bytesRead).toBeGreaterThan(0);
    expect(fs.of(path).bytesRead).toBeLessThan(MiB);
    expect(pair.indexed.titleIndexStats?.incremental).toBe(1);
  });

  it('the index file is written under the cache directory, nothing is added to the root, and listing is unaffected', async () => {
    const root = join(await tempDir(), 'sessions');
    const cacheHome = await tempDir('sessionctx-own-cache-');
    const pair = await openPair(root, compression, { env: { XDG_CACHE_HOME: cacheHome } });
    const header = { version: 0, id: asSessionId('plain'), createdAt: T0 } as SessionHeader;
    await pair.full.create(header);
    const before = await readdir(root);
    await expectSameTitles(pair, ['plain'], 'first observation');
    await pair.indexed.flushTitleIndex();
    // <XDG_CACHE_HOME>/sessionctx/title-index/<16 hex>.v1, written independently of the code under test's naming.
    const indexDir = join(cacheHome, 'sessionctx', 'title-index');
    expect(await readdir(indexDir)).toEqual([expect.stringMatching(/^[0-9a-f]{16}\.v1$/u)]);
    expect(pair.indexed.titleIndexPath).toBe(join(indexDir, (await readdir(indexDir))[0] as string));
    expect((await stat(pair.indexed.titleIndexPath as string)).isFile()).toBe(true);
    expect(await readdir(root)).toEqual(before);
    expect((await pair.indexedQuery.listSessions()).map((record) => record.header.id)).toEqual(['plain']);
    expect(pair.indexed.titleIndexStats?.full).toBe(1);
  });
});

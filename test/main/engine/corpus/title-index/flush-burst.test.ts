/**
 * SESSION-LOG.md §10.7 (persisting the index) at the cost of SESSION-REFERENCE.md §7.5: a burst of title
 * observations is persisted with one write of the index file, `flush()` writes at once, an unflushed burst
 * still reaches the file on its own, and observations that change nothing never rewrite it.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../../src/protocol/events.js';
import { TITLE_INDEX_FLUSH_MAX_DELAY_MS } from '../../../../../src/main/engine/corpus/title-index/title-index.js';
import { CountingFs, appendLines, expectSameTitles, openPair, readIndexEntries, removeTempDirs, tempDir } from './title-index-harness.js';

afterAll(removeTempDirs);

const T0 = 1_767_225_600_000;
const SESSIONS = 40;

/** Counts whole-file replacements of the index file. */
class WriteCountingFs extends CountingFs {
  writes = 0;

  override replaceFile(path: string, content: Uint8Array | readonly Uint8Array[]): Promise<void> {
    this.writes += 1;
    return super.replaceFile(path, content);
  }
}

async function corpus(): Promise<{ root: string; ids: string[] }> {
  const root = join(await tempDir(), 'sessions');
  const { full } = await openPair(root, 'none');
  const ids: string[] = [];
  for (let index = 0; index < SESSIONS; index++) {
    const id = `burst-${index}`;
    const path = await full.create({ version: 0, id: asSessionId(id), createdAt: T0 + index, cwd: '/w' } as SessionHeader);
    await appendLines(
      path,
      [
        JSON.stringify({
          type: 'session/title',
          seq: 0,
          time: T0,
          data: { title: `t ${index}`, messageSeqs: [], source: { kind: 'user' } },
        }),
      ],
      'none',
    );
    ids.push(id);
  }
  return { root, ids };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('title index writes', () => {
  it('a burst of observations is written once, by flush(), holding every entry', async () => {
    const { root, ids } = await corpus();
    const fs = new WriteCountingFs();
    const pair = await openPair(root, 'none', { titleIndexFs: fs });
    await expectSameTitles(pair, ids, 'burst');
    expect(pair.indexed.titleIndexStats?.full).toBe(SESSIONS);
    await pair.indexed.flushTitleIndex();
    expect(fs.writes).toBe(1);
    expect((await readIndexEntries(root))?.size).toBe(SESSIONS);
  });

  it('an unflushed burst reaches the file on its own, in one write', async () => {
    const { root, ids } = await corpus();
    const fs = new WriteCountingFs();
    const pair = await openPair(root, 'none', { titleIndexFs: fs });
    await expectSameTitles(pair, ids, 'burst');
    const deadline = Date.now() + TITLE_INDEX_FLUSH_MAX_DELAY_MS + 2_000;
    while (fs.writes === 0 && Date.now() < deadline) await sleep(10);
    await sleep(200);
    expect(fs.writes).toBe(1);
    expect((await readIndexEntries(root))?.size).toBe(SESSIONS);
  });

  it('observations answered from unchanged entries never rewrite the file', async () => {
    const { root, ids } = await corpus();
    const fs = new WriteCountingFs();
    const pair = await openPair(root, 'none', { titleIndexFs: fs });
    await expectSameTitles(pair, ids, 'build');
    await pair.indexed.flushTitleIndex();
    await expectSameTitles(pair, ids, 'warm');
    await expectSameTitles(pair, ids, 'warm again');
    expect(pair.indexed.titleIndexStats?.statOnly).toBe(2 * SESSIONS);
    await pair.indexed.flushTitleIndex();
    await sleep(200);
    expect(fs.writes).toBe(1);
  });
});

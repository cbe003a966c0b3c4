/**
 * SESSION-LOG.md §10.7 (persisting the index) at the cost of SESSION-REFERENCE.md §7.5: a burst of title
 * observations is persisted with one write of the index file, `flush()` writes at once, an unflushed burst
 * still reaches the file on its own (not while a call is in progress on the thread, within the same maximum delay),
 * and observations that change nothing never rewrite it.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../../src/protocol/events.js';
import {
  TITLE_INDEX_FLUSH_MAX_DELAY_MS,
  TITLE_INDEX_WRITE_SPACING,
} from '../../../../../src/main/engine/corpus/title-index/title-index.js';
import { asForegroundCall } from '../../../../../src/io/foreground-calls.js';
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

/** Waits until the index file was replaced once (or `ms` passed), then for the replace to finish. */
async function untilWritten(fs: WriteCountingFs, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (fs.writes === 0 && Date.now() < deadline) await sleep(10);
  await sleep(200);
}

/** A corpus whose every title is observed while a call is in progress; `endCall` ends the call. */
async function burstDuringCall(): Promise<{
  root: string;
  fs: WriteCountingFs;
  pair: Awaited<ReturnType<typeof openPair>>;
  endCall: () => Promise<void>;
}> {
  const { root, ids } = await corpus();
  const fs = new WriteCountingFs();
  const pair = await openPair(root, 'none', { titleIndexFs: fs });
  let end: () => void = () => {};
  const call = asForegroundCall(() => new Promise<void>((resolve) => (end = resolve)));
  await expectSameTitles(pair, ids, 'burst');
  return {
    root,
    fs,
    pair,
    endCall: async () => {
      end();
      await call;
    },
  };
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
    await untilWritten(fs, TITLE_INDEX_FLUSH_MAX_DELAY_MS + 2_000);
    expect(fs.writes).toBe(1);
    expect((await readIndexEntries(root))?.size).toBe(SESSIONS);
  });

  it('an unflushed write waits while a call is in progress on the thread', async () => {
    // The first query after changes shared the thread with the write its own observations started (issue 27).
    const { root, fs, endCall } = await burstDuringCall();
    // Several quiet periods pass: no write while the call is in progress.
    await sleep(400);
    expect(fs.writes).toBe(0);
    await endCall();
    await untilWritten(fs, TITLE_INDEX_FLUSH_MAX_DELAY_MS);
    expect(fs.writes).toBe(1);
    expect((await readIndexEntries(root))?.size).toBe(SESSIONS);
  });

  it('flush() writes at once while a call is in progress', async () => {
    const { fs, pair, endCall } = await burstDuringCall();
    await pair.indexed.flushTitleIndex();
    expect(fs.writes).toBe(1);
    await endCall();
  });

  it('a write held back by a call that does not end starts within the maximum delay', async () => {
    const started = Date.now();
    const { fs, endCall } = await burstDuringCall();
    await untilWritten(fs, started + TITLE_INDEX_FLUSH_MAX_DELAY_MS + 2_000 - Date.now());
    expect(fs.writes).toBe(1);
    await endCall();
  });

  it('a trickle of observations with quiet moments between is written in spaced writes, not one per quiet moment', async () => {
    // A fleet publish reads titles batch by batch: each batch's observations, then a pause (its database writes) longer
    // than the quiet period. Every write re-encodes the whole index, so one per pause was quadratic in the root's size.
    const { root, ids } = await corpus();
    const WRITE_MS = 60;
    const fs = new (class extends WriteCountingFs {
      override async replaceFile(path: string, content: Uint8Array | readonly Uint8Array[]): Promise<void> {
        await sleep(WRITE_MS); // a slow disk: each write takes WRITE_MS
        return super.replaceFile(path, content);
      }
    })();
    const pair = await openPair(root, 'none', { titleIndexFs: fs });
    const BATCHES = 10;
    const perBatch = SESSIONS / BATCHES;
    for (let batch = 0; batch < BATCHES; batch += 1) {
      await expectSameTitles(pair, ids.slice(batch * perBatch, (batch + 1) * perBatch), `batch ${batch}`);
      await sleep(120); // longer than the quiet period, shorter than a write's spacing
    }
    // Ten pauses of 120 ms (1.2 s) hold far fewer writes than pauses; each write is followed by WRITE_SPACING × its
    // duration (≥ 540 ms) without another.
    const spacing = TITLE_INDEX_WRITE_SPACING * WRITE_MS;
    expect(fs.writes).toBeGreaterThanOrEqual(1);
    expect(fs.writes).toBeLessThanOrEqual(Math.ceil((BATCHES * 120) / spacing) + 1);
    // flush() does not wait for the spacing, and the file then holds every entry.
    const flushed = Date.now();
    await pair.indexed.flushTitleIndex();
    expect(Date.now() - flushed).toBeLessThan(spacing);
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

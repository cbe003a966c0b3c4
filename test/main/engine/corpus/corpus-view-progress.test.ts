/**
 * The warm corpus view's cold build reports its progress (issue 27 item 3) as the store's listing does: every
 * session directory of the walk, from 0 to all, then nothing more for warm calls.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CorpusView } from '../../../../src/main/engine/corpus/corpus-view.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { ListingProgress } from '../../../../src/main/engine/store/listing-progress.js';
import { writeDshCorpus } from '../../../../bench/support/dsh-corpus.js';

const SESSIONS = 180;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-view-progress-'));
  await writeDshCorpus(join(dir, 'root'), { sessions: SESSIONS, projects: 9 }, 'zstd');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('reports the first build from 0 to every session directory, and no progress for a warm call', async () => {
  const store = await JsonlSessionStore.open({ root: join(dir, 'root'), compression: 'zstd', titleIndex: false });
  const reports: ListingProgress[] = [];
  const view = new CorpusView({ config: store.config, revalidateMs: 60_000, onProgress: (progress) => reports.push(progress) });
  try {
    const first = await view.current();
    expect(first.served).toBe('cold');
    expect(first.snapshot.headers.length).toBe(SESSIONS);
    expect(reports[0]).toEqual({ checked: 0, total: SESSIONS });
    expect(reports.at(-1)).toEqual({ checked: SESSIONS, total: SESSIONS });
    for (let index = 1; index < reports.length; index += 1)
      expect((reports[index] as ListingProgress).checked).toBeGreaterThan((reports[index - 1] as ListingProgress).checked);
    expect(reports.length).toBeGreaterThan(10);
    const count = reports.length;
    expect((await view.current()).served).toBe('warm');
    expect(reports.length).toBe(count);
  } finally {
    await view.close();
  }
});

/**
 * Progress of a cold listing (issue 27 item 3): a listing reports how many session directories it checked of those
 * its walk found — once at the start, then as it goes, and once at the end — to a per-call listener or to the store's
 * `onListingProgress`; a listener that throws does not fail the listing.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { ListingProgress } from '../../../../src/main/engine/store/listing-progress.js';
import { writeDshCorpus } from '../../../../bench/support/dsh-corpus.js';
import { makeTempDir, removeTempDir } from './store-test-builders.js';

const SESSIONS = 250;
/** One session directory without an artifact: walked and checked, not listed. */
const EMPTY_DIRECTORIES = 1;

let dir: string;
let root: string;
beforeAll(async () => {
  dir = await makeTempDir();
  root = join(dir, 'root');
  await writeDshCorpus(root, { sessions: SESSIONS, projects: 7 }, 'none');
  await mkdir(join(root, '_no-cwd', 'not-a-session-yet'), { recursive: true });
});
afterAll(async () => {
  await removeTempDir(dir);
});

/** The reports' shape every listing must have: from 0 to all, never backwards, one total. */
function expectWellFormed(reports: readonly ListingProgress[], total: number): void {
  expect(reports[0]).toEqual({ checked: 0, total });
  expect(reports.at(-1)).toEqual({ checked: total, total });
  for (let index = 1; index < reports.length; index += 1) {
    expect((reports[index] as ListingProgress).checked).toBeGreaterThan((reports[index - 1] as ListingProgress).checked);
    expect((reports[index] as ListingProgress).total).toBe(total);
  }
  // Streamed, not only a start and an end (about every 1%), yet bounded whatever the size.
  expect(reports.length).toBeGreaterThan(10);
  expect(reports.length).toBeLessThanOrEqual(102);
}

describe.each(['tolerant', 'strict'] as const)('a %s listing', (listing) => {
  it('reports every session directory it checks, from the start to the end, through a per-call listener', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none', listing, titleIndex: false });
    const reports: ListingProgress[] = [];
    const report = await store.listReport(undefined, (progress) => reports.push(progress));
    expect(report.headers.length).toBe(SESSIONS);
    expectWellFormed(reports, SESSIONS + EMPTY_DIRECTORIES);
  });

  it("reports to the store's onListingProgress, and a listener that throws does not fail the listing", async () => {
    const reports: ListingProgress[] = [];
    const store = await JsonlSessionStore.open({
      root,
      compression: 'none',
      listing,
      titleIndex: false,
      onListingProgress: (progress) => {
        reports.push(progress);
        throw new Error('the terminal went away');
      },
    });
    expect((await store.list()).length).toBe(SESSIONS);
    expectWellFormed(reports, SESSIONS + EMPTY_DIRECTORIES);
  });
});

it('refuses an onListingProgress that is not a function', async () => {
  await expect(
    JsonlSessionStore.open({ root, compression: 'none', onListingProgress: 'yes' as unknown as () => void }),
  ).rejects.toMatchObject({ code: 'SESSION_STORE_INVALID_CONFIG' });
});

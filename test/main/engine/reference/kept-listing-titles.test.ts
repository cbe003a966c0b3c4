/**
 * Exact title reads in a long-lived engine (issue 27, a regression of the kept listing): since the warm corpus view
 * answers whether an id is listed, the store had no listing of its own to find each artifact in, and looked every id
 * up — a `stat` in every project directory per title (5,000 titles over 400 projects: 140 s instead of 3.5 s in the
 * `budget` bench). The view now vouches for where it found each id; the titles must stay what the exact path reads.
 */
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { asSessionId, type SessionEvent } from '../../../../src/protocol/events.js';
import { header, userEvent } from './reference-builders.js';

const PROJECTS = 40;
const T0 = 1_767_225_600_000;

let dir: string;
let root: string;
let exact: LocalSessionEngine;
let kept: LocalSessionEngine;
const ids: string[] = [];

/** A titled session: a user message, then its title. */
function titled(index: number): SessionEvent[] {
  return [
    userEvent(0, `message ${index}`),
    { type: 'session/title', seq: 1, time: T0 + 1, data: { title: `title ${index}`, messageSeqs: [0], source: { kind: 'user' } } },
  ] as SessionEvent[];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-kept-titles-'));
  root = join(dir, 'root');
  const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
  for (let index = 0; index < PROJECTS; index += 1) {
    const id = `titled-${String(index).padStart(2, '0')}`;
    await store.create(header(id, T0 + index, `/projects/p${index}`), titled(index));
    ids.push(id);
  }
  const common = { root, compression: 'none' as const, sourceCache: false as const, workers: false };
  exact = await createEngine({ ...common, corpus: { watch: false }, store: { cacheDirectory: join(dir, 'cache-exact') } });
  kept = await createEngine({ ...common, corpus: { watch: true }, store: { cacheDirectory: join(dir, 'cache-kept') } });
});

afterAll(async () => {
  await exact?.close();
  await kept?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `work` counting the `stat` calls of the process (every file-system path of the store looks `fs.stat` up). */
async function countingStats<T>(work: () => Promise<T>): Promise<{ value: T; stats: number }> {
  const original = fs.stat;
  let stats = 0;
  fs.stat = ((...args: Parameters<typeof fs.stat>) => {
    stats += 1;
    return (original as (...inner: unknown[]) => void)(...args);
  }) as typeof fs.stat;
  try {
    return { value: await work(), stats };
  } finally {
    fs.stat = original;
  }
}

describe('exact title reads beside a warm corpus view', () => {
  it("read every listed session's title as the exact path does, without looking each id up in every project", async () => {
    await kept.listSessions(); // the view's first build
    const wanted = ids.map((id) => asSessionId(id));
    const { value, stats } = await countingStats(() => kept.readTitleSnapshots(wanted));
    expect(JSON.stringify(value)).toBe(JSON.stringify(await exact.readTitleSnapshots(wanted)));
    expect(value.map((observation) => (observation.status === 'fulfilled' ? observation.value.title?.title : 'failed'))).toEqual(
      ids.map((_, index) => `title ${index}`),
    );
    // A lookup by id stats every project directory: PROJECTS per title. Where the view found it: a few per title.
    expect(stats).toBeLessThan(ids.length * 4);
  });
});

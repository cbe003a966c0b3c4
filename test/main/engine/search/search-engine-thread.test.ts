// engine.searchSessions through the engine thread (engine-rpc.ts): the same page as the in-process engine, a typed
// failure keeps its name and code across the thread, and an abort rejects with the caller's own reason.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { createEngineThread } from '../../../../src/main/engine/assembly/engine-thread.js';
import { RAW_ROOT } from '../../../support/fixtures.js';

let dir: string;
let root: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-search-thread-'));
  root = join(dir, 'root');
  cpSync(RAW_ROOT, root, { recursive: true });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

describe('searchSessions on the engine thread', () => {
  it('answers what the in-process engine answers; failures keep their code; an abort rejects with its reason', async () => {
    const options = { root, workers: false, corpus: { watch: false }, search: { directory: join(dir, 'search') } } as const;
    const local = await createEngine(options);
    const expected = await local.searchSessions({ query: 'file watcher', limit: 5 });
    await local.close();
    const thread = await createEngineThread(options);
    try {
      expect(await thread.searchSessions({ query: 'file watcher', limit: 5 })).toEqual(expected);
      await expect(thread.searchSessions({ query: '' })).rejects.toMatchObject({ name: 'SearchError', code: 'SEARCH_INVALID_QUERY' });
      const controller = new AbortController();
      const reason = new Error('stop now');
      const pending = thread.searchSessions({ query: 'the' }, controller.signal);
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect((await thread.searchSessions({ query: 'file watcher', limit: 5 })).results.length).toBe(expected.results.length);
    } finally {
      await thread.close();
    }
  });
});

// `startSearchWorker` (what `mcp` and `serve` set): the search thread starts with the engine, searches answer as
// usual, and the started thread neither keeps an idle process alive nor outlives `engine.close()`. And the prestart
// the executable does for `sessionctx search` (issue 27): the first search index adopts the waiting thread (no
// second one), and a thread nobody adopts keeps no process alive.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModuleProcess } from '../../../support/module-process.js';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { CorpusSession, writeSession } from './search-corpus.js';

let dir: string;
let root: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-start-'));
  root = join(dir, 'root');
  const session = new CorpusSession('started-0', '/work/start');
  session.turn('a prompt about echidnas', 'an answer');
  await writeSession(root, session, 'none');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

describe('starting the search worker with the engine', () => {
  it('answers searches and closes', async () => {
    const engine = await createEngine({
      root,
      compression: 'none',
      workers: false,
      startSearchWorker: true,
      search: { directory: join(dir, 's1') },
    });
    try {
      expect((await engine.searchSessions({ query: 'echidnas' })).results.map((result) => result.sessionId)).toEqual(['started-0']);
    } finally {
      await engine.close();
    }
  });

  it('starts a thread at engine creation that does not keep an idle process alive', async () => {
    const engineUrl = pathToFileURL(
      join(import.meta.dirname, '..', '..', '..', '..', 'src', 'main', 'engine', 'assembly', 'create-engine.js'),
    ).href;
    // No close(): the watches are the engine's to release, so the warm view is off; the search thread must not hold
    // the process. The thread itself is seen in /proc: one engine without the option, then one with it.
    const options = (name: string, start: boolean): string =>
      `{ root: ${JSON.stringify(root)}, compression: 'none', workers: false, corpus: { watch: false }, startSearchWorker: ${start}, search: { directory: ${JSON.stringify(join(dir, name))} } }`;
    const source = `
      import { readdirSync } from 'node:fs';
      import { createEngine } from ${JSON.stringify(engineUrl)};
      const threads = () => readdirSync('/proc/self/task').length;
      const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
      await createEngine(${options('s2', false)});
      await settle();
      const before = threads();
      await createEngine(${options('s3', true)});
      await settle();
      if (threads() <= before) process.exitCode = 3;
    `;
    expect(await runModuleProcess(source, 20_000)).toBe(0);
  });

  const threadUrl = (): string =>
    pathToFileURL(join(import.meta.dirname, '..', '..', '..', '..', 'src', 'main', 'engine', 'search', 'search-worker-thread.js')).href;
  const engineUrl = (): string =>
    pathToFileURL(join(import.meta.dirname, '..', '..', '..', '..', 'src', 'main', 'engine', 'assembly', 'create-engine.js')).href;

  it('a prestarted thread is adopted by the first search: the same answers, no second thread', async () => {
    const source = `
      import { readdirSync } from 'node:fs';
      import { prestartSearchWorker, takePrestartedSearchWorker } from ${JSON.stringify(threadUrl())};
      import { createEngine } from ${JSON.stringify(engineUrl())};
      const threads = () => readdirSync('/proc/self/task').length;
      const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
      prestartSearchWorker();
      await settle();
      const withPrestarted = threads();
      const engine = await createEngine({ root: ${JSON.stringify(root)}, compression: 'none', workers: false, corpus: { watch: false }, search: { directory: ${JSON.stringify(join(dir, 's4'))} } });
      const found = (await engine.searchSessions({ query: 'echidnas' })).results.map((result) => result.sessionId);
      const afterSearch = threads();
      await engine.close();
      if (JSON.stringify(found) !== '["started-0"]') process.exitCode = 3;
      else if (afterSearch > withPrestarted) process.exitCode = 4;
      else if (takePrestartedSearchWorker() !== undefined) process.exitCode = 5;
    `;
    expect(await runModuleProcess(source, 20_000)).toBe(0);
  });

  it('a prestarted thread nobody adopts keeps no process alive', async () => {
    const source = `
      import { prestartSearchWorker } from ${JSON.stringify(threadUrl())};
      prestartSearchWorker();
      prestartSearchWorker();
    `;
    expect(await runModuleProcess(source, 20_000)).toBe(0);
  });
});

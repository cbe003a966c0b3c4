/**
 * `close()` ends every write of the engine: the title index's deferred write (a quiet period after the last
 * observation) used to run after `close()` resolved, so a caller that removed its cache directory right after
 * closing found it written again (hundreds of `cache/title-index` directories left under the test temp dir).
 */
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { TITLE_INDEX_FLUSH_QUIET_MS } from '../../../../src/main/engine/corpus/title-index/title-index.js';
import { RandomRoot, TARGET } from '../corpus/warm-view-harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-close-settles-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

describe('engine close and the title index', () => {
  it('writes the observed titles before close() resolves and nothing after it', async () => {
    const random = await RandomRoot.open(join(dir, 'root'), 'none');
    for (let index = 0; index < 3; index += 1) await random.apply({ kind: 'create', cwd: index % 2, titled: true, createdAt: index }, []);
    const cacheDirectory = join(dir, 'cache');
    const engine = await createEngine({ root: random.root, compression: 'none', workers: false, store: { cacheDirectory } });
    const candidates = await engine.listCandidates(TARGET, '', 10);
    expect(candidates.length).toBe(3);
    await engine.close();
    // The write the titles' observation scheduled is done: the index file is there the moment close() resolves.
    expect(await readdir(join(cacheDirectory, 'title-index'))).toHaveLength(1);
    await rm(cacheDirectory, { recursive: true, force: true });
    await new Promise((resolve) => setTimeout(resolve, TITLE_INDEX_FLUSH_QUIET_MS * 8));
    expect(await exists(cacheDirectory)).toBe(false);
  });
});

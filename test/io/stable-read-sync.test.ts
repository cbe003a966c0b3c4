// The synchronous stable read (issue 27 item 2: the search worker reads logs without a libuv round trip per step):
// the same bytes and revision as the awaited `stableRead`, and the same typed refusals — a FIFO, a directory and a
// missing file — with nothing read from a FIFO (its open never blocks).
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stableRead, stableReadSync } from '../../src/io/file-revision.js';
import { thrown } from '../support/thrown.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-stable-read-sync-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('stableReadSync', () => {
  it('reads the same bytes and revision as stableRead', async () => {
    const path = join(dir, 'log.jsonl');
    const content = `${'{"a":"é"}\n'.repeat(5000)}`;
    await writeFile(path, content);
    const awaited = await stableRead(path);
    const sync = stableReadSync(path);
    expect(sync.bytes.toString('utf8')).toBe(content);
    expect(sync.bytes.equals(awaited.bytes)).toBe(true);
    expect(sync.revision).toEqual(awaited.revision);
  });

  it('refuses a FIFO, a directory and a missing file with the codes and texts of stableRead', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const directory = join(dir, 'a-directory');
    await mkdir(directory);
    for (const path of [fifo, directory, join(dir, 'missing.jsonl')]) {
      const expected = await stableRead(path).then(
        () => undefined,
        (error: unknown) => error as Error & { code?: string },
      );
      const actual = thrown(() => stableReadSync(path)) as Error & { code?: string };
      expect(expected).toBeDefined();
      expect({ code: actual.code, message: actual.message }).toEqual({ code: expected?.code, message: expected?.message });
    }
    expect((thrown(() => stableReadSync(fifo)) as { code?: string }).code).toBe('SESSION_STORE_NOT_A_FILE');
  });
});

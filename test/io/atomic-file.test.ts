/**
 * `replaceFileAtomically` (io/atomic-file.ts), the one file replace of sessionctx: the new content in place with the
 * mode asked for, nothing left beside it, and on failure the old content kept, the temporary file removed and the
 * cause reported.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceFileAtomically } from '../../src/io/atomic-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('replaceFileAtomically', () => {
  it('creates a missing file with mode 0600, replaces an existing one, and leaves no temporary file', async () => {
    const path = join(dir, 'index.json');
    await replaceFileAtomically(path, '{"v":1}\n');
    expect(await readFile(path, 'utf8')).toBe('{"v":1}\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await replaceFileAtomically(path, new Uint8Array([0x7b, 0x7d]));
    expect(await readFile(path, 'utf8')).toBe('{}');
    expect(await readdir(dir)).toEqual(['index.json']);
  });

  it('writes the mode asked for and every byte of a large content', async () => {
    const path = join(dir, 'big.bin');
    const bytes = new Uint8Array(8 * 1024 * 1024).map((_, index) => index % 251);
    await replaceFileAtomically(path, bytes, { mode: 0o644 });
    expect(Buffer.compare(await readFile(path), Buffer.from(bytes))).toBe(0);
    expect((await stat(path)).mode & 0o777).toBe(0o644);
  });

  it('a rename that fails keeps the old target, removes the temporary file and rejects with the cause', async () => {
    // A directory where the file should go: rename(2) of a file over a non-empty directory fails.
    const path = join(dir, 'taken');
    await mkdir(path);
    await writeFile(join(path, 'inside'), 'old');
    await expect(replaceFileAtomically(path, 'new')).rejects.toMatchObject({
      code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST|EPERM)$/),
    });
    expect(await readFile(join(path, 'inside'), 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['taken']);
  });

  it('a directory that does not exist rejects with ENOENT and creates nothing', async () => {
    await expect(replaceFileAtomically(join(dir, 'missing', 'file'), 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(dir)).toEqual([]);
  });
});

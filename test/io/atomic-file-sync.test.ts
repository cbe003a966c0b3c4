/**
 * The synchronous form of the one file replace (`io/atomic-file.ts`, used where a worker's database close writes its
 * digest): like the promise form (atomic-file.test.ts) it leaves the new content whole under the target's name, no
 * temporary file beside it, the owner-only mode by default, and on failure nothing new (the old content kept).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceFileAtomicallySync } from '../../src/io/atomic-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const replace = async (path: string, content: string): Promise<void> => replaceFileAtomicallySync(path, content);

describe('replaceFileAtomicallySync', () => {
  it('creates, then replaces, the file whole: mode 0600, no temporary file left', async () => {
    const target = join(dir, 'entry.json');
    await replace(target, 'first');
    expect(readFileSync(target, 'utf8')).toBe('first');
    await replace(target, 'the second, longer content');
    expect(readFileSync(target, 'utf8')).toBe('the second, longer content');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['entry.json']);
  });

  it('a replace that cannot complete keeps the old content and leaves no temporary file', async () => {
    const target = join(dir, 'entry.json');
    writeFileSync(target, 'old');
    // The target is a directory's name now: the rename fails after the temporary file was written.
    const blocked = join(dir, 'blocked');
    mkdirSync(join(blocked, 'inside'), { recursive: true });
    await expect(replace(blocked, 'new')).rejects.toThrow();
    expect(readFileSync(target, 'utf8')).toBe('old');
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'entry.json']);
    await expect(replace(join(dir, 'missing', 'x.json'), 'new')).rejects.toThrow(/ENOENT/);
  });
});

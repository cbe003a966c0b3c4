/**
 * Deriving the JSONL root from a dsh host's persistence locator (docs/DSH.md §3): the layout of SESSION-LOG.md §2,
 * `<root>/<project dir>/<session id>/session.jsonl[.zstd]`, read backwards from a probe location.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rootFromPersistence } from '../../src/dsh/persistence-root.js';

function locator(path: (header: { id: string; cwd?: string }) => string, kind = 'jsonl') {
  return { locate: (header: { id: string; cwd?: string }) => ({ kind, path: path(header) }) };
}

describe('rootFromPersistence', () => {
  it("reads the root and the encoding off dsh's JSONL layout", () => {
    const root = join('/srv', 'dsh', 'sessions');
    expect(rootFromPersistence(locator((h) => join(root, '_no-cwd', h.id, 'session.jsonl.zstd')))).toEqual({ root, compression: 'zstd' });
    expect(rootFromPersistence(locator((h) => join(root, '_no-cwd', h.id, 'session.jsonl')))).toEqual({ root, compression: 'none' });
  });

  it('gives no root for a host without JSONL persistence or with another layout', () => {
    expect(rootFromPersistence(undefined)).toBeUndefined();
    expect(rootFromPersistence({})).toBeUndefined();
    expect(rootFromPersistence({ locate: () => undefined })).toBeUndefined();
    expect(rootFromPersistence(locator((h) => join('/db', h.id, 'session.jsonl'), 'sqlite'))).toBeUndefined();
    expect(rootFromPersistence(locator(() => '/flat/session.jsonl'))).toBeUndefined();
    expect(rootFromPersistence(locator((h) => join('/r', '_no-cwd', h.id, 'log.txt')))).toBeUndefined();
    expect(
      rootFromPersistence({
        locate: () => {
          throw new Error('no');
        },
      }),
    ).toBeUndefined();
  });
});

/**
 * The opaque cursor codec shared by search pages and MCP resource lists: JSON as unpadded base64url, and text that is
 * not one (not base64url JSON) decodes to `undefined` for the issuer to refuse.
 */
import { describe, expect, it } from 'vitest';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../../src/protocol/opaque-cursor.js';

describe('opaque cursors', () => {
  it('encode JSON as unpadded base64url and decode it back', () => {
    const cursor = encodeOpaqueCursor({ v: 1, o: 40, k: 'abc' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).toBe(Buffer.from('{"v":1,"o":40,"k":"abc"}', 'utf8').toString('base64url'));
    expect(decodeOpaqueCursor(cursor)).toEqual({ v: 1, o: 40, k: 'abc' });
  });

  it('decode text that is not base64url JSON to undefined', () => {
    expect(decodeOpaqueCursor('not a cursor!')).toBeUndefined();
    expect(decodeOpaqueCursor(Buffer.from('{"v":', 'utf8').toString('base64url'))).toBeUndefined();
    expect(decodeOpaqueCursor('')).toBeUndefined();
  });
});

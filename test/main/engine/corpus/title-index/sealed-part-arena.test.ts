/** The arena that keeps one index write's sealed parts (issue 27 item 3): exact copies, in chunks of their own. */
import { describe, expect, it } from 'vitest';
import { SealedPartArena } from '../../../../../src/main/engine/corpus/title-index/sealed-part-arena.js';

function bytesOf(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => (index * 31 + seed) % 256);
}

describe('SealedPartArena', () => {
  it('keeps exact copies that later writes to the source do not change', () => {
    const arena = new SealedPartArena();
    const source = bytesOf(100, 1);
    const kept = arena.keep(source);
    source.fill(0);
    expect([...kept]).toEqual([...bytesOf(100, 1)]);
    expect(kept.length).toBe(100);
  });

  it('puts small parts side by side in one chunk, which starts small and grows', () => {
    const arena = new SealedPartArena();
    const first = arena.keep(bytesOf(1000, 2));
    const second = arena.keep(bytesOf(1000, 3));
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBe(first.byteOffset + 1000);
    // A write of one changed entry holds a few kilobytes, not a large chunk.
    expect(first.buffer.byteLength).toBe(4 * 1024);
    const parts = Array.from({ length: 400 }, (_, index) => arena.keep(bytesOf(1000, index)));
    const chunks = new Set(parts.map((part) => part.buffer));
    expect(Math.max(...[...chunks].map((chunk) => chunk.byteLength))).toBe(256 * 1024);
    parts.forEach((part, index) => expect([...part]).toEqual([...bytesOf(1000, index)]));
  });

  it('gives a part above a quarter chunk a buffer of its own size', () => {
    const arena = new SealedPartArena();
    const large = arena.keep(bytesOf(70_000, 4));
    expect(large.buffer.byteLength).toBe(70_000);
    expect([...large.subarray(0, 10)]).toEqual([...bytesOf(10, 4)]);
  });
});

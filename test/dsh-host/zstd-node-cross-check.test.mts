/**
 * sessionctx's torn-frame recovery (SESSION-LOG.md §9.17) against Node's own libzstd binding, which only Node ≥ 22
 * has (`node:zlib` `zstdDecompressSync`): this package runs on Node 22, so the cross-check that the main suite on Node
 * 20 cannot make runs here, on the repository's built decoder. For a three-block frame cut at several points, the
 * plaintext recovered from the complete blocks equals what libzstd's flush mode returns for the same bytes.
 */
import * as nodeZlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { compressFrame, initZstd, recoverTornFrame } from '../../dist/src/workers/decode/zstd-codec.js';
import { scanZstdFrames } from '../../dist/src/workers/decode/zstd-frames.js';

/** node:zlib's zstd API (Node ≥ 22.15; the type-check uses the main package's Node 20 typings, which lack it). */
const zlib = nodeZlib as unknown as {
  zstdDecompressSync(buffer: Uint8Array, options: { finishFlush: number }): Uint8Array;
  constants: { ZSTD_e_flush: number };
};

/** Exactly 3 × 128 KiB of JSONL that compresses poorly enough to need three blocks. */
function threeBlocks(): Uint8Array {
  const target = 3 * 131072;
  let text = '';
  for (let seq = 0; text.length < target; seq++) {
    text += `${JSON.stringify({ type: 'step/start', seq, time: 1_700_000_000_000 + seq, data: { note: `n${(seq * 7919) % 1013}`.repeat(3) } })}\n`;
  }
  return new TextEncoder().encode(text.slice(0, target - 1) + '\n');
}

beforeAll(async () => {
  await initZstd();
});

describe('torn zstd frames: sessionctx against node:zlib', () => {
  it('has node:zlib zstd (Node 22)', () => {
    expect(typeof zlib.zstdDecompressSync).toBe('function');
  });

  it('recovers from a torn frame exactly the bytes libzstd flushes', () => {
    const plaintext = threeBlocks();
    const frame = compressFrame(plaintext);
    const blocks = scanZstdFrames(frame).frames[0]?.blocks ?? [];
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const cuts = [3, 6, (blocks[1]?.start ?? 0) + 10, (blocks[2]?.start ?? 0) + 50, frame.length - 1];
    for (const cut of cuts) {
      const torn = frame.subarray(0, cut);
      let expected: Uint8Array;
      try {
        expected = zlib.zstdDecompressSync(torn, { finishFlush: zlib.constants.ZSTD_e_flush });
      } catch {
        expected = new Uint8Array(0);
      }
      const tornInfo = scanZstdFrames(torn).torn;
      expect(tornInfo, `cut ${cut}`).toBeDefined();
      expect(Buffer.compare(recoverTornFrame(torn, tornInfo as never), expected), `cut ${cut}`).toBe(0);
    }
    // At least one cut recovers something (the check is not only over empty results).
    expect(
      cuts.some((cut) => {
        const torn = frame.subarray(0, cut);
        return recoverTornFrame(torn, scanZstdFrames(torn).torn as never).length > 0;
      }),
    ).toBe(true);
  });
});

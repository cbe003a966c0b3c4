// SESSION-REFERENCE.md §15 items 94 and 95 (frame level): the zstd capability gate on Node 20, the
// §9.9 worked example, XXH64 vectors and checksummed frames written on Node 20 (SESSION-LOG.md §9.9, §9.17).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SessionLogError } from '../../../src/protocol/errors.js';
import { xxh64, xxh64Low32 } from '../../../src/workers/decode/xxh64.js';
import { compressFrame, decompressFrame, initZstd, recoverTornFrame } from '../../../src/workers/decode/zstd-codec.js';
import { scanZstdFrames } from '../../../src/workers/decode/zstd-frames.js';
import { concatBytes, storedFrame, utf8Bytes } from '../../support/zstd-stored-frame.js';
import { thrown } from '../../support/thrown.js';

/** The worked example of SESSION-LOG.md §9.9: a checksummed single-segment frame holding `abc`. */
const ABC_FRAME = Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x03, 0x19, 0x00, 0x00, 0x61, 0x62, 0x63, 0x99, 0x09, 0x77, 0xad]);

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

beforeAll(async () => {
  await initZstd();
});

describe('@bokuweb/zstd-wasm as the Node 20 decoder (SESSION-LOG.md §9.17 rule 1)', () => {
  it('is pinned at 0.0.27, has no dependencies and no install scripts, and ships its wasm', () => {
    const require = createRequire(import.meta.url);
    // The package's exports map hides package.json; its Node entry is dist/common/index.node.js.
    const manifestPath = require.resolve('@bokuweb/zstd-wasm').replace(/dist[\\/]common[\\/]index\.node\.js$/, 'package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      version: string;
      scripts?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    expect(manifest.version).toBe('0.0.27');
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
    for (const hook of ['preinstall', 'install', 'postinstall']) expect(manifest.scripts?.[hook]).toBeUndefined();
    expect(readFileSync(manifestPath.replace(/package\.json$/, 'dist/common/zstd.wasm')).length).toBeGreaterThan(0);
  });

  it('initZstd is idempotent', async () => {
    await Promise.all([initZstd(), initZstd()]);
    expect(text(decompressFrame(ABC_FRAME, 0))).toBe('abc');
  });
});

describe('the worked example of SESSION-LOG.md §9.9', () => {
  it('decodes to abc', () => {
    expect(text(decompressFrame(ABC_FRAME, 0))).toBe('abc');
  });

  it('fails validation when the last (checksum) byte is changed', () => {
    const broken = ABC_FRAME.slice();
    broken[15] = 0xac;
    const error = thrown(() => decompressFrame(broken, 42));
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error).toMatchObject({
      code: 'SESSION_LOG_CORRUPT',
      message: 'corrupt Zstandard session log: frame at byte 42 failed validation',
    });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('is torn when truncated after 61 62, and the torn frame recovers the raw payload present', () => {
    const cut = ABC_FRAME.subarray(0, 11);
    const scan = scanZstdFrames(cut);
    expect(scan.frames).toEqual([]);
    expect(scan.tornStart).toBe(0);
    expect(text(recoverTornFrame(cut, scan.torn!))).toBe('ab');
  });

  it('is what storedFrame builds for abc as a single-segment frame', () => {
    expect(storedFrame(utf8Bytes('abc'), [3], { singleSegment: true })).toEqual(ABC_FRAME);
  });
});

describe('XXH64 (seed 0)', () => {
  it('matches the vectors of SESSION-LOG.md §9.17', () => {
    expect(xxh64(new Uint8Array(0))).toBe(0xef46db3751d8e999n);
    expect(xxh64(utf8Bytes('abc'))).toBe(0x44bc2cf5ad770999n);
    expect(xxh64Low32(new Uint8Array(0))).toBe(0x51d8e999);
    expect(xxh64Low32(utf8Bytes('abc'))).toBe(0xad770999);
  });

  it("agrees with libzstd's checksum verification on every input length path (property)", () => {
    // A stored frame carries our checksum; libzstd verifies it independently while decoding.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (plaintext) => {
        const frame = storedFrame(plaintext, [plaintext.length]);
        expect(decompressFrame(frame, 0)).toEqual(plaintext);
      }),
      { numRuns: 300 },
    );
  });
});

describe('compressFrame (Node 20 writer)', () => {
  it('sets the checksum flag and appends the low 32 bits of XXH64 little-endian', () => {
    const plaintext = utf8Bytes('{"type":"session","version":0,"id":"abc","createdAt":1767225600000,"cwd":"/w","delegationDepth":0}\n');
    const frame = compressFrame(plaintext);
    expect(frame[4]! & 0x04).toBe(0x04);
    const checksum = frame.subarray(frame.length - 4);
    expect(Array.from(checksum)).toEqual([0, 8, 16, 24].map((shift) => (xxh64Low32(plaintext) >>> shift) & 0xff));
    expect(decompressFrame(frame, 0)).toEqual(plaintext);
    const scan = scanZstdFrames(frame);
    expect(scan.frames).toHaveLength(1);
    expect(scan.frames[0]!.end).toBe(frame.length);
  });

  it('checksums the empty plaintext with the empty-input vector', () => {
    const frame = compressFrame(new Uint8Array(0));
    expect(Array.from(frame.subarray(frame.length - 4))).toEqual([0x99, 0xe9, 0xd8, 0x51]);
    expect(decompressFrame(frame, 0)).toEqual(new Uint8Array(0));
  });

  it('round-trips arbitrary plaintexts, and a flipped checksum bit fails (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 31 }), (plaintext, bit) => {
        const frame = compressFrame(plaintext);
        expect(decompressFrame(frame, 0)).toEqual(plaintext);
        frame[frame.length - 4 + (bit >> 3)]! ^= 1 << (bit & 7);
        expect(() => decompressFrame(frame, 7)).toThrow('corrupt Zstandard session log: frame at byte 7 failed validation');
      }),
      { numRuns: 100 },
    );
  });

  it('round-trips a multi-block plaintext (larger than one 128 KiB block)', () => {
    const plaintext = utf8Bytes(
      Array.from({ length: 6000 }, (_, i) => JSON.stringify({ type: 'x', seq: i, data: 'y'.repeat(i % 97) })).join('\n') + '\n',
    );
    const frame = compressFrame(plaintext);
    expect(scanZstdFrames(frame).frames[0]!.blocks.length).toBeGreaterThan(1);
    expect(Buffer.compare(decompressFrame(frame, 0), plaintext)).toBe(0);
  });
});

describe('frames without a content-size field (the shape dsh writes)', () => {
  it("decode beyond the package's 1 MiB default output size (capacity = sum of raw block sizes)", () => {
    const plaintext = new Uint8Array(10 * 131072 + 5).map((_, i) => 0x61 + (i % 26));
    const frame = storedFrame(plaintext, [...Array.from({ length: 10 }, () => 131072), 5]);
    expect(scanZstdFrames(frame).frames[0]!.header.contentSize).toBeUndefined();
    expect(Buffer.compare(decompressFrame(frame, 0), plaintext)).toBe(0);
  });

  it('decode with the capacity computed from their blocks, frame by frame in a concatenation', () => {
    const parts = ['{"a":1}\n', 'x'.repeat(131072), ''].map(utf8Bytes);
    const frames = [storedFrame(parts[0]!, [parts[0]!.length]), storedFrame(parts[1]!, [65536, 65536]), storedFrame(parts[2]!, [0])];
    const file = concatBytes(...frames);
    const scan = scanZstdFrames(file);
    expect(scan.frames.map((frame) => frame.header.contentSize)).toEqual([undefined, undefined, undefined]);
    scan.frames.forEach((frame, i) => {
      expect(Buffer.compare(decompressFrame(file.subarray(frame.start, frame.end), frame.start, frame), parts[i]!)).toBe(0);
    });
  });
});

/**
 * Whole-frame Zstandard decoding and encoding for session logs (SESSION-LOG.md §9.9, §9.17).
 *
 * On Node 20 the codec is `@bokuweb/zstd-wasm` (libzstd in WebAssembly): it verifies frame checksums but
 * only decodes whole frames and sizes its output from the first frame header, so callers split frames
 * with the structural scan (zstd-frames.ts) and this module supplies output capacities, builds the
 * synthetic prefix frame that recovers a torn final frame, and adds the checksum libzstd's simple API
 * does not write. Everything backend-specific sits behind {@link ZstdBackend}, so Node ≥ 22.15's
 * `node:zlib` can replace the wasm package without touching callers.
 */
import { createRequire } from 'node:module';
import type ZstdWasm from '@bokuweb/zstd-wasm';
import { SessionLogError } from '../../protocol/errors.js';
import { xxh64Low32 } from './xxh64.js';
import { DESCRIPTOR_CHECKSUM, scanZstdFrames } from './zstd-frames.js';
import type { BlockLayout, FrameRange, TornFrameLayout } from './zstd-frames.js';
import { assertNever } from '../../protocol/assert-never.js';
import type { Compression } from '../../protocol/storage-paths.js';

/** The largest regenerated size of one block (RFC 8878 Block_Maximum_Size). */
export const MAX_BLOCK_SIZE = 131072;

/** Compression level of frames written on Node < 22.15 (SESSION-LOG.md §9.17 "Writer"). */
const COMPRESSION_LEVEL = 3;

/**
 * The seam between this module and a Zstandard implementation. Both operations work on one whole frame.
 * A `node:zlib` backend would implement `decompressFrame` with `zstdDecompressSync` and ignore the
 * capacity, and `compressFrame` with `ZSTD_c_checksumFlag = 1`.
 */
interface ZstdBackend {
  /** Decodes one complete frame; `capacity` bounds the output when the frame has no content size. Throws on any libzstd error, checksum mismatch included. */
  decompressFrame(frame: Uint8Array, capacity: number): Uint8Array;
  /** Encodes `plaintext` as one checksummed frame. */
  compressFrame(plaintext: Uint8Array): Uint8Array;
}

/** The wasm backend over the loaded package: libzstd's simple API, with the checksum added by hand. */
const wasmBackend = (zstdWasm: typeof ZstdWasm): ZstdBackend => ({
  decompressFrame(frame, capacity) {
    return zstdWasm.decompress(frame, { defaultHeapSize: capacity });
  },
  compressFrame(plaintext) {
    const bare = zstdWasm.compress(plaintext, COMPRESSION_LEVEL);
    // ZSTD_compress leaves the checksum flag off; set it and append what libzstd would have written.
    const frame = new Uint8Array(bare.length + 4);
    frame.set(bare);
    frame[4] = (frame[4] as number) | DESCRIPTOR_CHECKSUM;
    const checksum = xxh64Low32(plaintext);
    frame[bare.length] = checksum & 0xff;
    frame[bare.length + 1] = (checksum >>> 8) & 0xff;
    frame[bare.length + 2] = (checksum >>> 16) & 0xff;
    frame[bare.length + 3] = checksum >>> 24;
    return frame;
  },
});

let backend: ZstdBackend | undefined;
let initialising: Promise<void> | undefined;

/**
 * Loads the Zstandard backend. Idempotent and safe to call concurrently; every other export of this
 * module requires it to have resolved.
 */
export function initZstd(): Promise<void> {
  // The package is loaded here, on first use (a command that never decodes a frame never loads it), and through
  // `require`: it is CommonJS, and an ES import would add Node's export detection over its re-exports.
  initialising ??= Promise.resolve()
    .then(async () => {
      const zstdWasm = createRequire(import.meta.url)('@bokuweb/zstd-wasm') as typeof ZstdWasm;
      await zstdWasm.init();
      backend = wasmBackend(zstdWasm);
    })
    .catch((error: unknown) => {
      // Forget the failed attempt so that a later call can retry instead of replaying the rejection.
      initialising = undefined;
      throw error;
    });
  return initialising;
}

/** Loads what decoding logs of `compression` needs (the Zstandard backend for `zstd`, nothing for `none`). */
export function codecReadyFor(compression: Compression): Promise<void> {
  return compression === 'zstd' ? initZstd() : Promise.resolve();
}

function requireBackend(): ZstdBackend {
  if (backend === undefined) throw new Error('Zstandard codec used before initZstd() resolved');
  return backend;
}

/**
 * The output capacity of a complete frame without a content-size field (SESSION-LOG.md §9.17): per block,
 * Raw and RLE regenerate exactly `size` bytes, a Compressed block at most {@link MAX_BLOCK_SIZE}.
 */
export function frameOutputCapacity(blocks: readonly BlockLayout[]): number {
  let capacity = 0;
  for (const block of blocks) {
    switch (block.type) {
      case 'raw':
      case 'rle':
        capacity += block.size;
        break;
      case 'compressed':
        capacity += MAX_BLOCK_SIZE;
        break;
      default:
        assertNever(block.type, 'unknown block type');
    }
  }
  return capacity;
}

/**
 * Decodes one complete frame with checksum verification and returns the backend's error unchanged on
 * failure. `layout` (from a scan of the same bytes, any base offset) saves re-scanning the frame.
 */
export function decodeCompleteFrame(frame: Uint8Array, layout?: FrameRange): Uint8Array {
  const codec = requireBackend();
  const blocks = layout?.blocks ?? scanZstdFrames(frame, 0, 1).frames[0]?.blocks ?? [];
  return codec.decompressFrame(frame, frameOutputCapacity(blocks));
}

/**
 * Decodes complete frame `frame`, found at byte `start` of its artifact (SESSION-LOG.md §9.9 step 3).
 *
 * @throws SessionLogError `SESSION_LOG_CORRUPT`, `corrupt Zstandard session log: frame at byte <start> failed validation`,
 *   with the decoder's error as `cause` (a checksum mismatch included).
 */
export function decompressFrame(frame: Uint8Array, start: number, layout?: FrameRange): Uint8Array {
  try {
    return decodeCompleteFrame(frame, layout);
  } catch (error) {
    throw new SessionLogError('SESSION_LOG_CORRUPT', `corrupt Zstandard session log: frame at byte ${start} failed validation`, {
      cause: error,
    });
  }
}

/** The window descriptor of a synthetic frame standing in for a single-segment frame of `contentSize` bytes. */
function singleSegmentWindowDescriptor(contentSize: number): number {
  const windowLog = Math.max(10, Math.ceil(Math.log2(Math.max(1, contentSize))));
  // A window descriptor encodes at most 2^41; a larger claimed size is corrupt and its decode fails either way.
  return (Math.min(windowLog, 41) - 10) << 3;
}

/** Builds the synthetic prefix frame of SESSION-LOG.md §9.17 from the complete blocks of a torn frame. */
function syntheticPrefixFrame(buf: Uint8Array, torn: TornFrameLayout & { header: NonNullable<TornFrameLayout['header']> }): Uint8Array {
  const { header, blocks } = torn;
  let size = 6 + header.dictionaryIdLength;
  for (const block of blocks) size += block.end - block.start;
  const frame = new Uint8Array(size);
  frame.set(buf.subarray(torn.start, torn.start + 4));
  // Keep only the dictionary flag: no content size, not single-segment, no checksum.
  frame[4] = header.descriptor & 0x03;
  frame[5] = header.windowDescriptor ?? singleSegmentWindowDescriptor(header.contentSize ?? 0);
  frame.set(buf.subarray(header.dictionaryIdStart, header.dictionaryIdStart + header.dictionaryIdLength), 6);
  let offset = 6 + header.dictionaryIdLength;
  for (const block of blocks) {
    frame.set(buf.subarray(block.start, block.end), offset);
    offset += block.end - block.start;
  }
  const lastHeader = offset - ((blocks[blocks.length - 1] as BlockLayout).end - (blocks[blocks.length - 1] as BlockLayout).start);
  frame[lastHeader] = (frame[lastHeader] as number) | 0x01;
  return frame;
}

/**
 * The recoverable plaintext of a torn final frame (SESSION-LOG.md §9.11 rule 3, method of §9.17): nothing
 * while the header is incomplete; the content of the complete blocks, decoded as a synthetic frame without
 * checksum; then, when EOF falls inside a Raw block, the payload bytes present. If the complete blocks fail
 * to decode the whole result is empty (earlier complete frames are unaffected).
 */
export function recoverTornFrame(buf: Uint8Array, torn: TornFrameLayout): Uint8Array {
  const header = torn.header;
  if (header === undefined) return new Uint8Array(0);
  let decoded: Uint8Array = new Uint8Array(0);
  if (torn.blocks.length > 0) {
    const codec = requireBackend();
    const frame = syntheticPrefixFrame(buf, { ...torn, header });
    try {
      decoded = codec.decompressFrame(frame, torn.blocks.length * MAX_BLOCK_SIZE);
    } catch {
      // A complete block that does not decode makes the whole torn frame unrecoverable (§9.11 rule 3).
      return new Uint8Array(0);
    }
  }
  const interrupted = torn.interrupted;
  if (interrupted === undefined || interrupted.type !== 'raw') return decoded;
  const present = buf.subarray(interrupted.payloadStart, torn.end);
  const out = new Uint8Array(decoded.length + present.length);
  out.set(decoded);
  out.set(present, decoded.length);
  return out;
}

/**
 * Encodes `plaintext` as one Zstandard frame with the content checksum flag set, the way sessionctx writes
 * frames on Node < 22.15 (SESSION-LOG.md §9.17 "Writer"): level 3, descriptor bit 0x04, low 32 bits of
 * XXH64(plaintext) appended little-endian.
 */
export function compressFrame(plaintext: Uint8Array): Uint8Array {
  return requireBackend().compressFrame(plaintext);
}

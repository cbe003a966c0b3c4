/**
 * The structural Zstandard frame scan of SESSION-LOG.md §9.9 step 2: walks frame and block headers of a
 * concatenation of frames without decompressing anything, so the reader finds complete frames and a torn
 * final frame itself (the decoder only ever sees whole frames, §9.17). The layouts it returns carry what
 * output sizing and torn-frame recovery need.
 */
import { SessionLogError } from '../../protocol/errors.js';

/** The Zstandard frame magic number, read little-endian. */
export const ZSTD_MAGIC = 0xfd2fb528;

/** Frame descriptor bit: a 4-byte content checksum follows the last block (RFC 8878 §3.1.1.1.1). */
export const DESCRIPTOR_CHECKSUM = 0x04;
/** Frame descriptor bit: no window descriptor; the window is the content size. */
export const DESCRIPTOR_SINGLE_SEGMENT = 0x20;
/** The reserved and unused descriptor bits, which must be zero (SESSION-LOG.md §9.9 step 2.3). */
const DESCRIPTOR_RESERVED = 0x18;

/** Block types by their 2-bit code (3 is reserved and rejected). */
export type BlockType = 'raw' | 'rle' | 'compressed';
const BLOCK_TYPES: readonly BlockType[] = ['raw', 'rle', 'compressed'];

/** One block whose header and payload are both present. Offsets are absolute in the scanned buffer. */
export interface BlockLayout {
  readonly type: BlockType;
  /** Bit 0 of the block header. */
  readonly last: boolean;
  /** The header's size field: regenerated size for Raw/RLE, payload size for Compressed. */
  readonly size: number;
  /** Offset of the 3-byte block header. */
  readonly start: number;
  /** Offset just after the payload (1 byte for RLE, `size` bytes otherwise). */
  readonly end: number;
}

/** A frame header whose bytes are all present. Offsets are absolute in the scanned buffer. */
export interface FrameHeaderLayout {
  /** The frame descriptor byte (at `start + 4`). */
  readonly descriptor: number;
  /** The window descriptor byte; absent for single-segment frames. */
  readonly windowDescriptor?: number;
  /** Offset and length of the dictionary id field (length 0, 1, 2 or 4). */
  readonly dictionaryIdStart: number;
  readonly dictionaryIdLength: number;
  /** The frame content size field's value, when the frame has one (values above 2^53 lose precision). */
  readonly contentSize?: number;
  /** Offset of the first block header. */
  readonly end: number;
}

/** A complete frame: `start..end` holds magic, header, every block up to the last one, and the checksum if flagged. */
export interface FrameRange {
  readonly start: number;
  readonly end: number;
  readonly header: FrameHeaderLayout;
  readonly blocks: readonly BlockLayout[];
}

/** The block EOF interrupted inside its payload: its header is present, its payload only in part. */
export interface InterruptedBlock {
  readonly type: BlockType;
  readonly size: number;
  /** Offset of the block header. */
  readonly start: number;
  /** Offset of the first payload byte; the payload bytes present run from here to EOF. */
  readonly payloadStart: number;
}

/** The final frame that EOF interrupted, as far as it is present. */
export interface TornFrameLayout {
  readonly start: number;
  /** Absent when EOF falls inside the magic or the frame header. */
  readonly header?: FrameHeaderLayout;
  /** The complete blocks, in order. */
  readonly blocks: readonly BlockLayout[];
  /** Present when EOF falls inside a block payload. */
  readonly interrupted?: InterruptedBlock;
  /** The end of the scanned buffer. */
  readonly end: number;
}

/** Result of {@link scanZstdFrames}. */
export interface ZstdFrameScan {
  readonly frames: FrameRange[];
  /** Start of the final frame when EOF interrupts it (SESSION-LOG.md §9.9 step 2). */
  readonly tornStart?: number;
  /** The torn frame's layout; present exactly when `tornStart` is. */
  readonly torn?: TornFrameLayout;
}

function corrupt(message: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_CORRUPT', `corrupt Zstandard session log: ${message}`);
}

function readU32(buf: Uint8Array, i: number): number {
  return ((buf[i] as number) | ((buf[i + 1] as number) << 8) | ((buf[i + 2] as number) << 16) | ((buf[i + 3] as number) << 24)) >>> 0;
}

/** Little-endian unsigned integer of `length` (1, 2, 4 or 8) bytes at `i`, as a double. */
function readUnsigned(buf: Uint8Array, i: number, length: number): number {
  let value = 0;
  for (let k = length - 1; k >= 0; k--) value = value * 256 + (buf[i + k] as number);
  return value;
}

/** Reads the frame header at `start`; undefined when its bytes run past `length`. */
function readFrameHeader(buf: Uint8Array, start: number, length: number): FrameHeaderLayout | undefined {
  const descriptor = buf[start + 4] as number;
  const singleSegment = (descriptor & DESCRIPTOR_SINGLE_SEGMENT) !== 0;
  const dictionaryFlag = descriptor & 0x03;
  const dictionaryIdLength = dictionaryFlag === 3 ? 4 : dictionaryFlag;
  const contentSizeFlag = descriptor >>> 6;
  const contentSizeLength = contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << contentSizeFlag;
  const windowLength = singleSegment ? 0 : 1;
  const dictionaryIdStart = start + 5 + windowLength;
  const contentSizeStart = dictionaryIdStart + dictionaryIdLength;
  const end = contentSizeStart + contentSizeLength;
  if (end > length) return undefined;
  let contentSize: number | undefined;
  if (contentSizeLength > 0) {
    // A 2-byte field stores the size minus 256 (RFC 8878 §3.1.1.1.4).
    contentSize = readUnsigned(buf, contentSizeStart, contentSizeLength) + (contentSizeLength === 2 ? 256 : 0);
  }
  return {
    descriptor,
    ...(singleSegment ? {} : { windowDescriptor: buf[start + 5] as number }),
    dictionaryIdStart,
    dictionaryIdLength,
    ...(contentSize === undefined ? {} : { contentSize }),
    end,
  };
}

/**
 * Scans `buf` from offset `from` (a frame start) for Zstandard frames (SESSION-LOG.md §9.9 step 2) and
 * stops after `maxFrames` complete frames (the listing path needs only the first). Offsets in the result
 * are absolute in `buf`. EOF inside a frame ends the scan with `tornStart` set to that frame's start —
 * including 1–3 stray bytes, which are torn before their magic is even checked.
 *
 * @throws SessionLogError `SESSION_LOG_CORRUPT`: `corrupt Zstandard session log: invalid frame magic at byte <frame start>`,
 *   `… reserved frame-header bit at byte <descriptor offset>`, `… reserved block type at byte <block header offset>`.
 */
export function scanZstdFrames(buf: Uint8Array, from = 0, maxFrames = Number.POSITIVE_INFINITY): ZstdFrameScan {
  const frames: FrameRange[] = [];
  const length = buf.length;
  let offset = from;
  while (offset < length && frames.length < maxFrames) {
    const start = offset;
    const torn = (parts: Omit<TornFrameLayout, 'start' | 'end'>): ZstdFrameScan => ({
      frames,
      tornStart: start,
      torn: { start, ...parts, end: length },
    });
    if (length - start < 4) return torn({ blocks: [] });
    if (readU32(buf, start) !== ZSTD_MAGIC) throw corrupt(`invalid frame magic at byte ${start}`);
    if (start + 4 === length) return torn({ blocks: [] });
    if (((buf[start + 4] as number) & DESCRIPTOR_RESERVED) !== 0) throw corrupt(`reserved frame-header bit at byte ${start + 4}`);
    const header = readFrameHeader(buf, start, length);
    if (header === undefined) return torn({ blocks: [] });
    offset = header.end;
    const blocks: BlockLayout[] = [];
    for (;;) {
      if (length - offset < 3) return torn({ header, blocks });
      const blockHeader = (buf[offset] as number) | ((buf[offset + 1] as number) << 8) | ((buf[offset + 2] as number) << 16);
      const typeCode = (blockHeader >>> 1) & 0x03;
      const type = BLOCK_TYPES[typeCode];
      if (type === undefined) throw corrupt(`reserved block type at byte ${offset}`);
      const size = blockHeader >>> 3;
      const payloadStart = offset + 3;
      const end = payloadStart + (type === 'rle' ? 1 : size);
      if (end > length) return torn({ header, blocks, interrupted: { type, size, start: offset, payloadStart } });
      const last = (blockHeader & 1) !== 0;
      blocks.push({ type, last, size, start: offset, end });
      offset = end;
      if (last) break;
    }
    if ((header.descriptor & DESCRIPTOR_CHECKSUM) !== 0) {
      if (length - offset < 4) return torn({ header, blocks });
      offset += 4;
    }
    frames.push({ start, end: offset, header, blocks });
  }
  return { frames };
}

/**
 * Stage R3 of an inspection (SESSION-LOG.md §9.15): turns the bytes of one session artifact into its
 * header record and stored events — raw framing (§9.8) or Zstandard framing (§9.9), the header record
 * (§9.6, §7.4) and the scanner (§9.11) with its torn-tail handling. Also the header-only read of the
 * listing path (§9.13 step 4).
 */
import { SessionLogError } from '../../protocol/errors.js';
import { parseHeaderRecord } from '../../protocol/header-line.js';
import { exceedsEventDepth, eventDepth, MIN_TOO_DEEP_LINE_BYTES, tooDeepError } from '../../protocol/json-depth.js';
import type { Compression } from '../../protocol/storage-paths.js';
import { JsonlScanner } from './jsonl-scanner.js';
import { decodeCompleteFrame, decompressFrame, recoverTornFrame } from './zstd-codec.js';
import { scanZstdFrames } from './zstd-frames.js';
import { assertNever } from '../../protocol/assert-never.js';

const LF = 0x0a;

/** Where a torn tail starts and how many of the returned events were recovered from it (§9.11, §9.12 rule 4). */
export interface TornTail {
  /** Truncate the file to this length before a durable repair (raw: `committedBytes`; zstd: `tornStart`). */
  readonly truncateTo: number;
  /** How many trailing events of `events` came from the torn final frame (always 0 in raw mode). */
  readonly recoveredEvents: number;
}

/** The decoded content of one artifact. */
export interface DecodedArtifact {
  /** The header record, after `headerRecordFromLine` (§9.6); not yet validated by §7.2. */
  readonly headerRecord: Record<string, unknown>;
  /** Raw: the header record's length including its LF. Zstd: the byte length of frame 0. */
  readonly headerBytes: number;
  /** The stored events: the committed ones, then those recovered from a torn final frame, in order. */
  readonly events: unknown[];
  /**
   * The scanner's committed offset (§9.11): a file offset in raw mode; in zstd mode an offset into the
   * concatenated plaintext of frame 0 and the frames after it (recovered lines included).
   */
  readonly committedBytes: number;
  /** Present when the artifact ends in a torn tail. */
  readonly tornTail?: TornTail;
}

/** Options of {@link decodeArtifact}. */
export interface DecodeOptions {
  /**
   * Called between chunks of work (about every {@link DECODE_POLL_BYTES} of input, and after each zstd
   * frame); a worker checks its control port here and throws to stop the decode (SESSION-LOG.md §10.6).
   */
  readonly poll?: () => void;
}

/** Input bytes scanned between two polls. */
export const DECODE_POLL_BYTES = 256 * 1024;

/** One UTF-8 decoder for header records; keeps a BOM so that it fails JSON parsing as it does for dsh. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

function corrupt(message: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_CORRUPT', message);
}

/**
 * The nesting limit of SESSION-LOG.md §9.15a for the header line (`text`, its LF optional): a header whose fields
 * nest deeper than the limit would reach `structuredClone` in every listing. A line that is not JSON is left to the
 * header parser, which reports it with its own text.
 *
 * @throws SessionLogError `SESSION_LOG_TOO_DEEP`.
 */
export function assertHeaderLineDepth(text: string, path?: string): void {
  if (text.length < MIN_TOO_DEEP_LINE_BYTES) return;
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    // Not JSON: the header parser (or the listing) reports it as a header that is not valid JSON.
    return;
  }
  if (exceedsEventDepth(record))
    throw tooDeepError(eventDepth(record), { subject: 'session header', ...(path === undefined ? {} : { path }) });
}

/** True when `plaintext` is exactly one LF-terminated line (the frame 0 rule of §9.9). */
function isOneLine(plaintext: Uint8Array): boolean {
  return plaintext.length > 0 && plaintext.indexOf(LF) === plaintext.length - 1;
}

/** Raw framing: header record up to the first LF, then the scanner over the rest. */
function decodeRawArtifact(bytes: Uint8Array, path: string, poll: (() => void) | undefined): DecodedArtifact {
  const headerEnd = bytes.indexOf(LF);
  if (headerEnd === -1) throw corrupt('empty or header-less session log');
  const headerBytes = headerEnd + 1;
  const headerText = utf8.decode(bytes.subarray(0, headerBytes));
  assertHeaderLineDepth(headerText, path);
  const headerRecord = parseHeaderRecord(headerText, path);
  const scanner = new JsonlScanner(headerBytes, path);
  if (poll === undefined) {
    scanner.write(bytes.subarray(headerBytes));
  } else {
    // The scanner accepts chunks of any size, so polling between slices changes nothing in the result.
    for (let from = headerBytes; from < bytes.length; from += DECODE_POLL_BYTES) {
      poll();
      scanner.write(bytes.subarray(from, Math.min(bytes.length, from + DECODE_POLL_BYTES)));
    }
  }
  const committedBytes = scanner.committedBytes;
  return {
    headerRecord,
    headerBytes,
    events: scanner.events,
    committedBytes,
    ...(committedBytes < bytes.length ? { tornTail: { truncateTo: committedBytes, recoveredEvents: 0 } } : {}),
  };
}

/**
 * Zstandard framing, frame by frame in the order dsh reads them: structural scan of the whole file,
 * frame 0 decoded and parsed as the header, each later complete frame decoded and scanned, the torn-record
 * check, then recovery of a torn final frame.
 */
function decodeZstdArtifact(bytes: Uint8Array, path: string, poll: (() => void) | undefined): DecodedArtifact {
  const scan = scanZstdFrames(bytes);
  const [headerFrame, ...batchFrames] = scan.frames;
  if (headerFrame === undefined) throw corrupt('empty or header-less Zstandard session log');
  const headerPlaintext = decompressFrame(bytes.subarray(headerFrame.start, headerFrame.end), headerFrame.start, headerFrame);
  if (!isOneLine(headerPlaintext)) throw corrupt('corrupt Zstandard session log: first frame is not exactly one header line');
  const headerText = utf8.decode(headerPlaintext);
  assertHeaderLineDepth(headerText, path);
  const headerRecord = parseHeaderRecord(headerText, path);
  const scanner = new JsonlScanner(headerPlaintext.length, path);
  for (const frame of batchFrames) {
    poll?.();
    scanner.write(decompressFrame(bytes.subarray(frame.start, frame.end), frame.start, frame));
  }
  if (scanner.committedBytes !== scanner.inputBytes) {
    throw corrupt('corrupt Zstandard session log: complete frame contains a torn JSONL record');
  }
  const headerBytes = headerFrame.end - headerFrame.start;
  if (scan.torn === undefined) {
    return { headerRecord, headerBytes, events: scanner.events, committedBytes: scanner.committedBytes };
  }
  const completeEvents = scanner.events.length;
  // Issues inside the recovered plaintext are tolerated; only an issue followed by turn/end still throws.
  scanner.write(recoverTornFrame(bytes, scan.torn));
  return {
    headerRecord,
    headerBytes,
    events: scanner.events,
    committedBytes: scanner.committedBytes,
    tornTail: { truncateTo: scan.torn.start, recoveredEvents: scanner.events.length - completeEvents },
  };
}

/**
 * Decodes a whole artifact (stage R3 of SESSION-LOG.md §9.15). `path` is the artifact path, used only in
 * the ` (raw log: <path>)` suffix of a format-version refusal. Zstd mode requires `initZstd()` to have resolved.
 * `options.poll` runs between chunks of work and may throw to stop the decode.
 *
 * @throws SessionLogError `SESSION_LOG_CORRUPT` / `SESSION_LOG_INVALID_HEADER` with the exact texts of
 *   §9.6, §9.9 and §9.11; `SESSION_LOG_TOO_DEEP` for a header or committed record beyond the nesting limit
 *   (§9.15a); SessionFormatUnsupportedError for a header version ≠ 0; TypeError for a `null` event line.
 */
export function decodeArtifact(bytes: Uint8Array, compression: Compression, path: string, options: DecodeOptions = {}): DecodedArtifact {
  switch (compression) {
    case 'none':
      return decodeRawArtifact(bytes, path, options.poll);
    case 'zstd':
      return decodeZstdArtifact(bytes, path, options.poll);
    default:
      assertNever(compression, 'unknown compression');
  }
}

/** Result of {@link readHeaderFromPrefix}. */
export type HeaderPrefixRead =
  | { readonly status: 'incomplete' }
  | { readonly status: 'ok'; readonly line: string; readonly headerBytes: number };

/**
 * Extracts the header line (without its LF) from the first bytes of an artifact, for listing
 * (SESSION-LOG.md §9.13 step 4). `incomplete` means: read more bytes, or skip the artifact at EOF.
 * Raw: everything before the first LF. Zstd: the first complete frame found by the structural scan, which
 * must decode and hold exactly one LF-terminated line. Judging the line (JSON, header shape) is the caller's.
 *
 * @throws SessionLogError `SESSION_LOG_CORRUPT` for a bad magic, reserved bit or block type (§9.9),
 *   `corrupt Zstandard session log: header frame failed validation` (decoder error as `cause`), and
 *   `corrupt Zstandard session log: first frame is not exactly one header line`; `SESSION_LOG_TOO_DEEP` for a
 *   header line beyond the nesting limit (§9.15a).
 */
export function readHeaderFromPrefix(prefix: Uint8Array, compression: Compression): HeaderPrefixRead {
  switch (compression) {
    case 'none': {
      const headerEnd = prefix.indexOf(LF);
      if (headerEnd === -1) return { status: 'incomplete' };
      const line = utf8.decode(prefix.subarray(0, headerEnd));
      assertHeaderLineDepth(line);
      return { status: 'ok', line, headerBytes: headerEnd + 1 };
    }
    case 'zstd': {
      const first = scanZstdFrames(prefix, 0, 1).frames[0];
      if (first === undefined) return { status: 'incomplete' };
      let plaintext: Uint8Array;
      try {
        plaintext = decodeCompleteFrame(prefix.subarray(first.start, first.end), first);
      } catch (error) {
        throw new SessionLogError('SESSION_LOG_CORRUPT', 'corrupt Zstandard session log: header frame failed validation', { cause: error });
      }
      if (!isOneLine(plaintext)) throw corrupt('corrupt Zstandard session log: first frame is not exactly one header line');
      const line = utf8.decode(plaintext.subarray(0, plaintext.length - 1));
      assertHeaderLineDepth(line);
      return { status: 'ok', line, headerBytes: first.end };
    }
    default:
      assertNever(compression, 'unknown compression');
  }
}

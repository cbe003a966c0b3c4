/**
 * The title scan of the persistent title index (SESSION-LOG.md §10.7), as one pure synchronous function for
 * the worker pool: bytes of an artifact (the whole file, or everything after a checkpoint's resume offset)
 * in; the observation's outcome and a checkpoint at the new resume offset out.
 *
 * Stage R3 runs the existing decoders (`decodeArtifact` for the header, `JsonlScanner` fed line by line,
 * the Zstandard frame scan and codec) in the order `decodeArtifact` uses, so its failures are the same; every
 * committed event then goes through the resumable validator. The checkpoint is always taken at a clean point
 * — raw: `committedBytes`; zstd: the end of the last complete frame after which the scanner had neither an
 * issue nor a partial line — and before anything provisional (a recovered torn frame, the closers) is applied.
 */
import { SessionLogError } from '../../protocol/errors.js';
import type { SessionEvent } from '../../protocol/events.js';
import type { Compression } from '../../protocol/storage-paths.js';
import { decodeArtifact } from '../decode/decode-artifact.js';
import { JsonlScanner, type JsonlScanCheckpoint } from '../decode/jsonl-scanner.js';
import { decodeCompleteFrame, decompressFrame, recoverTornFrame } from '../decode/zstd-codec.js';
import { scanZstdFrames, type FrameRange, type TornFrameLayout, type ZstdFrameScan } from '../decode/zstd-frames.js';
import { serializeError, type SerializedError } from './serialized-error.js';
import { TitleValidator, type TitleValidatorCheckpoint } from './title-validator.js';
import { assertNever } from '../../protocol/assert-never.js';
import { concatBytes } from '../../protocol/concat-bytes.js';
import { ownBytes } from '../../protocol/own-bytes.js';
import { isMainThread } from 'node:worker_threads';

const LF = 0x0a;

/** Input bytes scanned between two polls (SESSION-LOG.md §10.6 rule 3). */
export const TITLE_SCAN_POLL_BYTES = 256 * 1024;

/** Where the line scanner stands at a clean point (its issue is always none there). */
export type ScannerPosition = Omit<JsonlScanCheckpoint, 'issue'>;

/** Everything needed to continue a title scan at `resumeOffset`, as plain data. */
export interface TitleScanCheckpoint {
  readonly compression: Compression;
  /** File offset the next scan starts at (raw: `committedBytes`; zstd: a clean frame boundary). */
  readonly resumeOffset: number;
  /** Length in the file of the header record (raw) or of frame 0 (zstd): the bytes `headerDigest` covers. */
  readonly headerLength: number;
  /** The header record's plaintext, LF included. */
  readonly headerLine: Uint8Array;
  /** The line scanner at `resumeOffset` (stream offsets: file offsets in raw mode, plaintext offsets in zstd mode). */
  readonly scanner: ScannerPosition;
  /** The validator after every event committed before `resumeOffset`. */
  readonly validator: TitleValidatorCheckpoint;
}

/**
 * The result of one observation, before stage R4 (which needs the requested id and the file system):
 * a read failure (R3, thrown unwrapped), a validation failure (S1–S6, already classified), or valid.
 */
export type TitleScanOutcome =
  | { readonly kind: 'read-failed'; readonly error: SerializedError }
  | { readonly kind: 'invalid'; readonly headerLine: Uint8Array; readonly error: SerializedError }
  | { readonly kind: 'valid'; readonly headerLine: Uint8Array; readonly titleLine: Uint8Array | null };

/** What {@link scanTitleLog} reads. */
export interface TitleScanInput {
  readonly compression: Compression;
  /** The artifact path, as inspection texts name it. */
  readonly path: string;
  /**
   * Without a checkpoint: the whole file. With one: the file's bytes from `checkpoint.resumeOffset` to its end
   * (the caller has verified that the bytes before are the ones the checkpoint was taken over).
   */
  readonly bytes: Uint8Array;
  readonly checkpoint?: TitleScanCheckpoint;
  /** Called between chunks of work; may throw to stop the scan (a worker's abort poll). */
  readonly poll?: () => void;
  /**
   * Called with every stored event the validator adopted (stage S3), in seq order, committed and provisional
   * alike (the source cache projects them; events before `checkpoint.validator.eventCount` are the committed ones).
   * Their messages are deep-frozen on the main thread only: in a worker what an observer keeps leaves as a clone.
   */
  readonly observe?: (event: SessionEvent) => void;
}

/** What {@link scanTitleLog} returns. */
export interface TitleScanResult {
  readonly outcome: TitleScanOutcome;
  /** The checkpoint at the furthest clean point; `null` when the header itself failed. */
  readonly checkpoint: TitleScanCheckpoint | null;
  /** For a valid outcome: how many balanced events the inspection has (stored events plus closers). */
  readonly balancedEvents?: number;
}

/** A scan that has its header and is ready for event lines. */
interface ScanStart {
  readonly headerLine: Uint8Array;
  readonly headerLength: number;
  readonly scanner: JsonlScanner;
  readonly validator: TitleValidator;
}

/** A clean point reached during a scan. */
interface CleanPoint {
  readonly resumeOffset: number;
  readonly scanner: ScannerPosition;
  readonly eventCount: number;
}

function readFailed(error: unknown): TitleScanOutcome {
  return { kind: 'read-failed', error: serializeError(error) };
}

function positionOf(checkpoint: JsonlScanCheckpoint): ScannerPosition {
  return {
    lineStart: checkpoint.lineStart,
    committedBytes: checkpoint.committedBytes,
    eventCount: checkpoint.eventCount,
    eventLine: checkpoint.eventLine,
  };
}

/** Counts input and calls the poll about every {@link TITLE_SCAN_POLL_BYTES}. */
class Poller {
  #sincePoll = 0;

  constructor(private readonly poll: (() => void) | undefined) {}

  /** Accounts for `bytes` of input about to be processed. */
  tick(bytes: number): void {
    if (this.poll === undefined) return;
    this.#sincePoll += bytes;
    if (this.#sincePoll >= TITLE_SCAN_POLL_BYTES) {
      this.#sincePoll = 0;
      this.poll();
    }
  }

  /** Polls now (between frames). */
  now(): void {
    this.#sincePoll = 0;
    this.poll?.();
  }
}

/**
 * Feeds plaintext to the line scanner one line at a time and every committed event to the validator with
 * the full line it came from (a line may span zstd frames). Tracks the last clean line for raw mode.
 */
class LineFeeder {
  #fragment: Uint8Array | null = null;
  #issued = false;
  #lastClean: JsonlScanCheckpoint;

  constructor(
    private readonly scanner: JsonlScanner,
    private readonly validator: TitleValidator,
    private readonly poller: Poller,
    private readonly observe?: (event: SessionEvent) => void,
  ) {
    this.#lastClean = scanner.checkpoint();
  }

  /** The scanner's checkpoint after the last line that left it without an issue. */
  get lastClean(): JsonlScanCheckpoint {
    return this.#lastClean;
  }

  /**
   * Feeds `chunk`; a trailing part without LF is kept for the next chunk. Returns what the scanner threw (a
   * fatal issue or a `null` line's TypeError: an R3 failure), or `null`.
   */
  feed(chunk: Uint8Array): { readonly error: unknown } | null {
    let from = 0;
    for (let newline = chunk.indexOf(LF); newline !== -1; newline = chunk.indexOf(LF, from)) {
      const part = chunk.subarray(from, newline + 1);
      from = newline + 1;
      const line = this.#fragment === null ? part : concatBytes(this.#fragment, part);
      this.#fragment = null;
      this.poller.tick(part.length);
      try {
        this.scanner.write(part);
      } catch (error) {
        return { error };
      }
      const events = this.scanner.events;
      for (const event of events) {
        const adopted = this.validator.push(event, line);
        if (adopted !== undefined) this.observe?.(adopted);
      }
      events.length = 0;
      if (!this.#issued) {
        const checkpoint = this.scanner.checkpoint();
        // An issue never clears, so the first one ends the search for clean lines.
        if (checkpoint.issue === null) this.#lastClean = checkpoint;
        else this.#issued = true;
      }
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      // Without an LF the scanner only keeps the bytes; nothing is decoded, so nothing can throw.
      this.scanner.write(rest);
      this.#fragment = this.#fragment === null ? ownBytes(rest) : concatBytes(this.#fragment, rest);
    }
    return null;
  }
}

function checkpointAt(compression: Compression, start: ScanStart, clean: CleanPoint): TitleScanCheckpoint {
  if (clean.eventCount !== start.validator.eventCount) {
    throw new Error('title scan checkpoint taken away from the validator position');
  }
  return {
    compression,
    resumeOffset: clean.resumeOffset,
    headerLength: start.headerLength,
    headerLine: start.headerLine,
    scanner: clean.scanner,
    validator: start.validator.checkpoint(),
  };
}

function finish(start: ScanStart): TitleScanOutcome {
  const outcome = start.validator.finish();
  return outcome.ok
    ? { kind: 'valid', headerLine: start.headerLine, titleLine: outcome.titleLine }
    : { kind: 'invalid', headerLine: start.headerLine, error: outcome.error };
}

/** The result of a scan that reached its end: the outcome, the checkpoint, and (valid only) the balanced event count. */
function finished(start: ScanStart, checkpoint: TitleScanCheckpoint): TitleScanResult {
  const outcome = finish(start);
  // After finish the validator has counted the closers too.
  return outcome.kind === 'valid' ? { outcome, checkpoint, balancedEvents: start.validator.eventCount } : { outcome, checkpoint };
}

/**
 * Whether the validator freezes adopted messages: only when an observer on the main thread may keep them. Without an
 * observer no event outlives the scan; a worker's observers send what they keep as clones.
 */
function freezesEvents(input: TitleScanInput): boolean {
  return input.observe !== undefined && isMainThread;
}

function resumeFrom(checkpoint: TitleScanCheckpoint, input: TitleScanInput): ScanStart {
  return {
    headerLine: checkpoint.headerLine,
    headerLength: checkpoint.headerLength,
    scanner: JsonlScanner.resume({ ...checkpoint.scanner, issue: null }, input.path),
    validator: TitleValidator.restore(checkpoint.validator, input.path, freezesEvents(input)),
  };
}

/** Raw framing (§9.8): header record, then the committed lines; the torn tail and issue lines stay outside the checkpoint. */
function scanRaw(input: TitleScanInput): TitleScanResult {
  let start: ScanStart;
  let body: Uint8Array;
  if (input.checkpoint === undefined) {
    const bytes = input.bytes;
    const headerEnd = bytes.indexOf(LF);
    let headerRecord: Record<string, unknown>;
    try {
      // Without an LF the whole file goes in, so the decoder throws its own header-less error.
      headerRecord = decodeArtifact(headerEnd === -1 ? bytes : bytes.subarray(0, headerEnd + 1), 'none', input.path).headerRecord;
    } catch (error) {
      return { outcome: readFailed(error), checkpoint: null };
    }
    if (headerEnd === -1) throw new Error('a raw artifact without LF decoded');
    const headerLength = headerEnd + 1;
    start = {
      headerLine: ownBytes(bytes, 0, headerLength),
      headerLength,
      scanner: new JsonlScanner(headerLength, input.path),
      validator: TitleValidator.start(headerRecord, input.path, freezesEvents(input)),
    };
    body = bytes.subarray(headerLength);
  } else {
    start = resumeFrom(input.checkpoint, input);
    body = input.bytes;
  }
  const feeder = new LineFeeder(start.scanner, start.validator, new Poller(input.poll), input.observe);
  // The final fragment without LF is a torn tail: never a line, so it is not fed at all.
  const failure = feeder.feed(body.subarray(0, body.lastIndexOf(LF) + 1));
  const clean = feeder.lastClean;
  const checkpoint = checkpointAt('none', start, {
    resumeOffset: clean.committedBytes,
    scanner: positionOf(clean),
    eventCount: clean.eventCount,
  });
  if (failure !== null) return { outcome: readFailed(failure.error), checkpoint };
  return finished(start, checkpoint);
}

/**
 * A structural-scan error of a byte range that starts at file offset `base`, with its offsets made absolute:
 * the same bytes are scanned again at their place in a buffer of the file's length.
 */
function absoluteFrameError(range: Uint8Array, base: number, error: unknown): unknown {
  if (base === 0) return error;
  const whole = new Uint8Array(base + range.length);
  whole.set(range, base);
  try {
    scanZstdFrames(whole, base);
  } catch (absolute) {
    return absolute;
  }
  return error;
}

/** Zstandard framing (§9.9): frame scan, header frame, complete frames, the torn-record check, then the torn frame. */
function scanZstd(input: TitleScanInput): TitleScanResult {
  let start: ScanStart;
  let frames: readonly FrameRange[];
  let torn: TornFrameLayout | undefined;
  /** File offset of `buffer[0]`. */
  let base: number;
  /** File offset of the first frame to scan: the first clean point. */
  let firstFrame: number;
  const buffer = input.bytes;
  if (input.checkpoint === undefined) {
    let scan: ZstdFrameScan;
    try {
      scan = scanZstdFrames(buffer);
    } catch (error) {
      return { outcome: readFailed(error), checkpoint: null };
    }
    const headerFrame = scan.frames[0];
    let headerRecord: Record<string, unknown>;
    try {
      // Without a complete frame the whole file goes in, so the decoder throws its own header-less error.
      headerRecord = decodeArtifact(
        headerFrame === undefined ? buffer : buffer.subarray(0, headerFrame.end),
        'zstd',
        input.path,
      ).headerRecord;
    } catch (error) {
      return { outcome: readFailed(error), checkpoint: null };
    }
    if (headerFrame === undefined) throw new Error('a zstd artifact without a complete frame decoded');
    const headerLine = decodeCompleteFrame(buffer.subarray(0, headerFrame.end), headerFrame);
    start = {
      headerLine,
      headerLength: headerFrame.end,
      scanner: new JsonlScanner(headerLine.length, input.path),
      validator: TitleValidator.start(headerRecord, input.path, freezesEvents(input)),
    };
    frames = scan.frames.slice(1);
    torn = scan.torn;
    base = 0;
    firstFrame = headerFrame.end;
  } else {
    base = input.checkpoint.resumeOffset;
    firstFrame = base;
    let scan: ZstdFrameScan;
    try {
      scan = scanZstdFrames(buffer);
    } catch (error) {
      return { outcome: readFailed(absoluteFrameError(buffer, base, error)), checkpoint: input.checkpoint };
    }
    start = resumeFrom(input.checkpoint, input);
    frames = scan.frames;
    torn = scan.torn;
  }

  const poller = new Poller(input.poll);
  const feeder = new LineFeeder(start.scanner, start.validator, poller, input.observe);
  let clean: CleanPoint = {
    resumeOffset: firstFrame,
    scanner: positionOf(start.scanner.checkpoint()),
    eventCount: start.validator.eventCount,
  };
  let failure: { readonly error: unknown } | null = null;
  for (const frame of frames) {
    poller.now();
    let plaintext: Uint8Array;
    try {
      plaintext = decompressFrame(buffer.subarray(frame.start, frame.end), base + frame.start, frame);
    } catch (error) {
      failure = { error };
      break;
    }
    failure = feeder.feed(plaintext);
    if (failure !== null) break;
    const after = start.scanner.checkpoint();
    if (after.issue === null && after.committedBytes === start.scanner.inputBytes) {
      clean = { resumeOffset: base + frame.end, scanner: positionOf(after), eventCount: start.validator.eventCount };
    }
  }
  if (failure === null && start.scanner.committedBytes !== start.scanner.inputBytes) {
    failure = {
      error: new SessionLogError('SESSION_LOG_CORRUPT', 'corrupt Zstandard session log: complete frame contains a torn JSONL record'),
    };
  }
  if (failure !== null) {
    // Events committed after the last clean frame are in the validator; rescan up to that frame for its state.
    const checkpoint =
      start.validator.eventCount === clean.eventCount ? checkpointAt('zstd', start, clean) : replayTo(input, clean.resumeOffset - base);
    return { outcome: readFailed(failure.error), checkpoint };
  }
  const checkpoint = checkpointAt('zstd', start, clean);
  if (torn !== undefined) {
    poller.now();
    // Recovered events are provisional: they reach the validator only after the checkpoint was taken.
    const tornFailure = feeder.feed(recoverTornFrame(buffer, torn));
    if (tornFailure !== null) return { outcome: readFailed(tornFailure.error), checkpoint };
  }
  return finished(start, checkpoint);
}

/** The checkpoint at the clean frame boundary `length` bytes into the input (a scan that meets no failure). */
function replayTo(input: TitleScanInput, length: number): TitleScanCheckpoint {
  // The replay observes nothing: its events were observed by the scan it serves.
  const { observe: _unobserved, ...quiet } = input;
  const replay = scanZstd({ ...quiet, bytes: input.bytes.subarray(0, length) });
  const expectedOffset = (input.checkpoint?.resumeOffset ?? 0) + length;
  if (replay.checkpoint === null || replay.checkpoint.resumeOffset !== expectedOffset) {
    throw new Error('title scan replay did not reach its clean frame boundary');
  }
  return replay.checkpoint;
}

/**
 * Scans an artifact for its title observation (SESSION-LOG.md §10.7): from offset 0 without a checkpoint, or
 * continuing `input.checkpoint` over the bytes after its resume offset. The outcome equals what a full
 * inspection (§9.15 stages R3 and S1–S6) of the whole file gives, except stage R4, which the caller applies.
 * Zstd mode requires `initZstd()` to have resolved.
 *
 * @throws only on a bug or exhausted resources (never for log content); callers then fall back to a full
 *   inspection. What `input.poll` throws propagates.
 */
export function scanTitleLog(input: TitleScanInput): TitleScanResult {
  if (input.checkpoint !== undefined && input.checkpoint.compression !== input.compression) {
    throw new Error('a title scan checkpoint of another compression mode');
  }
  switch (input.compression) {
    case 'none':
      return scanRaw(input);
    case 'zstd':
      return scanZstd(input);
    default:
      assertNever(input.compression, 'unknown compression');
  }
}

/**
 * The event-line scanner of SESSION-LOG.md §9.11: consumes the byte stream after the header record (raw
 * mode) or the plaintext of frames 1… (zstd mode) in chunks of any size, splits it on LF, decodes each
 * complete line (§9.7) and tracks the committed region, the first issue and the torn tail.
 *
 * Its progress is plain data ({@link JsonlScanCheckpoint}) so that an incremental reader can persist it
 * and later resume at the next unconsumed line with {@link JsonlScanner.resume}.
 */
import { SessionLogError } from '../../protocol/errors.js';
import { assertEventDepth, MIN_TOO_DEEP_LINE_BYTES } from '../../protocol/json-depth.js';
import { decodeStorageRecord } from '../../protocol/storage-rows.js';
import { ownBytes } from '../../protocol/own-bytes.js';

const LF = 0x0a;

/** Everything the scanner knows besides the events it returned, as plain data. */
export interface JsonlScanCheckpoint {
  /** Stream offset of the first byte of the next line not yet consumed (a line start). */
  readonly lineStart: number;
  /** Stream offset just after the last line that was committed (§9.11 rule 4). */
  readonly committedBytes: number;
  /** Number of events committed so far: the `seq` the next event must have. */
  readonly eventCount: number;
  /** Number of complete event lines consumed so far (event lines are numbered from 1). */
  readonly eventLine: number;
  /** The first issue's message, once one occurred; every later line is then only checked for `turn/end`. */
  readonly issue: string | null;
}

/** Reads `value[key]` the way JavaScript property access does, so `null` throws the engine's own TypeError. */
function readField(value: unknown, key: 'type' | 'seq'): unknown {
  if (value === null || value === undefined) {
    // dsh reads `.type`/`.seq` of a decoded null line unguarded; the resulting TypeError is a read failure, not an issue (§9.11).
    throw new TypeError(`Cannot read properties of ${String(value)} (reading '${key}')`);
  }
  return (value as Record<string, unknown>)[key];
}

function containsTurnEnd(events: readonly unknown[]): boolean {
  return events.some((event) => readField(event, 'type') === 'turn/end');
}

/**
 * Incremental scanner of event lines. Feed bytes with {@link write}; read `events` (the events committed
 * since construction, in order), `committedBytes` and `inputBytes` at any time. A fatal issue (an issue
 * followed by a row containing `turn/end`) is thrown from `write`; a decoded `null` line throws a TypeError; a
 * record to be committed that nests deeper than SESSION-LOG.md §9.15a allows throws `SESSION_LOG_TOO_DEEP`.
 */
export class JsonlScanner {
  /** Events committed by this scanner instance (a resumed scanner starts empty). */
  readonly events: unknown[] = [];

  // Progress, kept as plain numbers so that checkpoint() is a copy (see JsonlScanCheckpoint).
  private lineStart: number;
  private committed: number;
  private eventCount: number;
  private eventLine: number;
  private issue: string | null;
  private consumed: number;
  /** Copies of the bytes of the unfinished line (callers may reuse their chunk buffers). */
  private fragments: Uint8Array[] = [];
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  /** The artifact path, named by the nesting-limit error when known. */
  private readonly path: string | undefined;

  /**
   * Starts a scan right after the header record.
   *
   * @param headerBytes the header record's length (raw: bytes up to and including the first LF; zstd:
   *   the plaintext length of frame 0); stream offsets count from the start of the header record.
   * @param path the artifact path, named in a nesting-limit error (optional).
   */
  constructor(headerBytes: number, path?: string) {
    this.path = path;
    this.lineStart = headerBytes;
    this.committed = headerBytes;
    this.consumed = headerBytes;
    this.eventCount = 0;
    this.eventLine = 0;
    this.issue = null;
  }

  /** A scanner that continues from `checkpoint`; feed it the stream from `checkpoint.lineStart` on. */
  static resume(checkpoint: JsonlScanCheckpoint, path?: string): JsonlScanner {
    const scanner = new JsonlScanner(checkpoint.lineStart, path);
    scanner.committed = checkpoint.committedBytes;
    scanner.eventCount = checkpoint.eventCount;
    scanner.eventLine = checkpoint.eventLine;
    scanner.issue = checkpoint.issue;
    return scanner;
  }

  /** Stream offset just after the last committed line (the raw torn-tail marker, §9.11). */
  get committedBytes(): number {
    return this.committed;
  }

  /** Stream offset just after the last byte written (header record included). */
  get inputBytes(): number {
    return this.consumed;
  }

  /** The plain-data progress of this scan; see {@link JsonlScanCheckpoint}. */
  checkpoint(): JsonlScanCheckpoint {
    return {
      lineStart: this.lineStart,
      committedBytes: this.committed,
      eventCount: this.eventCount,
      eventLine: this.eventLine,
      issue: this.issue,
    };
  }

  /** Consumes the next bytes of the stream. A final fragment without LF is kept until its LF arrives (or forever: a torn tail). */
  write(chunk: Uint8Array): void {
    const chunkStart = this.consumed;
    this.consumed += chunk.length;
    let from = 0;
    for (let newline = chunk.indexOf(LF); newline !== -1; newline = chunk.indexOf(LF, from)) {
      const line = this.takeLine(chunk.subarray(from, newline));
      this.lineStart = chunkStart + newline + 1;
      this.consumeLine(line, this.lineStart);
      from = newline + 1;
    }
    if (from < chunk.length) this.fragments.push(ownBytes(chunk, from));
  }

  /** The bytes of the line ending in `tail`, joined with any fragment carried over from earlier chunks. */
  private takeLine(tail: Uint8Array): Uint8Array {
    if (this.fragments.length === 0) return tail;
    let length = tail.length;
    for (const fragment of this.fragments) length += fragment.length;
    const line = new Uint8Array(length);
    let offset = 0;
    for (const fragment of this.fragments) {
      line.set(fragment, offset);
      offset += fragment.length;
    }
    line.set(tail, offset);
    this.fragments = [];
    return line;
  }

  /** Applies SESSION-LOG.md §9.11 rules 1–4 to one complete line ending just before `lineEnd`. */
  private consumeLine(line: Uint8Array, lineEnd: number): void {
    this.eventLine += 1;
    let decoded: unknown[];
    let record: unknown;
    try {
      // JSON.parse is not recursive in V8, so any nesting parses; the depth is judged below.
      record = JSON.parse(this.decoder.decode(line));
      decoded = decodeStorageRecord(record);
    } catch {
      // Rule 1: a line that does not parse or decode becomes the issue (if none yet); its error is not kept.
      this.issue ??= `corrupt session log: unparsable committed event at line ${this.eventLine}`;
      return;
    }
    if (this.issue !== null) {
      if (containsTurnEnd(decoded)) throw new SessionLogError('SESSION_LOG_CORRUPT', this.issue);
      return;
    }
    for (let k = 0; k < decoded.length; k++) {
      const seq = readField(decoded[k], 'seq');
      const expected = this.eventCount + k;
      if (seq !== expected) {
        this.issue = `corrupt session log: seq gap in committed region at line ${this.eventLine} (expected ${expected}, got ${String(seq)})`;
        if (containsTurnEnd(decoded)) throw new SessionLogError('SESSION_LOG_CORRUPT', this.issue);
        return;
      }
    }
    // SESSION-LOG.md §9.15a nesting limit: a record about to be committed that nests too deep fails the read at once,
    // wherever it is, as a validation failure would; nothing that deep ever reaches a recursive step (clone, postMessage).
    if (line.length >= MIN_TOO_DEEP_LINE_BYTES)
      assertEventDepth(record, { line: this.eventLine, ...(this.path === undefined ? {} : { path: this.path }) });
    for (const event of decoded) this.events.push(event);
    this.eventCount += decoded.length;
    this.committed = lineEnd;
  }
}

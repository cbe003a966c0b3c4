// SESSION-REFERENCE.md §15 items 86 and 87: Zstandard framing and torn-frame recovery through
// decodeArtifact, recoverTornFrame and readHeaderFromPrefix (SESSION-LOG.md §9.9, §9.11, §9.13, §9.17).
import { beforeAll, describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError, SessionLogError } from '../../../src/protocol/errors.js';
import { decodeArtifact, readHeaderFromPrefix } from '../../../src/workers/decode/decode-artifact.js';
import { compressFrame, decompressFrame, initZstd, recoverTornFrame } from '../../../src/workers/decode/zstd-codec.js';
import { scanZstdFrames } from '../../../src/workers/decode/zstd-frames.js';
import { concatBytes, storedFrame, utf8Bytes } from '../../support/zstd-stored-frame.js';
import { thrown } from '../../support/thrown.js';

const PATH = '/r/--w--/s/session.jsonl.zstd';
const HEADER = '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","delegationDepth":0}\n';
const ev = (seq: number, type = 'step/start', data: unknown = { turn: 1, step: seq }): string =>
  JSON.stringify({ type, seq, time: 100 + seq, data });
const turnEnd = (seq: number): string => ev(seq, 'turn/end', { turn: 1, reason: { kind: 'completed' } });
const batch = (...lines: string[]): Uint8Array => utf8Bytes(lines.map((line) => line + '\n').join(''));
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

beforeAll(async () => {
  await initZstd();
});

function decodeZstd(bytes: Uint8Array): ReturnType<typeof decodeArtifact> {
  return decodeArtifact(bytes, 'zstd', PATH);
}

/** A header frame and batch frames, compressed the way the Node 20 writer does. */
function file(...batches: Uint8Array[]): Uint8Array {
  return concatBytes(compressFrame(utf8Bytes(HEADER)), ...batches.map((plaintext) => compressFrame(plaintext)));
}

describe('Zstandard framing (item 86)', () => {
  it('decodes a multi-frame file frame by frame (compressed and stored frames mixed)', () => {
    const header = compressFrame(utf8Bytes(HEADER));
    const b1 = compressFrame(batch(ev(0, 'turn/start', { turn: 1 }), ev(1)));
    const b2 = storedFrame(batch(ev(2), ev(3)), [10, batch(ev(2), ev(3)).length - 10]);
    const b3 = compressFrame(batch(turnEnd(4)));
    const bytes = concatBytes(header, b1, b2, b3);
    const result = decodeZstd(bytes);
    expect(result.headerRecord).toEqual({ version: 0, id: 's', createdAt: 1, cwd: '/w', delegationDepth: 0 });
    expect(result.headerBytes).toBe(header.length);
    expect(result.events.map((event) => JSON.stringify(event))).toEqual([
      ev(0, 'turn/start', { turn: 1 }),
      ev(1),
      ev(2),
      ev(3),
      turnEnd(4),
    ]);
    expect(result.committedBytes).toBe(
      utf8Bytes(HEADER).length + batch(ev(0, 'turn/start', { turn: 1 }), ev(1), ev(2), ev(3), turnEnd(4)).length,
    );
    expect(result.tornTail).toBeUndefined();
  });

  it('frame 0 with two lines, or empty, or without LF → first frame is not exactly one header line', () => {
    for (const plaintext of [HEADER + ev(0) + '\n', '', HEADER.trimEnd()]) {
      const bytes = concatBytes(compressFrame(utf8Bytes(plaintext)), compressFrame(batch(ev(0))));
      expect(thrown(() => decodeZstd(bytes))).toMatchObject({
        code: 'SESSION_LOG_CORRUPT',
        message: 'corrupt Zstandard session log: first frame is not exactly one header line',
      });
    }
  });

  it('a complete frame ending mid-line → complete frame contains a torn JSONL record', () => {
    const bytes = file(batch(ev(0)), utf8Bytes(ev(1)));
    expect(thrown(() => decodeZstd(bytes))).toMatchObject({
      code: 'SESSION_LOG_CORRUPT',
      message: 'corrupt Zstandard session log: complete frame contains a torn JSONL record',
    });
  });

  it('an issue inside complete frames (no later turn/end) → complete frame contains a torn JSONL record', () => {
    expect(thrown(() => decodeZstd(file(batch(ev(0), '{oops', ev(2)))))).toMatchObject({
      message: 'corrupt Zstandard session log: complete frame contains a torn JSONL record',
    });
    expect(thrown(() => decodeZstd(file(batch(ev(0), ev(5)))))).toMatchObject({
      message: 'corrupt Zstandard session log: complete frame contains a torn JSONL record',
    });
    // With a later turn/end the scanner's own issue text wins.
    expect(thrown(() => decodeZstd(file(batch(ev(0), '{oops'), batch(turnEnd(2)))))).toMatchObject({
      message: 'corrupt session log: unparsable committed event at line 2',
    });
  });

  it('a line continued by the next complete frame is accepted (the check runs after all complete frames)', () => {
    const line = ev(0);
    const result = decodeZstd(file(utf8Bytes(line.slice(0, 9)), utf8Bytes(line.slice(9) + '\n')));
    expect(result.events.map((event) => JSON.stringify(event))).toEqual([line]);
  });

  it('reports a bad magic, a reserved frame-header bit and a reserved block type with their byte offsets', () => {
    const header = compressFrame(utf8Bytes(HEADER));
    const body = compressFrame(batch(ev(0)));
    const at = header.length;

    const badMagic = concatBytes(header, body);
    badMagic[at + 2] = 0x00;
    expect(thrown(() => decodeZstd(badMagic))).toMatchObject({
      message: `corrupt Zstandard session log: invalid frame magic at byte ${at}`,
    });

    const reserved = concatBytes(header, body);
    reserved[at + 4]! |= 0x08;
    expect(thrown(() => decodeZstd(reserved))).toMatchObject({
      message: `corrupt Zstandard session log: reserved frame-header bit at byte ${at + 4}`,
    });
    const unused = concatBytes(header, body);
    unused[at + 4]! |= 0x10;
    expect(thrown(() => decodeZstd(unused))).toMatchObject({
      message: `corrupt Zstandard session log: reserved frame-header bit at byte ${at + 4}`,
    });

    // storedFrame: magic, descriptor 0x04, window byte, then the first block header at +6.
    const stored = storedFrame(batch(ev(0)), [batch(ev(0)).length]);
    const reservedBlock = concatBytes(header, stored);
    reservedBlock[at + 6]! |= 0x06; // block type 3
    expect(thrown(() => decodeZstd(reservedBlock))).toMatchObject({
      message: `corrupt Zstandard session log: reserved block type at byte ${at + 6}`,
    });

    // Skippable frames are not supported: their magic is just another invalid magic.
    const skippable = concatBytes(header, Uint8Array.from([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]), body);
    expect(thrown(() => decodeZstd(skippable))).toMatchObject({
      message: `corrupt Zstandard session log: invalid frame magic at byte ${at}`,
    });
  });

  it('a flipped checksum byte → frame at byte <N> failed validation, for frame 0 and later frames', () => {
    const header = compressFrame(utf8Bytes(HEADER));
    const body = compressFrame(batch(ev(0)));
    const later = concatBytes(header, body, compressFrame(batch(ev(1))));
    later[header.length + body.length - 1]! ^= 0xff;
    const error = thrown(() => decodeZstd(later));
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error).toMatchObject({ message: `corrupt Zstandard session log: frame at byte ${header.length} failed validation` });
    expect((error as Error).cause).toBeDefined();

    const first = concatBytes(header, body);
    first[header.length - 2]! ^= 0x01;
    expect(thrown(() => decodeZstd(first))).toMatchObject({ message: 'corrupt Zstandard session log: frame at byte 0 failed validation' });
  });

  it.each([1, 2, 3])('%i trailing bytes → torn at their offset, earlier frames kept', (count) => {
    const complete = file(batch(ev(0, 'turn/start', { turn: 1 })), batch(ev(1)));
    const bytes = concatBytes(complete, Uint8Array.from([0x28, 0xb5, 0x2f].slice(0, count)));
    const result = decodeZstd(bytes);
    expect(result.events).toHaveLength(2);
    expect(result.tornTail).toEqual({ truncateTo: complete.length, recoveredEvents: 0 });
    // Even bytes that are no magic at all: fewer than 4 bytes are torn before the magic is checked.
    expect(decodeZstd(concatBytes(complete, new Uint8Array(count))).tornTail).toEqual({ truncateTo: complete.length, recoveredEvents: 0 });
  });

  it('zero complete frames → empty or header-less Zstandard session log', () => {
    const header = compressFrame(utf8Bytes(HEADER));
    for (const bytes of [new Uint8Array(0), header.subarray(0, header.length - 1), Uint8Array.from([0x28, 0xb5])]) {
      expect(thrown(() => decodeZstd(bytes))).toMatchObject({
        code: 'SESSION_LOG_CORRUPT',
        message: 'empty or header-less Zstandard session log',
      });
    }
  });

  it('applies the header-record rules to frame 0 (JSON, shape, version refusal with the raw-log suffix)', () => {
    const withHeader = (line: string): Uint8Array => concatBytes(compressFrame(utf8Bytes(line + '\n')), compressFrame(batch(ev(0))));
    expect(thrown(() => decodeZstd(withHeader('nope')))).toMatchObject({ message: 'corrupt session log: header line is not valid JSON' });
    expect(thrown(() => decodeZstd(withHeader('{"type":"session","version":0,"id":"s","createdAt":1}')))).toMatchObject({
      message: 'corrupt session log: first line is not a session header',
    });
    const refusal = thrown(() => decodeZstd(withHeader('{"type":"session","version":1,"id":"s","createdAt":1,"delegationDepth":0}')));
    expect(refusal).toBeInstanceOf(SessionFormatUnsupportedError);
    expect((refusal as Error).message).toBe(
      `session "s" uses log format v1, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${PATH})`,
    );
  });
});

/** A 3-block compressed frame: exactly 3 × 128 KiB of JSONL, so every block regenerates exactly 128 KiB. */
function threeBlockBatch(firstSeq: number): { plaintext: Uint8Array; lines: string[] } {
  const target = 3 * 131072;
  const lines: string[] = [];
  let size = 0;
  for (let seq = firstSeq; ; seq++) {
    const line = ev(seq, 'step/start', { turn: 1, step: seq, note: `n${(seq * 7919) % 1013}`.repeat(3) });
    if (size + line.length + 1 > target - 200) {
      // Pad the final line so that the batch is exactly `target` bytes.
      const base = ev(seq, 'step/start', { turn: 1, step: seq, note: '' });
      const pad = target - size - base.length - 1;
      lines.push(ev(seq, 'step/start', { turn: 1, step: seq, note: 'p'.repeat(pad) }));
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  const plaintext = batch(...lines);
  expect(plaintext.length).toBe(target);
  return { plaintext, lines };
}

/** The lines of `lines` that end (LF included) within the first `limit` bytes of their batch. */
function linesWithin(lines: readonly string[], limit: number): string[] {
  const out: string[] = [];
  let end = 0;
  for (const line of lines) {
    end += line.length + 1;
    if (end > limit) break;
    out.push(line);
  }
  return out;
}

describe('torn-frame recovery (item 87)', () => {
  // Built once the codec is initialised (describe bodies run before beforeAll hooks).
  let header: Uint8Array;
  let first: Uint8Array;
  beforeAll(() => {
    header = compressFrame(utf8Bytes(HEADER));
    first = compressFrame(batch(ev(0, 'turn/start', { turn: 1 })));
  });

  it('a 3-block compressed frame cut inside block 3 recovers exactly the lines wholly in blocks 1–2', () => {
    const { plaintext, lines } = threeBlockBatch(1);
    const frame = compressFrame(plaintext);
    const layout = scanZstdFrames(frame).frames[0]!;
    expect(layout.blocks.map((block) => block.type)).toEqual(['compressed', 'compressed', 'compressed']);
    // Single-segment: the synthetic frame must derive its window from the content size (§9.17).
    expect(layout.header.windowDescriptor).toBeUndefined();
    expect(layout.header.contentSize).toBe(3 * 131072);
    const block3 = layout.blocks[2]!;
    const bytes = concatBytes(header, first, frame.subarray(0, block3.start + 3 + Math.floor(block3.size / 2)));
    const result = decodeZstd(bytes);
    const expected = linesWithin(lines, 2 * 131072);
    expect(result.events.map((event) => JSON.stringify(event))).toEqual([ev(0, 'turn/start', { turn: 1 }), ...expected]);
    expect(result.tornTail).toEqual({ truncateTo: header.length + first.length, recoveredEvents: expected.length });
  });

  it('the synthetic prefix frame regenerates exactly blocks 1…k (item 94)', () => {
    const { plaintext } = threeBlockBatch(0);
    const frame = compressFrame(plaintext);
    const blocks = scanZstdFrames(frame).frames[0]!.blocks;
    const cuts: ReadonlyArray<readonly [number, number]> = [
      [blocks[0]!.start + 1, 0], // inside block 1's header
      [blocks[1]!.start + 10, 131072], // inside block 2's payload
      [blocks[2]!.start, 2 * 131072], // exactly at block 3's header
      [frame.length - 2, 3 * 131072], // inside the checksum: every block complete, checksum unchecked
    ];
    for (const [cut, regenerated] of cuts) {
      const torn = scanZstdFrames(frame.subarray(0, cut)).torn!;
      const recovered = recoverTornFrame(frame.subarray(0, cut), torn);
      expect(recovered.length).toBe(regenerated);
      expect(Buffer.compare(recovered, plaintext.subarray(0, regenerated))).toBe(0);
    }
  });

  it('a raw block cut mid-payload recovers the complete lines of the present bytes', () => {
    const lines = [ev(1), ev(2), ev(3), ev(4)];
    const plaintext = batch(...lines);
    const sizes = [lines[0]!.length + 5, plaintext.length - lines[0]!.length - 5];
    const frame = storedFrame(plaintext, sizes);
    const layout = scanZstdFrames(frame).frames[0]!;
    const presentInBlock2 = lines[1]!.length + lines[2]!.length - 3; // block 2 starts 4 bytes into line 2: its rest (+LF) is L2 − 3 bytes, then line 3 without its LF
    const cut = layout.blocks[1]!.start + 3 + presentInBlock2;
    const bytes = concatBytes(header, first, frame.subarray(0, cut));
    const result = decodeZstd(bytes);
    expect(result.events.map((event) => JSON.stringify(event))).toEqual([ev(0, 'turn/start', { turn: 1 }), ev(1), ev(2)]);
    expect(result.tornTail).toEqual({ truncateTo: header.length + first.length, recoveredEvents: 2 });
    expect(text(recoverTornFrame(bytes, scanZstdFrames(bytes).torn!))).toBe(text(plaintext.subarray(0, sizes[0]! + presentInBlock2)));
  });

  it('a frame cut in its header recovers nothing', () => {
    const body = compressFrame(batch(ev(1)));
    for (const cut of [4, 5]) {
      const bytes = concatBytes(header, first, body.subarray(0, cut));
      const result = decodeZstd(bytes);
      expect(result.events).toHaveLength(1);
      expect(result.tornTail).toEqual({ truncateTo: header.length + first.length, recoveredEvents: 0 });
      expect(recoverTornFrame(bytes, scanZstdFrames(bytes).torn!)).toEqual(new Uint8Array(0));
    }
  });

  it('a torn frame whose complete block is corrupt recovers nothing', () => {
    const { plaintext } = threeBlockBatch(1);
    const frame = compressFrame(plaintext);
    const [block1, , block3] = scanZstdFrames(frame).frames[0]!.blocks;
    frame.fill(0xff, block1!.start + 3, block1!.end);
    expect(() => decompressFrame(frame, 0)).toThrow('failed validation');
    const bytes = concatBytes(header, first, frame.subarray(0, block3!.start + 100));
    expect(recoverTornFrame(bytes, scanZstdFrames(bytes).torn!)).toEqual(new Uint8Array(0));
    const result = decodeZstd(bytes);
    expect(result.events).toHaveLength(1);
    expect(result.tornTail).toEqual({ truncateTo: header.length + first.length, recoveredEvents: 0 });
  });

  it('RLE blocks: complete ones are regenerated, an RLE block without its byte contributes nothing', () => {
    // magic, descriptor 0x00 (no checksum, windowed), window 2^10; raw "abc", RLE "x" × 4, raw "yz" (last).
    const frame = Uint8Array.from([
      0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0x18, 0x00, 0x00, 0x61, 0x62, 0x63, 0x22, 0x00, 0x00, 0x78, 0x11, 0x00, 0x00, 0x79, 0x7a,
    ]);
    expect(text(decompressFrame(frame, 0))).toBe('abcxxxxyz');
    const recover = (cut: number): string => text(recoverTornFrame(frame.subarray(0, cut), scanZstdFrames(frame.subarray(0, cut)).torn!));
    expect(recover(15)).toBe('abc'); // RLE header present, byte missing
    expect(recover(16)).toBe('abcxxxx');
    expect(recover(20)).toBe('abcxxxxy');
  });

  it('single-segment originals: the synthetic frame replaces the content-size field by a window byte', () => {
    const plaintext = utf8Bytes('z'.repeat(6000));
    const frame = storedFrame(plaintext, [2000, 2000, 2000], { singleSegment: true });
    expect(decompressFrame(frame, 0)).toEqual(plaintext);
    const layout = scanZstdFrames(frame).frames[0]!;
    expect(layout.header.contentSize).toBe(6000);
    const cut = layout.blocks[2]!.start + 2; // inside block 3's header
    const torn = scanZstdFrames(frame.subarray(0, cut)).torn!;
    // The synthetic frame drops the 2-byte content-size field and adds a window byte. (The window size itself
    // is pinned by the compressed-frame tests above: compressFrame writes single-segment frames, and their
    // compressed blocks fail to decode under a too-small window.)
    expect(recoverTornFrame(frame.subarray(0, cut), torn)).toEqual(plaintext.subarray(0, 4000));
  });

  it('issues inside the recovered plaintext are tolerated; a turn/end after them still throws', () => {
    const tolerated = concatBytes(
      header,
      first,
      storedFrame(batch(ev(1), '{bad', ev(3)), [batch(ev(1), '{bad', ev(3)).length]).subarray(0, -4),
    );
    const result = decodeZstd(tolerated);
    expect(result.events.map((event) => JSON.stringify(event))).toEqual([ev(0, 'turn/start', { turn: 1 }), ev(1)]);
    expect(result.tornTail?.recoveredEvents).toBe(1);
    const fatal = concatBytes(
      header,
      first,
      storedFrame(batch(ev(1), '{bad', turnEnd(3)), [batch(ev(1), '{bad', turnEnd(3)).length]).subarray(0, -4),
    );
    expect(thrown(() => decodeZstd(fatal))).toMatchObject({ message: 'corrupt session log: unparsable committed event at line 3' });
  });

  // The cross-check against node:zlib's libzstd (Node ≥ 22 only) runs in the Node 22 test package:
  // test/dsh-host/zstd-node-cross-check.test.mts.
});

describe('readHeaderFromPrefix (listing, SESSION-LOG.md §9.13 step 4)', () => {
  it('raw: the bytes before the first LF; incomplete until an LF arrives', () => {
    const bytes = utf8Bytes(HEADER + ev(0) + '\n');
    expect(readHeaderFromPrefix(bytes.subarray(0, 10), 'none')).toEqual({ status: 'incomplete' });
    expect(readHeaderFromPrefix(new Uint8Array(0), 'none')).toEqual({ status: 'incomplete' });
    expect(readHeaderFromPrefix(bytes, 'none')).toEqual({ status: 'ok', line: HEADER.slice(0, -1), headerBytes: utf8Bytes(HEADER).length });
  });

  it('zstd: the first complete frame only; incomplete while it is torn', () => {
    const header = compressFrame(utf8Bytes(HEADER));
    const bytes = concatBytes(header, compressFrame(batch(ev(0))));
    expect(readHeaderFromPrefix(header.subarray(0, header.length - 1), 'zstd')).toEqual({ status: 'incomplete' });
    expect(readHeaderFromPrefix(bytes, 'zstd')).toEqual({ status: 'ok', line: HEADER.slice(0, -1), headerBytes: header.length });
    // Garbage after the first frame is not looked at.
    expect(readHeaderFromPrefix(concatBytes(header, utf8Bytes('garbage')), 'zstd').status).toBe('ok');
  });

  it('zstd: structural errors throw; a bad checksum fails the header frame; frame 0 must be one line', () => {
    const header = compressFrame(utf8Bytes(HEADER));
    const badMagic = header.slice();
    badMagic[0] = 0;
    expect(thrown(() => readHeaderFromPrefix(badMagic, 'zstd'))).toMatchObject({
      message: 'corrupt Zstandard session log: invalid frame magic at byte 0',
    });
    const badChecksum = header.slice();
    badChecksum[badChecksum.length - 1]! ^= 0x80;
    const error = thrown(() => readHeaderFromPrefix(badChecksum, 'zstd'));
    expect(error).toMatchObject({ code: 'SESSION_LOG_CORRUPT', message: 'corrupt Zstandard session log: header frame failed validation' });
    expect((error as Error).cause).toBeDefined();
    expect(thrown(() => readHeaderFromPrefix(compressFrame(utf8Bytes(HEADER + HEADER)), 'zstd'))).toMatchObject({
      message: 'corrupt Zstandard session log: first frame is not exactly one header line',
    });
  });
});

// The dsh-written fixtures (dsh-small) through stage R3: raw and zstd artifacts of every session decode to
// the same stored events and header record, the writer side reproduces dsh's header lines and batches
// byte for byte, and the crashed session ends in an open turn (SESSION-LOG.md §9.6–§9.9, §9.11;
// SESSION-REFERENCE.md §15 item 95).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionHeader } from '../../../../src/protocol/events.js';
import { serializeHeaderLine } from '../../../../src/protocol/header-line.js';
import { decodeStorageRecord, encodeStorageBatch } from '../../../../src/protocol/storage-rows.js';
import { artifactFileName, encodeSegment, projectDirName } from '../../../../src/protocol/storage-paths.js';
import { decodeArtifact, readHeaderFromPrefix } from '../../../../src/workers/decode/decode-artifact.js';
import { compressFrame, decompressFrame, initZstd } from '../../../../src/workers/decode/zstd-codec.js';
import { scanZstdFrames } from '../../../../src/workers/decode/zstd-frames.js';
import { DSH_SMALL, fixtureSessions, RAW_ROOT, ZSTD_ROOT } from '../../../support/fixtures.js';
import { concatBytes } from '../../../support/zstd-stored-frame.js';

const CRASHED = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f';
const sessions = fixtureSessions();
const decoder = new TextDecoder();

/** `events` per session id from sessions.tsv (balanced counts: stored events plus synthetic closers). */
function tsvEventCounts(): Map<string, number> {
  const rows = readFileSync(join(DSH_SMALL, 'sessions.tsv'), 'utf8').trim().split('\n').slice(1);
  return new Map(
    rows.map((row) => {
      const [id, , events] = row.split('\t');
      return [id!, Number(events)];
    }),
  );
}

/** The plaintext of every frame of a zstd artifact. */
function framePlaintexts(bytes: Uint8Array): Uint8Array[] {
  return scanZstdFrames(bytes).frames.map((frame) => decompressFrame(bytes.subarray(frame.start, frame.end), frame.start, frame));
}

beforeAll(async () => {
  await initZstd();
});

describe('dsh-small fixtures', () => {
  it('holds 14 sessions', () => {
    expect(sessions).toHaveLength(14);
  });

  describe.each(sessions)('$id', (session) => {
    const raw = new Uint8Array(readFileSync(session.rawPath));
    const zstd = new Uint8Array(readFileSync(session.zstdPath));
    const firstLine = decoder.decode(raw.subarray(0, raw.indexOf(0x0a)));

    it('raw and zstd decode to deep-equal events; the header record is the first raw line without type', () => {
      const fromRaw = decodeArtifact(raw, 'none', session.rawPath);
      const fromZstd = decodeArtifact(zstd, 'zstd', session.zstdPath);
      expect(fromZstd.events).toEqual(fromRaw.events);
      expect(fromZstd.headerRecord).toEqual(fromRaw.headerRecord);
      const { type, ...expected } = JSON.parse(firstLine) as Record<string, unknown>;
      expect(type).toBe('session');
      expect(fromRaw.headerRecord).toEqual(expected);
      expect(JSON.stringify(fromRaw.headerRecord)).toBe(JSON.stringify(expected));
      expect(fromRaw.events.every((event, i) => (event as { seq: unknown }).seq === i)).toBe(true);
      expect(fromRaw.tornTail).toBeUndefined();
      expect(fromZstd.tornTail).toBeUndefined();
      expect(fromRaw.headerBytes).toBe(raw.indexOf(0x0a) + 1);
      expect(fromRaw.committedBytes).toBe(raw.length);
      expect(fromZstd.headerBytes).toBe(scanZstdFrames(zstd).frames[0]!.end);
      expect(fromZstd.committedBytes).toBe(raw.length);
    });

    it('stores the artifact at the path its header names (§9.2–§9.5)', () => {
      const header = JSON.parse(firstLine) as { id: string; cwd?: string };
      expect(session.rawPath).toBe(join(RAW_ROOT, projectDirName(header.cwd), encodeSegment(header.id), artifactFileName('none')));
      expect(session.zstdPath).toBe(join(ZSTD_ROOT, projectDirName(header.cwd), encodeSegment(header.id), artifactFileName('zstd')));
    });

    it('frame 0 holds exactly the header line, and the frame plaintexts concatenate to the raw file', () => {
      const plaintexts = framePlaintexts(zstd);
      expect(decoder.decode(plaintexts[0])).toBe(firstLine + '\n');
      // Buffer comparison: a deep toEqual over hundreds of KB of bytes is needlessly slow.
      expect(Buffer.compare(concatBytes(...plaintexts), raw)).toBe(0);
    });

    it("serializeHeaderLine reproduces dsh's header line", () => {
      const fromRaw = decodeArtifact(raw, 'none', session.rawPath);
      expect(serializeHeaderLine(fromRaw.headerRecord as unknown as SessionHeader)).toBe(firstLine);
    });

    it('encodeStorageBatch reproduces every dsh batch (one zstd frame each) byte for byte, packed rows included', () => {
      const plaintexts = framePlaintexts(zstd).slice(1);
      let packedRows = 0;
      for (const plaintext of plaintexts) {
        const text = decoder.decode(plaintext);
        const lines = text.split('\n').slice(0, -1);
        packedRows += lines.filter((line) => /^\{"type":"(text|reasoning|tool-call)-chunks"/.test(line)).length;
        const events = lines.flatMap((line) => decodeStorageRecord(JSON.parse(line))) as Parameters<typeof encodeStorageBatch>[0];
        expect(encodeStorageBatch(events, true)).toBe(text);
      }
      expect(packedRows).toBeGreaterThan(0);
    });

    it('reads back identically when re-framed by the Node 20 writer (compressFrame per batch)', () => {
      const rewritten = concatBytes(...framePlaintexts(zstd).map((plaintext) => compressFrame(plaintext)));
      expect(decodeArtifact(rewritten, 'zstd', session.zstdPath).events).toEqual(decodeArtifact(raw, 'none', session.rawPath).events);
    });

    it('the listing read finds the header line in the first 8 KiB', () => {
      expect(readHeaderFromPrefix(raw.subarray(0, 8192), 'none')).toEqual({
        status: 'ok',
        line: firstLine,
        headerBytes: raw.indexOf(0x0a) + 1,
      });
      const frame0 = scanZstdFrames(zstd).frames[0]!;
      expect(readHeaderFromPrefix(zstd.subarray(0, 8192), 'zstd')).toEqual({ status: 'ok', line: firstLine, headerBytes: frame0.end });
    });
  });

  it('stored event counts match sessions.tsv; the crashed session stores 416 events (3 closers come later)', () => {
    const counts = tsvEventCounts();
    for (const session of sessions) {
      const stored = decodeArtifact(new Uint8Array(readFileSync(session.rawPath)), 'none', session.rawPath).events.length;
      expect(stored).toBe(session.id === CRASHED ? counts.get(session.id)! - 3 : counts.get(session.id));
    }
  });

  it('the crashed session ends in an open turn after a recorded tool call (last stored seq 415)', () => {
    const session = sessions.find((candidate) => candidate.id === CRASHED)!;
    const raw = new Uint8Array(readFileSync(session.rawPath));
    expect(raw[raw.length - 1]).toBe(0x0a); // dsh crashed between batches: no torn bytes
    const { events, tornTail } = decodeArtifact(raw, 'none', session.rawPath);
    expect(tornTail).toBeUndefined();
    const typed = events as Array<{ type: string; seq: number; data: { turn?: number } }>;
    expect(typed.at(-1)).toMatchObject({ type: 'tool/call', seq: 415 });
    const lastStart = typed.findLastIndex((event) => event.type === 'turn/start');
    const lastEnd = typed.findLastIndex((event) => event.type === 'turn/end');
    expect(lastStart).toBeGreaterThan(lastEnd);
    expect(typed[lastStart]!.data.turn).toBe(3);
  });

  it('a torn copy of a fixture keeps its committed prefix (raw: cut mid-line; zstd: cut mid-frame)', () => {
    const session = sessions.find((candidate) => candidate.id === CRASHED)!;
    const raw = new Uint8Array(readFileSync(session.rawPath));
    const zstd = new Uint8Array(readFileSync(session.zstdPath));
    const whole = decodeArtifact(raw, 'none', session.rawPath).events;
    const rawCut = raw.subarray(0, raw.length - 10);
    const lastLineStart = rawCut.lastIndexOf(0x0a) + 1;
    expect(decodeArtifact(rawCut, 'none', session.rawPath)).toMatchObject({
      events: whole.slice(0, -1),
      committedBytes: lastLineStart,
      tornTail: { truncateTo: lastLineStart, recoveredEvents: 0 },
    });
    const frames = scanZstdFrames(zstd).frames;
    const lastFrame = frames.at(-1)!;
    const zstdCut = zstd.subarray(0, lastFrame.end - 1);
    const fromCut = decodeArtifact(zstdCut, 'zstd', session.zstdPath);
    const lastBatch = decoder.decode(decompressFrame(zstd.subarray(lastFrame.start, lastFrame.end), lastFrame.start, lastFrame));
    const lastBatchEvents = lastBatch
      .split('\n')
      .slice(0, -1)
      .flatMap((line) => decodeStorageRecord(JSON.parse(line))).length;
    // Cut inside the checksum: every block is complete, so the whole batch is recovered.
    expect(fromCut.events).toEqual(whole);
    expect(fromCut.tornTail).toEqual({ truncateTo: lastFrame.start, recoveredEvents: lastBatchEvents });
  });
});

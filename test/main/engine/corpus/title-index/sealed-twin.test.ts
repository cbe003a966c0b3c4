/**
 * Issue 27 item 3 (memory per session): once the title index has written an entry, memory holds it sealed — its
 * checkpoint as the bytes the file has, decoded again only when a continued scan needs it, and its header and title
 * lines as views into shared buffers — instead of the decoded checkpoint graph beside its bytes; and a sealed twin
 * answers and resumes exactly as the open entry did.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../../src/protocol/events.js';
import {
  encodeTitleIndex,
  holdEntry,
  openCheckpoint,
  sealedTwin,
  type HeldTitleIndexEntry,
} from '../../../../../src/main/engine/corpus/title-index/title-index-file.js';
import { appendLines, expectSameTitles, openPair, removeTempDirs, tempDir } from './title-index-harness.js';

afterAll(removeTempDirs);

const T0 = 1_767_225_600_000;

function titleLine(seq: number, title: string): string {
  return JSON.stringify({ type: 'session/title', seq, time: T0 + seq, data: { title, messageSeqs: [], source: { kind: 'user' } } });
}

/** A valid entry with a checkpoint that carries bytes, strings and nested objects. */
function openEntry(index: number): HeldTitleIndexEntry {
  const headerLine = new TextEncoder().encode(`{"type":"session","version":0,"id":"s-${index}","createdAt":${T0},"cwd":"/w"}\n`);
  const titleBytes = new TextEncoder().encode(titleLine(0, `title ${index}`));
  return holdEntry({
    dev: '2049',
    ino: String(100 + index),
    size: String(500 + index),
    mtimeNs: '1767225600000000000',
    ctimeNs: '1767225600000000001',
    outcome: { kind: 'valid', headerLine, titleLine: titleBytes },
    headerDigest: 'ab'.repeat(32),
    resumeOffset: 400 + index,
    guard: 'cd'.repeat(32),
    state: {
      compression: 'none',
      resumeOffset: 400 + index,
      headerLength: headerLine.length,
      headerLine,
      scanner: { lineStart: 400 + index, committedBytes: 400 + index, eventCount: 1, eventLine: 2, fragments: [] },
      validator: { eventCount: 1, nested: { list: [1, 2, 3], text: 'x' } },
    } as unknown as NonNullable<Parameters<typeof holdEntry>[0]['state']>,
  });
}

/** A value with every byte array as hex (a decoded line is a Buffer view, a scanned one a Uint8Array). */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  return value;
}

describe('the sealed twin of a written entry', () => {
  it('is the entry itself while it was never written', () => {
    const entry = openEntry(1);
    expect(sealedTwin(entry)).toBe(entry);
  });

  it('holds the checkpoint sealed, the same answer, and lines that are views, not arrays of their own', () => {
    const entries = new Map(Array.from({ length: 3 }, (_, index) => [`p/s-${index}.jsonl`, openEntry(index)] as const));
    const file = encodeTitleIndex('/real/root', entries);
    expect(file.length).toBeGreaterThan(0);
    for (const entry of entries.values()) {
      const twin = sealedTwin(entry);
      expect(twin).not.toBe(entry);
      expect(twin.checkpoint.kind).toBe('sealed');
      const { checkpoint: _twinCheckpoint, ...twinAnswer } = twin;
      const { checkpoint: openPart, ...answer } = entry;
      expect(plain(twinAnswer)).toEqual(plain(answer));
      expect(plain(openCheckpoint(twin))).toEqual(plain(openPart.kind === 'open' ? openPart.value : undefined));
      const line = twin.outcome.kind === 'valid' ? twin.outcome.headerLine : undefined;
      // A view into the encoder's buffer, which holds other entries' bytes too.
      expect(line?.buffer.byteLength).toBeGreaterThan(line?.length ?? 0);
      // Sealed again as it is: a second twin is the same object, and the file's bytes do not change.
      expect(sealedTwin(twin)).toBe(twin);
    }
    const twins = new Map([...entries].map(([key, entry]) => [key, sealedTwin(entry)] as const));
    expect(Buffer.from(encodeTitleIndex('/real/root', twins)).equals(Buffer.from(file))).toBe(true);
  });
});

describe('the bytes sealed twins hold', () => {
  it('are the parts alone: not the encoder buffers the file frames were written into beside them', () => {
    const entries = new Map(Array.from({ length: 3000 }, (_, index) => [`p/s-${index}.jsonl`, openEntry(index)] as const));
    const file = encodeTitleIndex('/real/root', entries);
    const buffers = new Set<ArrayBufferLike>();
    for (const entry of entries.values()) {
      const twin = sealedTwin(entry);
      if (twin.checkpoint.kind === 'sealed') buffers.add(twin.checkpoint.bytes.buffer);
      if (twin.outcome.kind === 'valid') buffers.add(twin.outcome.headerLine.buffer);
    }
    const held = [...buffers].reduce((sum, buffer) => sum + buffer.byteLength, 0);
    // The parts are most of the file (its frames add a few bytes each); their chunks add at most one chunk of slack.
    expect(held).toBeLessThanOrEqual(file.length + 256 * 1024);
    expect(held).toBeGreaterThan(file.length / 2);
  });
});

describe('a title index after its write', () => {
  it('continues the sealed checkpoints of grown logs and answers as a full inspection does', async () => {
    const root = join(await tempDir(), 'sessions');
    const { full } = await openPair(root, 'none');
    const ids: string[] = [];
    const paths: string[] = [];
    for (let index = 0; index < 6; index++) {
      const id = `twin-${index}`;
      const path = await full.create({ version: 0, id: asSessionId(id), createdAt: T0 + index, cwd: '/w' } as SessionHeader);
      await appendLines(path, [titleLine(0, `first ${index}`)], 'none');
      ids.push(id);
      paths.push(path);
    }
    const pair = await openPair(root, 'none');
    await expectSameTitles(pair, ids, 'before the write');
    await pair.indexed.flushTitleIndex();
    for (const path of paths.slice(0, 3)) await appendLines(path, [titleLine(1, 'grown after the write')], 'none');
    await expectSameTitles(pair, ids, 'after the write');
    // The grown logs were continued from their (sealed) checkpoints, not scanned again from offset 0.
    expect(pair.indexed.titleIndexStats?.incremental).toBe(3);
    expect(pair.indexed.titleIndexStats?.full).toBe(6);
    expect(pair.indexed.titleIndexStats?.discarded).toBe(0);
  });
});

/**
 * SESSION-REFERENCE.md §15 item 98 (SESSION-LOG.md §10.7 lookup rules 1–3): the same inode and size with a
 * changed mtime/ctime, a rewritten prefix with a larger size (guard mismatch), a rewritten header, a shrunk
 * file and the truncate-then-append crash repair all give what a full inspection gives, and take the lookup
 * path the rules prescribe.
 */
import { open, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../../src/protocol/events.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import { storedFrame, utf8Bytes } from '../../../../support/zstd-stored-frame.js';
import type { TitleIndexStats } from '../../../../../src/main/engine/corpus/title-index/title-index.js';
import { appendLines, expectSameTitles, openPair, removeTempDirs, type StorePair, tempDir } from './title-index-harness.js';

afterAll(removeTempDirs);

const T0 = 1_767_225_600_000;
const ID = 'session-98';

function line(type: string, seq: number, data: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type, seq, time: T0 + seq, data, ...extra });
}

function titleLine(seq: number, title: string): string {
  return line('session/title', seq, { title, messageSeqs: [1], source: { kind: 'user' } });
}

/** A closed turn with a title: seqs `from`…`from + 4`. */
function closedTurn(from: number, turn: number, title: string): string[] {
  return [
    line('turn/start', from, { turn }),
    line(
      'user/message',
      from + 1,
      { id: `u${from + 1}`, role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } },
      { surfaceOp: 'append' },
    ),
    titleLine(from + 2, title),
    line('step/end', from + 3, { turn, step: 1 }),
    line('turn/end', from + 4, { turn, reason: { kind: 'completed' } }),
  ];
}

/** An open turn with a pending tool call: seqs `from`…`from + 2`. */
function openTurn(from: number, turn: number): string[] {
  return [
    line('turn/start', from, { turn }),
    line('step/start', from + 1, { turn, step: 1 }),
    line(
      'assistant/message',
      from + 2,
      {
        turn,
        step: 1,
        message: {
          id: `a${from + 2}`,
          role: 'assistant',
          content: [{ type: 'tool-call', id: 'call-1', name: 'n', arguments: '{}' }],
          source: { kind: 'model', provider: 'p', model: 'm' },
        },
      },
      { surfaceOp: 'append' },
    ),
  ];
}

interface Fixture {
  readonly pair: StorePair;
  readonly path: string;
  readonly root: string;
}

const HEADER_TEXT = `{"type":"session","version":0,"id":"${ID}","createdAt":${T0},"cwd":"/w","delegationDepth":0}\n`;

/**
 * One batch as file bytes of a predictable size: raw text, or a stored zstd frame with one raw block per line
 * (the same length of text always gives the same frame size, and a cut frame keeps its whole blocks).
 */
function encodeBatch(lines: readonly string[], compression: Compression): Uint8Array {
  const texts = lines.map((text) => `${text}\n`);
  const bytes = utf8Bytes(texts.join(''));
  return compression === 'none'
    ? bytes
    : storedFrame(
        bytes,
        texts.map((text) => utf8Bytes(text).length),
      );
}

function encodeHeader(text: string, compression: Compression): Uint8Array {
  return compression === 'none' ? utf8Bytes(text) : storedFrame(utf8Bytes(text), [utf8Bytes(text).length], { singleSegment: true });
}

async function session(compression: Compression, batches: readonly (readonly string[])[]): Promise<Fixture> {
  const root = join(await tempDir(), 'sessions');
  const pair = await openPair(root, compression);
  const path = await pair.full.create({ version: 0, id: asSessionId(ID), createdAt: T0, cwd: '/w' } as SessionHeader);
  await writeFile(path, encodeHeader(HEADER_TEXT, compression));
  for (const batch of batches) await writeFile(path, encodeBatch(batch, compression), { flag: 'a' });
  return { pair, path, root };
}

function stats(fixture: Fixture): TitleIndexStats {
  return fixture.pair.indexed.titleIndexStats as TitleIndexStats;
}

/** Observes through both stores, expects equality, and returns the title (or the rejection message). */
async function observe(fixture: Fixture, label: string): Promise<unknown> {
  const [observation] = await expectSameTitles(fixture.pair, [ID], label);
  if (observation?.status === 'fulfilled') return observation.value.title?.title;
  return (observation?.reason as Error).message;
}

/** Writes `bytes` at `position` without changing the file's size (same inode). */
async function overwrite(path: string, position: number, bytes: Uint8Array): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.write(bytes, 0, bytes.length, position);
  } finally {
    await handle.close();
  }
}

describe.each(['none', 'zstd'] as const)('item 98: title index invalidation (%s)', (compression: Compression) => {
  it('same inode and size, new mtime/ctime, same bytes: rule 2 continues the checkpoint', async () => {
    const fixture = await session(compression, [closedTurn(0, 1, 'alpha')]);
    expect(await observe(fixture, 'first')).toBe('alpha');
    const before = await stat(fixture.path, { bigint: true });
    await utimes(fixture.path, new Date(T0 + 5000), new Date(T0 + 5000));
    const after = await stat(fixture.path, { bigint: true });
    expect([after.ino, after.size]).toEqual([before.ino, before.size]);
    expect(after.mtimeNs).not.toBe(before.mtimeNs);
    expect(await observe(fixture, 'touched')).toBe('alpha');
    expect(stats(fixture)).toMatchObject({ full: 1, incremental: 1 });
  });

  it('same inode and size, the committed lines rewritten in place: guard mismatch, full rescan', async () => {
    const fixture = await session(compression, [closedTurn(0, 1, 'alpha')]);
    expect(await observe(fixture, 'first')).toBe('alpha');
    // Rewrite the events in place with ones of the same length whose title differs.
    const size = (await stat(fixture.path)).size;
    const header = encodeHeader(HEADER_TEXT, compression);
    const body = encodeBatch(closedTurn(0, 1, 'omega'), compression);
    expect(header.length + body.length).toBe(size);
    await overwrite(fixture.path, header.length, body);
    expect(await observe(fixture, 'rewritten in place')).toBe('omega');
    expect(stats(fixture)).toMatchObject({ full: 2, incremental: 0 });
  });

  it('same inode and size, the torn tail rewritten in place: the checkpoint stays valid', async () => {
    const fixture = await session(compression, [closedTurn(0, 1, 'alpha')]);
    expect(await observe(fixture, 'first')).toBe('alpha');
    const tail =
      compression === 'none'
        ? utf8Bytes('{"type":"session/title","seq":5,"time"')
        : encodeBatch([titleLine(5, 'beta'), line('step/end', 6, {})], compression).subarray(0, 150);
    const { size } = await stat(fixture.path);
    await writeFile(fixture.path, tail, { flag: 'a' });
    const expectedTorn = compression === 'none' ? 'alpha' : 'beta';
    expect(await observe(fixture, 'torn tail')).toBe(expectedTorn);
    // Flip the last byte of the tail: in zstd mode inside the interrupted block, so the recovered line stays whole.
    const last = new Uint8Array([(tail[tail.length - 1] as number) ^ 0x01]);
    await overwrite(fixture.path, size + tail.length - 1, last);
    expect(await observe(fixture, 'tail rewritten')).toBe(expectedTorn);
    expect(stats(fixture)).toMatchObject({ full: 1, incremental: 2 });
  });

  it('a rewritten prefix with a larger size: guard mismatch, full rescan', async () => {
    const fixture = await session(compression, [closedTurn(0, 1, 'alpha')]);
    expect(await observe(fixture, 'first')).toBe('alpha');
    const { ino, size } = await stat(fixture.path);
    const headerBytes = encodeHeader(HEADER_TEXT, compression);
    const body = encodeBatch([...closedTurn(0, 1, 'rewritten'), ...closedTurn(5, 2, 'longer')], compression);
    expect(headerBytes.length + body.length).toBeGreaterThan(size);
    const handle = await open(fixture.path, 'r+');
    try {
      await handle.truncate(0);
      await handle.write(headerBytes, 0, headerBytes.length, 0);
      await handle.write(body, 0, body.length, headerBytes.length);
    } finally {
      await handle.close();
    }
    expect((await stat(fixture.path)).ino).toBe(ino);
    expect(await observe(fixture, 'rewritten and longer')).toBe('longer');
    expect(stats(fixture)).toMatchObject({ full: 2, incremental: 0 });
  });

  it('a rewritten header of the same size: header digest mismatch, full rescan', async () => {
    const fixture = await session(compression, [closedTurn(0, 1, 'alpha')]);
    expect(await observe(fixture, 'first')).toBe('alpha');
    const original = `{"type":"session","version":0,"id":"${ID}","createdAt":${T0},"cwd":"/w","delegationDepth":0}\n`;
    const changed = original.replace(`"createdAt":${T0}`, `"createdAt":${T0 + 1}`);
    expect(changed.length).toBe(original.length);
    expect(original).toBe(HEADER_TEXT);
    await overwrite(fixture.path, 0, encodeHeader(changed, compression));
    const [observation] = await expectSameTitles(fixture.pair, [ID], 'header rewritten');
    expect(observation?.status === 'fulfilled' && observation.value.session.createdAt).toBe(T0 + 1);
    expect(stats(fixture).incremental).toBe(0);
  });

  it('a shrunk file (truncated below the resume offset): full rescan', async () => {
    const fixture = await session(compression, [closedTurn(0, 1, 'alpha'), closedTurn(5, 2, 'beta')]);
    expect(await observe(fixture, 'first')).toBe('beta');
    const { size } = await stat(fixture.path);
    await truncate(fixture.path, size - encodeBatch(closedTurn(5, 2, 'beta'), compression).length);
    expect(await observe(fixture, 'truncated to the first batch')).toBe('alpha');
    expect(stats(fixture)).toMatchObject({ full: 2 });
  });

  it('truncate-then-append crash repair: the checkpoint at the torn offset is continued', async () => {
    const fixture = await session(compression, [closedTurn(0, 1, 'alpha'), openTurn(5, 2)]);
    const tornLines = [
      titleLine(8, 'during crash'),
      line('tool/call', 9, { turn: 2, step: 1, callId: 'call-1', name: 'n', arguments: '{}' }),
    ];
    expect(await observe(fixture, 'open turn')).toBe('alpha');
    const torn =
      compression === 'none'
        ? utf8Bytes(`${tornLines[0]}\n${(tornLines[1] as string).slice(0, 20)}`)
        : encodeBatch(tornLines, compression).subarray(0, (tornLines[0] as string).length + 30);
    await writeFile(fixture.path, torn, { flag: 'a' });
    // Raw: the title line is complete, the tool/call line torn; zstd: the title's block is complete, the next one cut.
    expect(await observe(fixture, 'crashed')).toBe('during crash');
    expect(await fixture.pair.full.repair(asSessionId(ID))).toBeGreaterThan(0);
    expect(await observe(fixture, 'repaired')).toBe('during crash');
    const repaired = stats(fixture);
    expect(repaired.full).toBe(1);
    expect(repaired.incremental).toBe(2);
    // The repaired log keeps growing incrementally.
    await appendLines(
      fixture.path,
      closedTurn((await fixture.pair.full.inspectArtifact(asSessionId(ID))).events.length, 3, 'after repair'),
      compression,
    );
    expect(await observe(fixture, 'appended after repair')).toBe('after repair');
    expect(stats(fixture).incremental).toBe(3);
  });
});

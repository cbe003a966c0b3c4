/**
 * What a title scan keeps owns its memory: the header line and title line of an outcome, and the header line and the
 * carried fragment of a checkpoint, are copies, not views into the file's bytes. A scan is handed a `Buffer` (what a
 * file read returns), and `Buffer#slice` is a view: each kept view held the whole file's buffer for as long as the
 * title index held its entry (65 MB of file buffers behind a 5,000-session index, bench/RESULTS.md).
 */
import { describe, expect, it } from 'vitest';
import { ownBytes } from '../../../../../src/protocol/own-bytes.js';
import { scanTitleLog } from '../../../../../src/workers/titles/title-scan.js';

const T0 = 1_767_225_600_000;
const PATH = '/root/--w--/s/session.jsonl';

/** A raw log (header, a titled turn) padded with a long user message, as a `Buffer` with room after it. */
function logBuffer(withTornTail: boolean): Buffer {
  const lines = [
    JSON.stringify({ type: 'session', version: 0, id: 'owned-1', createdAt: T0, cwd: '/w', delegationDepth: 0 }),
    JSON.stringify({ type: 'turn/start', seq: 0, time: T0, data: { turn: 1 } }),
    JSON.stringify({
      type: 'user/message',
      seq: 1,
      time: T0,
      data: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'x'.repeat(20_000) }], source: { kind: 'user' } },
      surfaceOp: 'append',
    }),
    JSON.stringify({ type: 'session/title', seq: 2, time: T0, data: { title: 'kept title', messageSeqs: [], source: { kind: 'user' } } }),
    JSON.stringify({ type: 'turn/end', seq: 3, time: T0, data: { turn: 1, reason: { kind: 'completed' } } }),
  ];
  const text = `${lines.join('\n')}\n${withTornTail ? '{"type":"turn/start","seq":4' : ''}`;
  return Buffer.from(text, 'utf8');
}

/** True when `bytes` is the only view of its own buffer's memory (nothing else of the file is held with it). */
function ownsItsMemory(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength;
}

describe('a title scan keeps only what it needs', () => {
  it('outcome and checkpoint lines are copies, not views into the file buffer', () => {
    const bytes = logBuffer(false);
    const result = scanTitleLog({ compression: 'none', path: PATH, bytes });
    expect(result.outcome.kind).toBe('valid');
    if (result.outcome.kind !== 'valid') return;
    expect(new TextDecoder().decode(result.outcome.titleLine ?? new Uint8Array())).toContain('kept title');
    expect(ownsItsMemory(result.outcome.headerLine)).toBe(true);
    expect(ownsItsMemory(result.outcome.titleLine as Uint8Array)).toBe(true);
    expect(result.checkpoint).not.toBeNull();
    expect(ownsItsMemory(result.checkpoint?.headerLine as Uint8Array)).toBe(true);
  });

  it('a torn last line carried in the checkpoint is a copy too', () => {
    const bytes = logBuffer(true);
    const result = scanTitleLog({ compression: 'none', path: PATH, bytes });
    // Whatever the checkpoint holds as bytes owns its memory: walk it.
    const views: Uint8Array[] = [];
    const walk = (value: unknown): void => {
      if (value instanceof Uint8Array) views.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
    };
    walk(result.checkpoint);
    walk(result.outcome);
    expect(views.length).toBeGreaterThan(0);
    for (const view of views)
      expect(ownsItsMemory(view), `a ${view.byteLength}-byte view of a ${view.buffer.byteLength}-byte buffer`).toBe(true);
  });
});

describe('ownBytes', () => {
  it('copies a range of a Buffer into memory of its own, where Buffer#slice gives a view', () => {
    const buffer = Buffer.from('0123456789');
    expect(ownsItsMemory(buffer.slice(2, 5))).toBe(false);
    const owned = ownBytes(buffer, 2, 5);
    expect(ownsItsMemory(owned)).toBe(true);
    expect(Buffer.from(owned).toString()).toBe('234');
    buffer[2] = 0x41;
    expect(Buffer.from(owned).toString()).toBe('234');
    expect(Buffer.from(ownBytes(buffer)).toString()).toBe('01A3456789');
  });
});

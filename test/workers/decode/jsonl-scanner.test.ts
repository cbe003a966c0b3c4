// SESSION-REFERENCE.md §15 item 85: raw crash tails and the scanner rules of SESSION-LOG.md §9.11, read
// through decodeArtifact (raw mode); plus chunking and checkpoint/resume of the incremental scanner.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SessionLogError } from '../../../src/protocol/errors.js';
import { decodeArtifact } from '../../../src/workers/decode/decode-artifact.js';
import { JsonlScanner } from '../../../src/workers/decode/jsonl-scanner.js';
import { utf8Bytes } from '../../support/zstd-stored-frame.js';
import { thrown } from '../../support/thrown.js';

const PATH = '/r/_no-cwd/s/session.jsonl';
const HEADER = '{"type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0}\n';

const ev = (seq: number, type = 'turn/start', data: unknown = { turn: 1 }): string => JSON.stringify({ type, seq, time: 10 + seq, data });
const turnEnd = (seq: number): string => ev(seq, 'turn/end', { turn: 1, reason: { kind: 'completed' } });
const log = (...lines: string[]): string => HEADER + lines.map((line) => line + '\n').join('');
const bytesOf = (text: string): number => utf8Bytes(text).length;

function decodeRaw(text: string): ReturnType<typeof decodeArtifact> {
  return decodeArtifact(utf8Bytes(text), 'none', PATH);
}

describe('raw framing (SESSION-LOG.md §9.8, §9.11)', () => {
  it('reads a clean log: header record, events, committedBytes = file size, no torn tail', () => {
    const text = log(ev(0), ev(1, 'step/start', { turn: 1, step: 1 }), turnEnd(2));
    const result = decodeRaw(text);
    expect(result.headerRecord).toEqual({ version: 0, id: 's', createdAt: 1, delegationDepth: 0 });
    expect(result.headerBytes).toBe(bytesOf(HEADER));
    expect(result.events.map((event) => JSON.stringify(event))).toEqual([ev(0), ev(1, 'step/start', { turn: 1, step: 1 }), turnEnd(2)]);
    expect(result.committedBytes).toBe(bytesOf(text));
    expect(result.tornTail).toBeUndefined();
  });

  it('ignores a last line without LF (torn tail at the committed offset)', () => {
    const committed = log(ev(0), ev(1, 'step/start'));
    const result = decodeRaw(committed + turnEnd(2).slice(0, 20));
    expect(result.events).toHaveLength(2);
    expect(result.committedBytes).toBe(bytesOf(committed));
    expect(result.tornTail).toEqual({ truncateTo: bytesOf(committed), recoveredEvents: 0 });
  });

  it('accepts CRLF line ends (CR is JSON whitespace)', () => {
    const result = decodeRaw(HEADER.replace('\n', '\r\n') + ev(0) + '\r\n' + turnEnd(1) + '\r\n');
    expect(result.events).toHaveLength(2);
    expect(result.tornTail).toBeUndefined();
  });

  it('tolerates an unparsable line followed only by non-turn/end lines', () => {
    const committed = log(ev(0));
    const result = decodeRaw(committed + '{"type":"step/st\n' + ev(2, 'step/start') + '\n' + ev(3, 'tool/call') + '\n');
    expect(result.events.map((event) => JSON.stringify(event))).toEqual([ev(0)]);
    expect(result.tornTail).toEqual({ truncateTo: bytesOf(committed), recoveredEvents: 0 });
  });

  it('an unparsable line followed by a turn/end fails with the line number of the unparsable line', () => {
    const error = thrown(() => decodeRaw(log(ev(0), 'not json', ev(2, 'step/start'), turnEnd(3))));
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error).toMatchObject({ code: 'SESSION_LOG_CORRUPT', message: 'corrupt session log: unparsable committed event at line 2' });
  });

  it('an empty line, a BOM-prefixed line and a malformed packed row count as unparsable', () => {
    expect(thrown(() => decodeRaw(log(ev(0), '\uFEFF' + ev(1), turnEnd(2))))).toMatchObject({
      message: 'corrupt session log: unparsable committed event at line 2',
    });
    expect(thrown(() => decodeRaw(log(ev(0), '', turnEnd(1))))).toMatchObject({
      message: 'corrupt session log: unparsable committed event at line 2',
    });
    expect(thrown(() => decodeRaw(log('{"type":"text-chunks","seq0":0,"time0":0,"data":{}}', turnEnd(1))))).toMatchObject({
      message: 'corrupt session log: unparsable committed event at line 1',
    });
  });

  it('keeps the first issue: a seq gap after an unparsable line still reports the unparsable line', () => {
    expect(thrown(() => decodeRaw(log(ev(0), '{', ev(9), turnEnd(10))))).toMatchObject({
      message: 'corrupt session log: unparsable committed event at line 2',
    });
  });

  it('a seq gap followed by turn/end fails with expected/got', () => {
    expect(thrown(() => decodeRaw(log(ev(0), ev(1, 'step/start'), ev(3, 'step/end'), turnEnd(4))))).toMatchObject({
      code: 'SESSION_LOG_CORRUPT',
      message: 'corrupt session log: seq gap in committed region at line 3 (expected 2, got 3)',
    });
  });

  it('a seq gap on a turn/end line fails at once; a missing seq is rendered with String()', () => {
    expect(thrown(() => decodeRaw(log(ev(0), turnEnd(5))))).toMatchObject({
      message: 'corrupt session log: seq gap in committed region at line 2 (expected 1, got 5)',
    });
    expect(thrown(() => decodeRaw(log(ev(0), '{"type":"turn/end","data":{}}')))).toMatchObject({
      message: 'corrupt session log: seq gap in committed region at line 2 (expected 1, got undefined)',
    });
    expect(thrown(() => decodeRaw(log(ev(0), '{"type":"x","seq":"1"}', turnEnd(2))))).toMatchObject({
      message: 'corrupt session log: seq gap in committed region at line 2 (expected 1, got 1)',
    });
  });

  it('a seq gap without a later turn/end is a tolerated tail; a gap inside a packed row drops the whole row', () => {
    const committed = log(ev(0));
    const row = '{"type":"text-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[0,0],"texts":["a","b","c"]}}';
    const result = decodeRaw(committed + row + '\n' + ev(4, 'step/end') + '\n');
    expect(result.events).toHaveLength(1);
    expect(result.tornTail).toEqual({ truncateTo: bytesOf(committed), recoveredEvents: 0 });
  });

  it('a null line fails the read with a TypeError, with or without an earlier issue', () => {
    const direct = thrown(() => decodeRaw(log(ev(0), 'null')));
    expect(direct).toBeInstanceOf(TypeError);
    expect((direct as Error).message).toBe("Cannot read properties of null (reading 'seq')");
    const afterIssue = thrown(() => decodeRaw(log(ev(0), '{', 'null')));
    expect(afterIssue).toBeInstanceOf(TypeError);
    expect((afterIssue as Error).message).toBe("Cannot read properties of null (reading 'type')");
  });

  it('no LF at all → empty or header-less session log; header problems surface from the first record', () => {
    for (const text of ['', '{"type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0}']) {
      expect(thrown(() => decodeRaw(text))).toMatchObject({ code: 'SESSION_LOG_CORRUPT', message: 'empty or header-less session log' });
    }
    expect(thrown(() => decodeRaw('hello\n'))).toMatchObject({ message: 'corrupt session log: header line is not valid JSON' });
    // A UTF-8 BOM is kept by the decoder (as Buffer#toString does for dsh), so JSON.parse rejects it.
    expect(thrown(() => decodeRaw('\uFEFF' + HEADER))).toMatchObject({ message: 'corrupt session log: header line is not valid JSON' });
    expect(thrown(() => decodeRaw('{"type":"turn/start"}\n'))).toMatchObject({
      message: 'corrupt session log: first line is not a session header',
    });
    expect((thrown(() => decodeRaw('{"type":"session","version":3,"id":"s"}\n' + ev(0) + '\n')) as Error).message).toBe(
      `session "s" uses log format v3, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${PATH})`,
    );
  });

  it('decodes each line as UTF-8 (multi-byte text survives, offsets are byte offsets)', () => {
    const line = ev(0, 'user/text', { text: '订单总价 — café 😀' });
    const result = decodeRaw(log(line) + '{"partial":"é');
    expect((result.events[0] as { data: { text: string } }).data.text).toBe('订单总价 — café 😀');
    expect(result.tornTail?.truncateTo).toBe(bytesOf(log(line)));
  });
});

describe('JsonlScanner', () => {
  const stream = utf8Bytes(
    [
      ev(0),
      ev(1, 'step/start'),
      '{"type":"text-chunks","seq0":2,"time0":5,"data":{"turn":1,"step":1,"index":0,"dt":[1,1],"texts":["é","😀","c"]}}',
      turnEnd(5),
      'garbage',
      ev(7),
    ].join('\n') +
      '\n' +
      '{"torn',
  );

  function scanWhole(): JsonlScanner {
    const scanner = new JsonlScanner(100);
    scanner.write(stream);
    return scanner;
  }

  it('tracks committed bytes, input bytes and the issue', () => {
    const scanner = scanWhole();
    expect(scanner.events).toHaveLength(6);
    const committedText =
      [
        ev(0),
        ev(1, 'step/start'),
        '{"type":"text-chunks","seq0":2,"time0":5,"data":{"turn":1,"step":1,"index":0,"dt":[1,1],"texts":["é","😀","c"]}}',
        turnEnd(5),
      ].join('\n') + '\n';
    expect(scanner.committedBytes).toBe(100 + bytesOf(committedText));
    expect(scanner.inputBytes).toBe(100 + stream.length);
    expect(scanner.checkpoint()).toEqual({
      lineStart: 100 + stream.length - '{"torn'.length,
      committedBytes: 100 + bytesOf(committedText),
      eventCount: 6,
      eventLine: 6,
      issue: 'corrupt session log: unparsable committed event at line 5',
    });
  });

  it('gives the same result for any chunking of the stream, including splits inside UTF-8 sequences (property)', () => {
    const whole = scanWhole();
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), stream.length];
        const scanner = new JsonlScanner(100);
        for (let i = 0; i + 1 < points.length; i++) {
          // A fresh copy per chunk that is then zeroed: the scanner must not keep references into caller buffers.
          const chunk = stream.slice(points[i], points[i + 1]);
          scanner.write(chunk);
          chunk.fill(0);
        }
        expect(scanner.events).toEqual(whole.events);
        expect(scanner.checkpoint()).toEqual(whole.checkpoint());
      }),
    );
  });

  it('resumes from a checkpoint at the next line start', () => {
    const whole = scanWhole();
    const cut = 60;
    const first = new JsonlScanner(100);
    first.write(stream.subarray(0, cut));
    const checkpoint = first.checkpoint();
    const resumed = JsonlScanner.resume(JSON.parse(JSON.stringify(checkpoint)));
    resumed.write(stream.subarray(checkpoint.lineStart - 100));
    expect([...first.events, ...resumed.events]).toEqual(whole.events);
    expect(resumed.checkpoint()).toEqual(whole.checkpoint());
  });

  it('a resumed scanner keeps the issue: a later turn/end throws it', () => {
    const scanner = JsonlScanner.resume({
      lineStart: 0,
      committedBytes: 0,
      eventCount: 3,
      eventLine: 4,
      issue: 'corrupt session log: unparsable committed event at line 2',
    });
    scanner.write(utf8Bytes(ev(9) + '\n'));
    expect(scanner.events).toEqual([]);
    expect(thrown(() => scanner.write(utf8Bytes(turnEnd(10) + '\n')))).toMatchObject({
      message: 'corrupt session log: unparsable committed event at line 2',
    });
  });
});

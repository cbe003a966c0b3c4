/**
 * The pure title scan (SESSION-LOG.md §10.7) against the unindexed definition (§9.15 stages R3, S1–S6, then
 * the §6.2 title fold) computed by the existing pipeline (`decodeArtifact`, `validateStoredSession`,
 * `foldTitle`): for generated logs, raw and zstd, a full scan and a scan continued from the checkpoint of any
 * earlier prefix give the same outcome (status, title snapshot, error name/code/message); checkpoints survive
 * the index file encoding; hand-picked cases pin stage precedence and the rare paths.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateStoredSession } from '../../../../../src/protocol/session-validation.js';
import { foldTitle } from '../../../../../src/protocol/title-fold.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import type { SessionEvent } from '../../../../../src/protocol/events.js';
import { decodeArtifact } from '../../../../../src/workers/decode/decode-artifact.js';
import { compressFrame, initZstd } from '../../../../../src/workers/decode/zstd-codec.js';
import { storedFrame } from '../../../../support/zstd-stored-frame.js';
import { rebuildError } from '../../../../../src/workers/titles/serialized-error.js';
import { scanTitleLog, type TitleScanCheckpoint, type TitleScanOutcome } from '../../../../../src/workers/titles/title-scan.js';
import { decodeTitleIndex, encodeTitleIndex, openCheckpoint } from '../../../../../src/main/engine/corpus/title-index/title-index-file.js';
import type { TitleIndexEntry } from '../../../../../src/main/engine/corpus/title-index/title-index-entry.js';

const PATH = '/root/--w--/s/session.jsonl';
/** The index file's root and the artifact's entry key (relative to it, as the file stores entries). */
const ROOT = '/root';
const KEY = '--w--/s/session.jsonl';
const T0 = 1_767_225_600_000;
const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

beforeAll(async () => {
  await initZstd();
});

/** A comparable view of an error: name, code, message, and the cause's. */
function errorView(error: unknown): unknown {
  const e = error as Error & { code?: unknown };
  const cause = e.cause as (Error & { code?: unknown }) | undefined;
  return {
    name: e.name,
    code: e.code,
    message: e.message,
    cause: cause === undefined ? undefined : { name: cause.name, code: cause.code, message: cause.message },
  };
}

/** What one observation of a file gives, as the definition computes it: read failure, validation failure, or title (or fold failure). */
function definition(bytes: Uint8Array, compression: Compression): unknown {
  let decoded;
  try {
    decoded = decodeArtifact(bytes, compression, PATH);
  } catch (error) {
    return { read: errorView(error) };
  }
  const header = decoded.headerRecord;
  let validated;
  try {
    validated = validateStoredSession({ requestedId: header['id'] as string, header, storedEvents: decoded.events, path: PATH });
  } catch (error) {
    return { invalid: errorView(error) };
  }
  try {
    return { meta: validated.meta, title: foldTitle(validated.events) ?? null };
  } catch (error) {
    return { meta: validated.meta, fold: errorView(error) };
  }
}

/** The same view of a scan outcome (its title line folded like the query layer folds it). */
function outcomeView(outcome: TitleScanOutcome): unknown {
  switch (outcome.kind) {
    case 'read-failed':
      return { read: errorView(rebuildError(outcome.error)) };
    case 'invalid':
      return { invalid: errorView(rebuildError(outcome.error)) };
    case 'valid': {
      // The header line is the header record's plaintext in both modes.
      const meta = decodeArtifact(outcome.headerLine, 'none', PATH).headerRecord;
      const events = outcome.titleLine === null ? [] : [JSON.parse(utf8.decode(outcome.titleLine)) as SessionEvent];
      try {
        return { meta, title: foldTitle(events) ?? null };
      } catch (error) {
        return { meta, fold: errorView(error) };
      }
    }
    default:
      throw new Error('unknown outcome');
  }
}

/** A log file: the header record, then batches of lines (each batch one frame in zstd mode), then optional torn bytes. */
interface LogSpec {
  readonly header: string;
  readonly batches: readonly (readonly string[])[];
  /** Per batch, where to cut its text into two frames/writes (0 or absent: not cut); a cut may fall mid-line. */
  readonly splits?: readonly number[];
  /** A cut of one more batch: that many bytes of its file form. */
  readonly torn?: { readonly lines: readonly string[]; readonly keep: number };
}

/**
 * The file's byte pieces: header record, each batch, the torn part. In zstd mode the torn batch is a stored
 * frame with one raw block per line, so a cut keeps the lines of its complete blocks recoverable (§9.11).
 */
function fileParts(spec: LogSpec, compression: Compression): Uint8Array[] {
  const encode = (text: string): Uint8Array => (compression === 'none' ? encoder.encode(text) : compressFrame(encoder.encode(text)));
  const parts = [encode(`${spec.header}\n`)];
  spec.batches.forEach((batch, index) => {
    if (batch.length === 0) return;
    const text = batch.map((line) => `${line}\n`).join('');
    const cut = (spec.splits?.[index] ?? 0) % text.length;
    if (cut === 0) parts.push(encode(text));
    else parts.push(encode(text.slice(0, cut)), encode(text.slice(cut)));
  });
  if (spec.torn !== undefined && spec.torn.lines.length > 0) {
    const texts = spec.torn.lines.map((line) => `${line}\n`);
    const plaintext = encoder.encode(texts.join(''));
    const whole =
      compression === 'none'
        ? plaintext
        : storedFrame(
            plaintext,
            texts.map((text) => encoder.encode(text).length),
          );
    parts.push(whole.subarray(0, Math.min(whole.length - 1, spec.torn.keep % whole.length)));
  }
  return parts;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** A checkpoint after a trip through the index file codec (msgpack), as a later process would read it. */
function viaIndexFile(checkpoint: TitleScanCheckpoint, outcome: TitleScanOutcome): TitleScanCheckpoint {
  const entry: TitleIndexEntry = {
    dev: '1',
    ino: '2',
    size: '3',
    mtimeNs: '4',
    ctimeNs: '5',
    headerDigest: 'h',
    resumeOffset: checkpoint.resumeOffset,
    guard: 'g',
    state: checkpoint,
    outcome,
  };
  const decoded = decodeTitleIndex(encodeTitleIndex(ROOT, new Map([[KEY, entry]])))?.entries.get(KEY);
  const state = decoded === undefined ? undefined : openCheckpoint(decoded)?.state;
  if (state === undefined || state === null) throw new Error('checkpoint lost in the index file');
  return state;
}

/**
 * Scans the file whole, and continued from the checkpoint of every prefix ending at a batch boundary (after
 * the stored checkpoint went through the index file), and expects every outcome to equal the definition.
 */
function expectScansMatchDefinition(spec: LogSpec, compression: Compression): void {
  const parts = fileParts(spec, compression);
  const bytes = concat(parts);
  const expected = definition(bytes, compression);
  const whole = scanTitleLog({ compression, path: PATH, bytes });
  expect(outcomeView(whole.outcome)).toEqual(expected);
  let prefixEnd = 0;
  for (const part of parts) {
    prefixEnd += part.length;
    const prefix = scanTitleLog({ compression, path: PATH, bytes: bytes.subarray(0, prefixEnd) });
    if (prefix.checkpoint === null) continue;
    const checkpoint = viaIndexFile(prefix.checkpoint, prefix.outcome);
    expect(checkpoint.resumeOffset).toBeLessThanOrEqual(prefixEnd);
    const continued = scanTitleLog({ compression, path: PATH, bytes: bytes.subarray(checkpoint.resumeOffset), checkpoint });
    expect(outcomeView(continued.outcome)).toEqual(expected);
    // A checkpoint never moves backwards, and continuing it lands where a whole scan lands.
    expect(continued.checkpoint?.resumeOffset).toBe(whole.checkpoint?.resumeOffset);
  }
}

const HEADER = '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","delegationDepth":0}';

/** Builds event lines for generated "moves", keeping seqs, turns and tool results consistent most of the time. */
class LineBuilder {
  seq = 0;
  turn = 0;
  readonly toolResults: Array<{ seq: number; callId: string }> = [];
  readonly surface: number[] = [];

  line(type: string, data: unknown, extra: Record<string, unknown> = {}): string {
    const seq = this.seq++;
    return JSON.stringify({ type, seq, time: T0 + seq, data, ...extra });
  }

  build(move: number, pick: number): string[] {
    const seq = this.seq;
    switch (move) {
      case 0:
        return [this.line('turn/start', { turn: ++this.turn })];
      case 1:
        return [this.line('step/start', { turn: this.turn, step: 1 })];
      case 2: {
        this.surface.push(seq);
        return [
          this.line(
            'user/message',
            { id: `u${seq}`, role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } },
            { surfaceOp: 'append' },
          ),
        ];
      }
      case 3: {
        this.surface.push(seq);
        const ids = pick % 3 === 0 ? [] : [`c${seq}`, ...(pick % 3 === 2 ? [`d${seq}`] : [])];
        return [
          this.line(
            'assistant/message',
            {
              turn: this.turn,
              step: 1,
              message: {
                id: `a${seq}`,
                role: 'assistant',
                content: ids.map((id) => ({ type: 'tool-call', id, name: 'n', arguments: '{}' })),
                source: { kind: 'model', provider: 'p', model: 'm' },
              },
            },
            { surfaceOp: 'append' },
          ),
        ];
      }
      case 4:
        return [this.line('tool/call', { turn: this.turn, step: 1, callId: `c${seq - 1 - (pick % 2)}`, name: 'n', arguments: '{}' })];
      case 5: {
        const callId = `c${Math.max(0, seq - 1 - (pick % 3))}`;
        this.toolResults.push({ seq, callId });
        this.surface.push(seq);
        return [
          this.line(
            'tool/result',
            {
              turn: this.turn,
              step: 1,
              message: {
                id: `t${seq}`,
                role: 'user',
                content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: 'r' }], isError: false }],
                source: { kind: 'tool', callId },
              },
            },
            { surfaceOp: 'append' },
          ),
        ];
      }
      case 6:
        return [this.line('step/end', { turn: this.turn, step: 1 })];
      case 7:
        return [this.line('turn/end', { turn: this.turn, reason: { kind: 'completed' } })];
      case 8: {
        // A packed row of three text deltas (one line, three seqs).
        this.seq += 3;
        return [
          JSON.stringify({
            type: 'text-chunks',
            seq0: seq,
            time0: T0 + seq,
            data: { turn: this.turn, step: 1, index: 0, dt: [1, 1], texts: ['a', 'b', 'c'] },
          }),
        ];
      }
      case 9: {
        const titles = [
          `{"type":"session/title","seq":${seq},"time":${T0},"data":{"title":"t${seq} \\ud800","messageSeqs":[1],"source":{"kind":"fallback"}}}`,
          `{"type":"session/title","seq":${seq},"time":-0,"data":{"title":"z","messageSeqs":"ab","source":{"kind":"provider","provider":"p","model":{"provider":"a","model":"b"}}}}`,
          `{"type":"session/title","seq":${seq},"time":${T0},"data":{"title":"x","messageSeqs":5,"source":{"kind":"user"}}}`,
          `{"type":"session/title","seq":${seq},"time":${T0},"data":{"title":"x","messageSeqs":[],"source":{"kind":"weird"}}}`,
          `{"type":"session/title","seq":${seq},"time":${T0},"data":null}`,
        ];
        this.seq += 1;
        return [titles[pick % titles.length] as string];
      }
      case 10: {
        const lines = [
          `{"type":"new/kind","seq":${seq},"time":${T0},"data":{}}`,
          `{"type":"new/kind","seq":${seq},"time":${T0},"data":{},"ignorable":true}`,
          `{"type":"mode/set","seq":${seq},"time":${T0},"data":{}}`,
          `{"type":"request/header-delta","seq":${seq},"time":${T0},"data":{}}`,
          `{"type":"request/header","seq":${seq},"time":${T0},"data":{"reason":"fallback"}}`,
          `{"type":"request/header","seq":${seq},"time":${T0}}`,
          `{"type":"request/header","seq":${seq},"time":${T0},"data":{"header":{"config":{"provider":"p"}}}}`,
          `{"type":"steering/message","seq":${seq},"time":${T0},"data":{"turn":1,"content":[],"source":{"kind":"user"}},"surfaceOp":"append"}`,
          `{"type":"turn/end","seq":${seq},"time":${T0},"data":{"turn":1,"reason":{"kind":"error","step":0,"message":"m"}}}`,
          `{"type":"turn/end","seq":${seq},"time":${T0},"data":{"turn":1,"reason":{"kind":"completed","x":1}}}`,
          `{"type":"turn/start","seq":${seq},"time":${T0},"data":null}`,
          `{"type":"tool/call","seq":${seq},"time":${T0},"data":null}`,
          `{"type":"assistant/message","seq":${seq},"time":${T0},"data":{"turn":1,"step":1,"message":{"id":"m","role":"assistant","content":[{"type":"tool-call","id":7}],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}`,
          `{"type":"assistant/message","seq":${seq},"time":${T0},"data":{"turn":1,"step":1,"message":{"id":"m","role":"assistant","content":[null],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}`,
          `{"type":"tool/call","seq":${seq},"time":${T0},"data":{"message":{"id":""}}}`,
          `{"type":"step/end","seq":${seq},"time":"x","data":{}}`,
          `{"type":"step/end","seq":${seq},"time":${T0},"data":{},"sourceEventSeqs":[0]}`,
          `{"type":"user/message","seq":${seq},"time":${T0},"data":{"content":[],"source":{"kind":"user"}},"surfaceOp":"append"}`,
        ];
        this.seq += 1;
        return [lines[pick % lines.length] as string];
      }
      case 11: {
        // Rewrite a tool result: content only (valid), another id (invalid), or the pre-identity form (rule 4c).
        const target = this.toolResults[pick % Math.max(1, this.toolResults.length)];
        if (target === undefined) return [];
        const replace = { sourceEventSeqs: [target.seq], surfaceOp: { op: 'replace', start: target.seq, end: target.seq } };
        const variant = pick % 3;
        if (variant === 2)
          return [this.line('tool/result', { turn: this.turn, step: 1, callId: target.callId, content: [], isError: false }, replace)];
        return [
          this.line(
            'tool/result',
            {
              turn: this.turn,
              step: 1,
              message: {
                id: variant === 0 ? `t${target.seq}` : 'other',
                role: 'user',
                content: [{ type: 'tool-result', toolCallId: target.callId, content: [{ type: 'text', text: 'new' }], isError: false }],
                source: { kind: 'tool', callId: target.callId },
              },
            },
            replace,
          ),
        ];
      }
      case 12: {
        // A compaction over a span of the surface (valid when the span is still current).
        if (this.surface.length === 0) return [];
        const from = pick % this.surface.length;
        const shadowed = this.surface.slice(from, from + 1 + (pick % 3));
        return [
          this.line(
            'user/message',
            { id: `k${seq}`, role: 'user', content: [], source: { kind: 'plugin', plugin: 'compact' } },
            {
              sourceEventSeqs: shadowed,
              surfaceOp: { op: 'replace', start: shadowed[0], end: shadowed[shadowed.length - 1] },
            },
          ),
        ];
      }
      case 13: {
        const garbage = [
          'garbage',
          `{"type":"step/end","seq":${seq + 2},"time":${T0},"data":{}}`,
          `{"type":"turn/end","seq":${seq + 5},"time":${T0},"data":{"turn":1,"reason":{"kind":"completed"}}}`,
          'null',
          '[1]',
        ];
        return [garbage[pick % garbage.length] as string];
      }
      default:
        return [];
    }
  }
}

/** Generated logs: moves grouped into batches, and sometimes a torn final batch. */
const logSpec = fc
  .record({
    batches: fc.array(fc.array(fc.tuple(fc.nat({ max: 13 }), fc.nat()), { minLength: 1, maxLength: 6 }), { maxLength: 8 }),
    splits: fc.array(fc.oneof(fc.constant(0), fc.nat()), { maxLength: 8 }),
    torn: fc.option(fc.tuple(fc.array(fc.tuple(fc.nat({ max: 13 }), fc.nat()), { minLength: 1, maxLength: 4 }), fc.nat()), {
      nil: undefined,
    }),
  })
  .map(({ batches, splits, torn }): LogSpec => {
    const builder = new LineBuilder();
    const lines = (moves: ReadonlyArray<readonly [number, number]>): string[] => moves.flatMap(([move, pick]) => builder.build(move, pick));
    return {
      header: HEADER,
      batches: batches.map(lines),
      splits,
      ...(torn === undefined ? {} : { torn: { lines: lines(torn[0]), keep: torn[1] } }),
    };
  });

describe.each(['none', 'zstd'] as const)('scanTitleLog equals the unindexed definition (%s)', (compression) => {
  it('for generated logs, scanned whole and continued from every batch boundary', () => {
    fc.assert(
      fc.property(logSpec, (spec) => expectScansMatchDefinition(spec, compression)),
      { numRuns: compression === 'none' ? 300 : 150 },
    );
  });

  const cases: Array<{ name: string; spec: LogSpec }> = [
    { name: 'empty log (header only)', spec: { header: HEADER, batches: [] } },
    { name: 'header not JSON', spec: { header: '{"type":', batches: [] } },
    {
      name: 'header of version 2',
      spec: { header: '{"type":"session","version":2,"id":"s","createdAt":1,"delegationDepth":0}', batches: [] },
    },
    {
      name: 'header with version -0 is valid',
      spec: {
        header: '{"type":"session","version":-0,"id":"s","createdAt":1,"delegationDepth":0}',
        batches: [[`{"type":"session/title","seq":0,"time":5,"data":{"title":"t","messageSeqs":[],"source":{"kind":"user"}}}`]],
      },
    },
    {
      name: 'relative cwd fails S6 header validation',
      spec: { header: '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"w","delegationDepth":0}', batches: [] },
    },
    {
      name: 'S2 outranks an earlier S6 envelope error (item 91)',
      spec: {
        header: HEADER,
        batches: [[`{"type":"step/end","seq":0,"time":1,"data":{},"x":1}`], [`{"type":"mode/set","seq":1,"time":1,"data":{}}`]],
      },
    },
    {
      name: 'a header-delta after a mode/set wins',
      spec: {
        header: HEADER,
        batches: [[`{"type":"mode/set","seq":0,"time":1,"data":{}}`], [`{"type":"request/header-delta","seq":1,"time":1,"data":{}}`]],
      },
    },
    {
      name: 'request/header without data: the §8.1 search throws a TypeError',
      spec: { header: HEADER, batches: [[`{"type":"request/header","seq":0,"time":1}`]] },
    },
    {
      name: 'open turn with a numeric tool-call id: the closer fails adoption (S5)',
      spec: {
        header: HEADER,
        batches: [
          [
            `{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
            `{"type":"assistant/message","seq":1,"time":1,"data":{"turn":1,"step":1,"message":{"id":"m","role":"assistant","content":[{"type":"tool-call","id":7}],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}`,
          ],
          [`{"type":"step/start","seq":2,"time":"late","data":{"turn":1,"step":2}}`],
        ],
      },
    },
    {
      name: 'the first of two mode/set events is reported',
      spec: {
        header: HEADER,
        batches: [[`{"type":"mode/set","seq":0,"time":1,"data":{}}`], [`{"type":"mode/set","seq":1,"time":1,"data":{}}`]],
      },
    },
    {
      name: 'a zstd torn frame recovers whole lines of its complete blocks, including a later title',
      spec: {
        header: HEADER,
        batches: [[`{"type":"session/title","seq":0,"time":1,"data":{"title":"old","messageSeqs":[],"source":{"kind":"user"}}}`]],
        torn: {
          lines: [
            `{"type":"session/title","seq":1,"time":2,"data":{"title":"recovered","messageSeqs":[],"source":{"kind":"user"}}}`,
            `{"type":"step/end","seq":2,"time":1,"data":{}}`,
          ],
          keep: 150,
        },
      },
    },
    {
      name: 'open turn with object tool-call ids: each is its own pending call',
      spec: {
        header: HEADER,
        batches: [
          [
            `{"type":"turn/start","seq":0,"time":1,"data":{}}`,
            `{"type":"assistant/message","seq":1,"time":1,"data":{"turn":1,"step":1,"message":{"id":"m","role":"assistant","content":[{"type":"tool-call","id":{"a":1}},{"type":"tool-call","id":{"a":1}},{"type":"tool-call","id":"x"}]},"source":{"kind":"model","provider":"p","model":"m"}},"surfaceOp":"append"}`,
          ],
          [`{"type":"tool/call","seq":2,"time":1,"data":{"callId":"x"}}`],
        ],
      },
    },
    {
      name: 'a pre-identity tool/result replacing a node whose remembered id is empty fails adoption (S3)',
      spec: {
        header: HEADER,
        batches: [
          [
            `{"type":"tool/call","seq":0,"time":1,"data":{"message":{"id":""}}}`,
            `{"type":"tool/result","seq":1,"time":1,"data":{"callId":"c","content":[],"isError":false},"sourceEventSeqs":[0],"surfaceOp":{"op":"replace","start":0,"end":0}}`,
          ],
        ],
      },
    },
    {
      name: 'a pre-identity tool/result rewriting a current tool/result keeps its id (rule 4c) and passes',
      spec: {
        header: HEADER,
        batches: [
          [
            `{"type":"tool/result","seq":0,"time":1,"data":{"turn":1,"step":1,"message":{"id":"orig","role":"user","content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"a"}],"isError":false}],"source":{"kind":"tool","callId":"c"}}},"surfaceOp":"append"}`,
          ],
          [
            `{"type":"tool/result","seq":1,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[],"isError":false},"sourceEventSeqs":[0],"surfaceOp":{"op":"replace","start":0,"end":0}}`,
            `{"type":"session/title","seq":2,"time":3,"data":{"title":"after rewrite","messageSeqs":[1],"source":{"kind":"user"}}}`,
          ],
        ],
      },
    },
    {
      name: 'damage after the last turn/end is a tolerated tail; a later turn/end makes it fatal',
      spec: {
        header: HEADER,
        batches: [
          [`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`, 'garbage', `{"type":"step/end","seq":1,"time":1,"data":{}}`],
          [`{"type":"turn/end","seq":2,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}`],
        ],
      },
    },
  ];
  it.each(cases)('$name', ({ spec }) => {
    expectScansMatchDefinition(spec, compression);
  });
});

describe('checkpoint placement', () => {
  it('raw: the resume offset is committedBytes, before a torn final line', () => {
    const body = `{"type":"step/end","seq":0,"time":1,"data":{}}\n`;
    const bytes = encoder.encode(`${HEADER}\n${body}{"type":"step`);
    const result = scanTitleLog({ compression: 'none', path: PATH, bytes });
    expect(result.checkpoint?.resumeOffset).toBe(HEADER.length + 1 + body.length);
    expect(result.checkpoint?.validator.eventCount).toBe(1);
  });

  it('raw: after an issue the resume offset stays at the last clean line', () => {
    const clean = `{"type":"step/end","seq":0,"time":1,"data":{}}\n`;
    const bytes = encoder.encode(`${HEADER}\n${clean}garbage\n{"type":"step/end","seq":1,"time":1,"data":{}}\n`);
    const result = scanTitleLog({ compression: 'none', path: PATH, bytes });
    expect(result.checkpoint?.resumeOffset).toBe(HEADER.length + 1 + clean.length);
    expect(result.checkpoint?.scanner.eventLine).toBe(1);
  });

  it('zstd: the resume offset is the end of the last complete frame; a torn frame stays provisional', () => {
    const header = compressFrame(encoder.encode(`${HEADER}\n`));
    const first = compressFrame(encoder.encode(`{"type":"step/end","seq":0,"time":1,"data":{}}\n`));
    const torn = compressFrame(
      encoder.encode(`{"type":"session/title","seq":1,"time":1,"data":{"title":"t","messageSeqs":[],"source":{"kind":"user"}}}\n`),
    );
    const bytes = concat([header, first, torn.subarray(0, torn.length - 2)]);
    const result = scanTitleLog({ compression: 'zstd', path: PATH, bytes });
    expect(result.checkpoint?.resumeOffset).toBe(header.length + first.length);
    expect(result.checkpoint?.validator.eventCount).toBe(1);
    expect(result.checkpoint?.validator.lastTitleLine).toBeNull();
  });

  it('zstd: a frame ending mid-line is not a resume point', () => {
    const header = compressFrame(encoder.encode(`${HEADER}\n`));
    const line = `{"type":"step/end","seq":0,"time":1,"data":{}}\n`;
    const a = compressFrame(encoder.encode(line.slice(0, 10)));
    const b = compressFrame(encoder.encode(line.slice(10)));
    const result = scanTitleLog({ compression: 'zstd', path: PATH, bytes: concat([header, a, b]) });
    expect(result.outcome.kind).toBe('valid');
    expect(result.checkpoint?.resumeOffset).toBe(header.length + a.length + b.length);
    const cut = scanTitleLog({ compression: 'zstd', path: PATH, bytes: concat([header, a]) });
    expect(cut.outcome.kind).toBe('read-failed');
    expect(cut.checkpoint?.resumeOffset).toBe(header.length);
  });

  it('zstd: a structural error after the checkpoint names its absolute byte offset', () => {
    const header = compressFrame(encoder.encode(`${HEADER}\n`));
    const first = compressFrame(encoder.encode(`{"type":"step/end","seq":0,"time":1,"data":{}}\n`));
    const prefix = scanTitleLog({ compression: 'zstd', path: PATH, bytes: concat([header, first]) });
    const checkpoint = prefix.checkpoint as TitleScanCheckpoint;
    const garbage = encoder.encode('XXXXXXXX');
    const continued = scanTitleLog({ compression: 'zstd', path: PATH, bytes: garbage, checkpoint });
    expect(continued.outcome.kind).toBe('read-failed');
    const error = rebuildError((continued.outcome as { error: Parameters<typeof rebuildError>[0] }).error);
    expect(error.message).toBe(`corrupt Zstandard session log: invalid frame magic at byte ${header.length + first.length}`);
    expect(continued.checkpoint).toBe(checkpoint);
  });
});

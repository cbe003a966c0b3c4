/**
 * SESSION-REFERENCE.md §15 item 96 (SESSION-LOG.md §10.7, D6): a randomized sequence of operations — append
 * batches, torn writes, repairs, corrupting edits, title changes, unknown types, legacy vocabulary, surface
 * replacements, replacement of files, truncation, touches, index reloads — over 22 sessions, raw and zstd;
 * after every step each observation through the title index equals a fresh full inspection + title fold
 * (status, title snapshot, error name/code/message).
 */
import { open, readFile, rename, truncate, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type SessionEvent, type SessionHeader } from '../../../../../src/protocol/events.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import { artifactPathFor } from '../../../../../src/io/artifact-path.js';
import { scanZstdFrames } from '../../../../../src/workers/decode/zstd-frames.js';
import type { TitleIndexStats } from '../../../../../src/main/engine/corpus/title-index/title-index.js';
import type { SessionTitleObservation } from '../../../../../src/main/engine/corpus/session-query.js';
import {
  appendEvents,
  appendLines,
  batchFileBytes,
  expectSameTitles,
  openPair,
  removeTempDirs,
  type StorePair,
  tempDir,
} from './title-index-harness.js';
import { mulberry32 } from '../../../../support/seeded-random.js';

afterAll(removeTempDirs);

const T0 = 1_767_225_600_000;
const STEPS = 160;

interface SessionModel {
  readonly id: string;
  readonly header: SessionHeader;
  readonly path: string;
  /** The seq the next appended event gets (resynchronised from a full inspection after every step). */
  seq: number;
  turn: number;
  calls: number;
}

class Scenario {
  readonly rng: () => number;
  readonly sessions: SessionModel[] = [];
  readonly stats: TitleIndexStats[] = [];

  constructor(
    seed: number,
    readonly root: string,
    readonly compression: Compression,
    public pair: StorePair,
  ) {
    this.rng = mulberry32(seed);
  }

  int(below: number): number {
    return Math.floor(this.rng() * below);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  chance(p: number): boolean {
    return this.rng() < p;
  }

  event(m: SessionModel, type: string, data: unknown, extra: Record<string, unknown> = {}): SessionEvent {
    const seq = m.seq++;
    return { type, seq, time: T0 + seq * 7, data, ...extra } as SessionEvent;
  }

  userMessage(m: SessionModel, text: string): SessionEvent {
    const seq = m.seq;
    return this.event(
      m,
      'user/message',
      { id: `u-${m.id}-${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } },
      { surfaceOp: 'append' },
    );
  }

  assistant(m: SessionModel, turn: number, content: unknown[]): SessionEvent {
    const seq = m.seq;
    return this.event(
      m,
      'assistant/message',
      {
        turn,
        step: 1,
        message: { id: `a-${seq}`, role: 'assistant', content, source: { kind: 'model', provider: 'p', model: 'm' } },
      },
      { surfaceOp: 'append' },
    );
  }

  toolResult(m: SessionModel, turn: number, callId: string, callSeq: number | undefined): SessionEvent {
    const seq = m.seq;
    const message = {
      id: `t-${seq}`,
      role: 'user',
      content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: `result ${seq}` }], isError: false }],
      source: { kind: 'tool', callId },
    };
    return this.event(
      m,
      'tool/result',
      { turn, step: 1, message },
      { ...(callSeq === undefined ? {} : { sourceEventSeqs: [callSeq] }), surfaceOp: 'append' },
    );
  }

  titleEvent(m: SessionModel, title: string): SessionEvent {
    return this.event(m, 'session/title', {
      title,
      messageSeqs: [m.seq - 1],
      source: this.pick([
        { kind: 'fallback' },
        { kind: 'user' },
        { kind: 'provider', provider: 'p', model: { provider: 'x', model: 'y' } },
      ]),
    });
  }

  /** A closed turn: prompt, streamed text (packed into a row), answer, maybe a tool round trip and a title. */
  closedTurn(m: SessionModel): SessionEvent[] {
    const turn = ++m.turn;
    const events = [
      this.event(m, 'turn/start', { turn }),
      this.event(m, 'step/start', { turn, step: 1 }),
      this.userMessage(m, `prompt ${turn}`),
    ];
    const deltas = 1 + this.int(5);
    for (let k = 0; k < deltas; k++)
      events.push(this.event(m, 'assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: `d${k}` } }));
    if (this.chance(0.5)) {
      const callId = `call-${++m.calls}`;
      events.push(
        this.assistant(m, turn, [
          { type: 'text', text: 'calling' },
          { type: 'tool-call', id: callId, name: 'read', arguments: '{}' },
        ]),
      );
      const callSeq = m.seq;
      events.push(this.event(m, 'tool/call', { turn, step: 1, callId, name: 'read', arguments: '{}' }));
      events.push(this.toolResult(m, turn, callId, this.chance(0.7) ? callSeq : undefined));
    } else {
      events.push(this.assistant(m, turn, [{ type: 'text', text: 'answer' }]));
    }
    events.push(this.event(m, 'step/end', { turn, step: 1 }));
    if (this.chance(0.3)) events.push(this.titleEvent(m, `title ${turn} of ${m.id}`));
    events.push(this.event(m, 'turn/end', { turn, reason: { kind: 'completed' } }));
    return events;
  }

  /** A turn left open with pending tool calls (closers are synthesised on inspection). */
  openTurn(m: SessionModel): SessionEvent[] {
    const turn = ++m.turn;
    const first = `call-${++m.calls}`;
    const second = `call-${++m.calls}`;
    const events = [
      this.event(m, 'turn/start', { turn }),
      this.event(m, 'step/start', { turn, step: 1 }),
      this.userMessage(m, 'go'),
      this.assistant(m, turn, [
        { type: 'tool-call', id: first, name: 'a', arguments: '{}' },
        { type: 'tool-call', id: second, name: 'b', arguments: '{}' },
      ]),
    ];
    if (this.chance(0.6)) events.push(this.event(m, 'tool/call', { turn, step: 1, callId: first, name: 'a', arguments: '{}' }));
    if (this.chance(0.3)) events.push(this.titleEvent(m, `open ${turn}`));
    return events;
  }

  /** Hand-made lines: titles with lone surrogates, -0 times, malformed title payloads. */
  titleLines(m: SessionModel): string[] {
    const seq = m.seq++;
    const variants = [
      `{"type":"session/title","seq":${seq},"time":${T0},"data":{"title":"lone \\ud800 surrogate","messageSeqs":[1,2],"source":{"kind":"fallback"}}}`,
      `{"type":"session/title","seq":${seq},"time":-0,"data":{"title":"negative zero time","messageSeqs":[-0],"source":{"kind":"user"}}}`,
      `{"type":"session/title","seq":${seq},"time":${T0},"data":{"title":7,"messageSeqs":"ab","source":{"kind":"provider","provider":"p"}}}`,
      `{"type":"session/title","seq":${seq},"time":${T0},"data":{"title":"x","messageSeqs":null,"source":{"kind":"user"}}}`,
      `{"type":"session/title","seq":${seq},"time":${T0},"data":{"title":"x","messageSeqs":[],"source":{"kind":"nope"}}}`,
      `{"type":"session/title","seq":${seq},"time":${T0},"data":"just a string"}`,
      `{"type":"session/title","seq":${seq},"time":${T0},"data":{"title":"no source","messageSeqs":[]}}`,
    ];
    return [this.pick(variants)];
  }

  /** Unknown types, with and without `ignorable`. */
  unknownLines(m: SessionModel): string[] {
    const seq = m.seq++;
    return [
      this.chance(0.5)
        ? `{"type":"future/event","seq":${seq},"time":${T0},"data":{},"ignorable":true}`
        : `{"type":"future/event","seq":${seq},"time":${T0},"data":{}}`,
    ];
  }

  /** Retired vocabulary and pre-react-loop shapes (valid and malformed migrations). */
  legacyLines(m: SessionModel): string[] {
    const seq = m.seq++;
    const variants = [
      `{"type":"mode/set","seq":${seq},"time":${T0},"data":{}}`,
      `{"type":"request/header-delta","seq":${seq},"time":${T0},"data":{}}`,
      `{"type":"request/header","seq":${seq},"time":${T0},"data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"fallback"}}`,
      `{"type":"request/header","seq":${seq},"time":${T0},"data":null}`,
      `{"type":"request/header","seq":${seq},"time":${T0},"data":{"header":{"config":{"provider":"p","model":"m"}}}}`,
      `{"type":"steering/message","seq":${seq},"time":${T0},"data":{"turn":1,"content":[{"type":"text","text":"steer"}],"source":{"kind":"user"}},"surfaceOp":"append"}`,
      `{"type":"steering/message","seq":${seq},"time":${T0},"data":{"turn":"x"}}`,
      `{"type":"turn/end","seq":${seq},"time":${T0},"data":{"turn":${Math.max(1, m.turn)},"reason":{"kind":"disposed"}}}`,
      `{"type":"turn/end","seq":${seq},"time":${T0},"data":{"turn":0,"reason":{"kind":"completed"}}}`,
      `{"type":"user/message","seq":${seq},"time":${T0},"data":{"content":[],"source":{"kind":"user"}},"surfaceOp":"append"}`,
    ];
    return [this.pick(variants)];
  }

  /** Envelope, message-shape and closer-scan failures. */
  brokenLines(m: SessionModel): string[] {
    const seq = m.seq++;
    const variants = [
      `{"type":"step/end","seq":${seq},"time":${T0},"data":{},"extra":1}`,
      `{"type":"step/end","seq":${seq},"time":"late","data":{}}`,
      `{"type":"step/end","seq":${seq},"time":${T0},"data":{},"surfaceOp":"append"}`,
      `{"type":"turn/start","seq":${seq},"time":${T0},"data":null}`,
      `{"type":"tool/call","seq":${seq},"time":${T0},"data":null}`,
      `{"type":"assistant/message","seq":${seq},"time":${T0},"data":{"turn":1,"step":1,"message":{"id":"m${seq}","role":"assistant","content":[null],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}`,
      `{"type":"assistant/message","seq":${seq},"time":${T0},"data":{"turn":1,"step":1,"message":{"id":"m${seq}","role":"assistant","content":[{"type":"tool-call","id":5}],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}`,
      `{"type":"user/message","seq":${seq},"time":${T0},"data":{"id":"","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append"}`,
      `{"type":"user/message","seq":${seq},"time":${T0},"data":{"id":"u${seq}","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":{"op":"replace","start":0,"end":0}}`,
    ];
    if (this.chance(0.2)) {
      // An open turn whose pending call has a numeric id: its synthetic closer fails adoption (stage S5).
      const next = m.seq++;
      return [
        `{"type":"turn/start","seq":${seq},"time":${T0},"data":{"turn":${++m.turn}}}`,
        `{"type":"assistant/message","seq":${next},"time":${T0},"data":{"turn":${m.turn},"step":1,"message":{"id":"m${next}","role":"assistant","content":[{"type":"tool-call","id":5}],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}`,
      ];
    }
    return [this.pick(variants)];
  }

  /** Lines the scanner rejects: unparsable, a seq gap (with or without a turn/end), a `null` line. */
  garbageLines(m: SessionModel): string[] {
    const variants = [
      ['not json at all'],
      [`{"type":"step/end","seq":${m.seq + 3},"time":${T0},"data":{}}`],
      [`{"type":"turn/end","seq":${m.seq + 3},"time":${T0},"data":{"turn":1,"reason":{"kind":"completed"}}}`],
      ['null'],
      ['5'],
    ];
    return this.pick(variants);
  }

  /** Surface replacements built from the current surface: tool-result rewrites (valid, invalid, legacy) and a compaction. */
  async replacementEvents(m: SessionModel): Promise<SessionEvent[] | string[] | undefined> {
    let surface: readonly SessionEvent[];
    try {
      surface = (await this.pair.fullQuery.readSurface(asSessionId(m.id))).events;
    } catch {
      // The log is broken right now: no surface to replace in.
      return undefined;
    }
    const results = surface.filter((event) => event.type === 'tool/result');
    if (results.length > 0 && this.chance(0.6)) {
      const original = this.pick(results);
      const data = structuredClone(original.data) as {
        turn: unknown;
        step: unknown;
        message: { id: string; content: Array<{ content: unknown; isError: unknown; toolCallId: string }> };
      };
      const variant = this.int(3);
      if (variant === 2) {
        const block = data.message.content[0] as { toolCallId: string; isError: unknown };
        const seq = m.seq++;
        return [
          JSON.stringify({
            type: 'tool/result',
            seq,
            time: T0,
            data: {
              turn: data.turn,
              step: data.step,
              callId: block.toolCallId,
              content: [{ type: 'text', text: 'legacy rewrite' }],
              isError: block.isError,
            },
            sourceEventSeqs: [original.seq],
            surfaceOp: { op: 'replace', start: original.seq, end: original.seq },
          }),
        ];
      }
      (data.message.content[0] as { content: unknown }).content = [{ type: 'text', text: 'rewritten' }];
      if (variant === 1) data.message.id = 'changed-id';
      return [
        this.event(m, 'tool/result', data, {
          sourceEventSeqs: [original.seq],
          surfaceOp: { op: 'replace', start: original.seq, end: original.seq },
        }),
      ];
    }
    if (surface.length === 0) return undefined;
    const from = this.int(surface.length);
    const to = from + this.int(surface.length - from);
    const shadowed = surface.slice(from, to + 1).map((event) => event.seq);
    const seq = m.seq;
    return [
      this.event(
        m,
        'user/message',
        { id: `compact-${seq}`, role: 'user', content: [{ type: 'text', text: 'summary' }], source: { kind: 'plugin', plugin: 'compact' } },
        {
          sourceEventSeqs: shadowed,
          surfaceOp: { op: 'replace', start: shadowed[0], end: shadowed[shadowed.length - 1] },
        },
      ),
    ];
  }

  async appendBatch(m: SessionModel, batch: SessionEvent[] | string[]): Promise<void> {
    if (batch.length === 0) return;
    if (typeof batch[0] === 'string') await appendLines(m.path, batch as string[], this.compression);
    else await appendEvents(m.path, batch as SessionEvent[], this.compression);
  }

  /** A batch cut short: part of the last line (raw) or part of a frame (zstd). */
  async tornWrite(m: SessionModel): Promise<void> {
    const text = this.closedTurn(m)
      .map((event) => `${JSON.stringify(event)}\n`)
      .join('');
    const bytes = await batchFileBytes(text, this.compression);
    const cut = 1 + this.int(bytes.length - 1);
    const handle = await open(m.path, 'a');
    try {
      await handle.write(bytes.subarray(0, cut));
    } finally {
      await handle.close();
    }
  }

  /**
   * The file's bytes and the end of its header record. Edits below stay after the header: a damaged header
   * frame fails every listing, which would hide all sessions from the comparison (header damage is covered by
   * the invalidation tests).
   */
  async headerEnd(m: SessionModel): Promise<{ bytes: Uint8Array; headerEnd: number }> {
    const bytes = await readFile(m.path);
    const headerEnd = this.compression === 'none' ? bytes.indexOf(0x0a) + 1 : (scanZstdFrames(bytes, 0, 1).frames[0]?.end ?? 0);
    return { bytes, headerEnd };
  }

  /** One byte after the header record changed in place (same size, new mtime/ctime). */
  async flipByte(m: SessionModel): Promise<void> {
    const { bytes, headerEnd } = await this.headerEnd(m);
    if (headerEnd <= 0 || headerEnd >= bytes.length) return;
    const handle = await open(m.path, 'r+');
    try {
      const position = headerEnd + this.int(bytes.length - headerEnd);
      const byte = Buffer.alloc(1);
      await handle.read(byte, 0, 1, position);
      byte[0] = (byte[0] as number) ^ (1 << this.int(8));
      await handle.write(byte, 0, 1, position);
    } finally {
      await handle.close();
    }
  }

  /** A new file (new inode) with a fresh log for the same header, published by rename. */
  async replaceFile(m: SessionModel): Promise<void> {
    const temp = join(this.root, `replacement-${this.int(1e9)}.tmp`);
    m.seq = 0;
    m.turn = 0;
    const header = await batchFileBytes(`${JSON.stringify({ type: 'session', ...m.header, delegationDepth: 0 })}\n`, this.compression);
    await writeFile(temp, header);
    const events = this.closedTurn(m);
    await appendEvents(temp, events, this.compression);
    await rename(temp, m.path);
  }

  async resync(m: SessionModel): Promise<void> {
    try {
      const inspection = await this.pair.full.inspectArtifact(asSessionId(m.id));
      m.seq = inspection.decoded.events.length;
    } catch {
      // A broken log keeps the model's own count: later batches simply stay broken.
    }
  }

  async step(m: SessionModel): Promise<string> {
    const roll = this.rng();
    if (roll < 0.26) {
      await this.appendBatch(m, this.closedTurn(m));
      return 'closed turn';
    }
    if (roll < 0.33) {
      await this.appendBatch(m, this.openTurn(m));
      return 'open turn';
    }
    if (roll < 0.4) {
      await this.appendBatch(m, this.titleLines(m));
      return 'title lines';
    }
    if (roll < 0.44) {
      await this.appendBatch(m, this.unknownLines(m));
      return 'unknown type';
    }
    if (roll < 0.49) {
      await this.appendBatch(m, this.legacyLines(m));
      return 'legacy';
    }
    if (roll < 0.54) {
      await this.appendBatch(m, this.brokenLines(m));
      return 'broken event';
    }
    if (roll < 0.58) {
      await this.appendBatch(m, this.garbageLines(m));
      return 'garbage line';
    }
    if (roll < 0.66) {
      const batch = await this.replacementEvents(m);
      if (batch === undefined) {
        await this.appendBatch(m, this.closedTurn(m));
        return 'closed turn (no surface)';
      }
      await this.appendBatch(m, batch);
      return 'replacement';
    }
    if (roll < 0.72) {
      await this.tornWrite(m);
      return 'torn write';
    }
    if (roll < 0.78) {
      await this.pair.full.repair(asSessionId(m.id)).catch(() => 0);
      return 'repair';
    }
    if (roll < 0.81) {
      await this.flipByte(m);
      return 'flip byte';
    }
    if (roll < 0.84) {
      await this.replaceFile(m);
      return 'replace file';
    }
    if (roll < 0.87) {
      const { bytes, headerEnd } = await this.headerEnd(m);
      if (headerEnd > 0) await truncate(m.path, headerEnd + this.int(bytes.length - headerEnd + 1));
      return 'truncate';
    }
    if (roll < 0.92) {
      const when = new Date(T0 + this.int(1e9));
      await utimes(m.path, when, when);
      return 'touch';
    }
    await this.pair.indexed.flushTitleIndex();
    this.stats.push(this.pair.indexed.titleIndexStats as TitleIndexStats);
    this.pair = await openPair(this.root, this.compression);
    return 'reload index';
  }

  totals(): TitleIndexStats {
    const all = [...this.stats, this.pair.indexed.titleIndexStats as TitleIndexStats];
    return all.reduce(
      (sum, stats) => ({
        statOnly: sum.statOnly + stats.statOnly,
        incremental: sum.incremental + stats.incremental,
        full: sum.full + stats.full,
        unavailable: sum.unavailable + stats.unavailable,
        discarded: sum.discarded + stats.discarded,
        discardedFiles: sum.discardedFiles + stats.discardedFiles,
      }),
      { statOnly: 0, incremental: 0, full: 0, unavailable: 0, discarded: 0, discardedFiles: 0 },
    );
  }
}

/** A coarse class of an observation, to check that the random walk reached every kind of result. */
function outcomeKind(observation: SessionTitleObservation): string {
  if (observation.status === 'fulfilled') return observation.value.title === undefined ? 'fulfilled without title' : 'fulfilled with title';
  const reason = observation.reason as Error & { code?: unknown };
  return typeof reason.code === 'string' ? reason.code : reason.name;
}

/** 22 sessions: several per project, cwd-less ones, an id with a lone surrogate and quotes, a header with version -0. */
async function createSessions(scenario: Scenario): Promise<void> {
  const cwds = ['/w/alpha', '/w/beta', '/w/gamma', undefined];
  for (let index = 0; index < 21; index++) {
    const id = index === 7 ? `odd\ud800"id-${index}` : `session-${index}`;
    const cwd = cwds[index % cwds.length];
    const header = {
      version: 0,
      id: asSessionId(id),
      createdAt: T0 - index * 1000,
      ...(cwd === undefined ? {} : { cwd }),
    } as SessionHeader;
    const path = await scenario.pair.full.create(header);
    scenario.sessions.push({ id, header, path, seq: 0, turn: 0, calls: 0 });
  }
  // A header whose version is -0 passes every check and is reported as -0 (written by hand: JSON.stringify would print 0).
  const id = 'negative-zero-version';
  const header = { version: 0, id: asSessionId(id), createdAt: T0, cwd: '/w/alpha' } as SessionHeader;
  const path = artifactPathFor(scenario.pair.full.config, id, '/w/alpha');
  await scenario.pair.full.create(header);
  await writeFile(
    path,
    await batchFileBytes(
      `{"type":"session","version":-0,"id":"${id}","createdAt":${T0},"cwd":"/w/alpha","delegationDepth":0}\n`,
      scenario.compression,
    ),
  );
  scenario.sessions.push({ id, header, path, seq: 0, turn: 0, calls: 0 });
}

describe.each([
  { compression: 'none' as const, seed: 96 },
  { compression: 'zstd' as const, seed: 9696 },
  { compression: 'none' as const, seed: 4242 },
  { compression: 'zstd' as const, seed: 31337 },
])('item 96: title index equals full inspection under random operations ($compression, seed $seed)', ({ compression, seed }) => {
  it(`${STEPS} steps over 22 sessions`, async () => {
    const root = join(await tempDir(), 'sessions');
    const scenario = new Scenario(seed, root, compression, await openPair(root, compression));
    await createSessions(scenario);
    const ids = [...scenario.sessions.map((session) => session.id), 'missing-session'];
    await expectSameTitles(scenario.pair, ids, 'initial');
    const operations = new Map<string, number>();
    const outcomes = new Set<string>();
    for (let step = 0; step < STEPS; step++) {
      const session = scenario.pick(scenario.sessions);
      const operation = await scenario.step(session);
      operations.set(operation, (operations.get(operation) ?? 0) + 1);
      await scenario.resync(session);
      const observed = await expectSameTitles(scenario.pair, ids, `step ${step}: ${operation} on ${JSON.stringify(session.id)}`);
      for (const observation of observed) outcomes.add(outcomeKind(observation));
    }
    const totals = scenario.totals();
    // The index really answered: unchanged logs by stat only, grown ones incrementally, and never gave up.
    expect(totals.statOnly).toBeGreaterThan(STEPS);
    expect(totals.incremental).toBeGreaterThan(10);
    expect(totals.full).toBeGreaterThan(0);
    expect(totals.unavailable).toBe(0);
    expect(operations.size).toBeGreaterThan(12);
    // The comparison covered every kind of result, not only healthy logs.
    expect([...outcomes].sort()).toEqual(
      expect.arrayContaining([
        'fulfilled with title',
        'fulfilled without title',
        'SESSION_QUERY_CORRUPT_SESSION',
        'SESSION_QUERY_PERSISTENCE_FAILED',
        'SESSION_QUERY_SESSION_NOT_FOUND',
        'TypeError',
      ]),
    );
  });
});

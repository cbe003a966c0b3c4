/**
 * Deep nesting is one typed rule (issue 12, Build item 7; SESSION-LOG.md §9.15a "Nesting limit"): an event that
 * nests 511 levels works on every path; one that nests 513, 3,000 or 10,000 levels gives `SESSION_LOG_TOO_DEEP` (or
 * the query layer's wrapping of it, with the same inner message) on every path — the store's write path, the
 * inspection of a log another tool wrote, `readSurface`, pool and in-thread `prepare`, title reads, live attach and
 * the built CLI's `show --json` — never a raw `RangeError` and never a hang. Other sessions of the root stay listed
 * and readable.
 *
 * Before the fix: `store.create` threw a raw RangeError from 4,500 levels, `readSurface` on the pool hung at 3,000
 * (the worker's reply could not be deserialised on the main thread), in-thread reads threw RangeError, live attach
 * threw RangeError from about 1,300 levels, and a header with a deep field made the whole listing throw.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/engine/assembly/create-engine.js';
import type { LocalSessionEngine } from '../../src/main/engine/assembly/create-engine.js';
import { SessionQuery } from '../../src/main/engine/corpus/session-query.js';
import { InMemoryLiveRegistry } from '../../src/main/engine/corpus/live-registry.js';
import { InThreadSourceRenderer } from '../../src/main/engine/reference/in-thread-source-renderer.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { artifactPathFor } from '../../src/io/artifact-path.js';
import { encodeSessionReferenceUri } from '../../src/protocol/uri/session-uri.js';
import { parseMessageContent } from '../../src/protocol/uri/mention-parser.js';
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import type { Compression } from '../../src/protocol/storage-paths.js';
import { compressFrame, initZstd } from '../../src/workers/decode/zstd-codec.js';
import { REPO_ROOT } from '../support/fixtures.js';
import { EventSequence, makeTempDir, removeTempDir, sessionHeader, writeArtifactFile } from '../main/engine/store/store-test-builders.js';
import { jsonTextDepth } from '../support/json-text-depth.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
const CWD = '/work/deep';
const LIMIT = 512;

/** Independent definition of an event's nesting: the deepest bracket run of its JSON text outside strings, minus the record. */
function lineDepth(text: string): number {
  return jsonTextDepth(text) - 1;
}

/**
 * The JSON text of an event nesting exactly `depth` levels, built as text (JSON.stringify itself overflows from
 * about 4,100 levels). A surface event — an assistant message whose text block carries an `extra` field — so that
 * at the limit the deep value really travels through cloning, rendering and `show --json`.
 */
function deepAssistantLine(seq: number, depth: number): string {
  // data(1) > message(2) > content(3) > block(4) > extra: the rest.
  const inner = depth - 4;
  const extra = `${'['.repeat(inner)}"deep"${']'.repeat(inner)}`;
  const text = `{"type":"assistant/message","seq":${seq},"time":${1_767_225_600_000 + 10 * seq},"data":{"turn":1,"step":1,"message":{"id":"assistant-${seq}","role":"assistant","content":[{"type":"text","text":"deep answer","extra":${extra}}],"source":{"kind":"model","provider":"deepseek","model":"deepseek-chat"}}},"surfaceOp":"append"}`;
  expect(lineDepth(text)).toBe(depth);
  return text;
}

/** The same event as an object (for the write path), via JSON.parse, which is not recursive. */
function deepAssistantEvent(seq: number, depth: number): SessionEvent {
  return JSON.parse(deepAssistantLine(seq, depth)) as SessionEvent;
}

/** A closed turn whose answer nests `depth` levels: header line + event lines, as text. */
function deepLogLines(id: string, depth: number): string[] {
  const s = new EventSequence();
  const before = [s.turnStart(1), s.stepStart(1, 1), s.userMessage('how deep?')];
  s.advance(1);
  const after = [s.stepEnd(1, 1), s.turnEnd(1)];
  const header = JSON.stringify({ type: 'session', version: 0, id, createdAt: 1_767_225_599_000, cwd: CWD, delegationDepth: 0 });
  return [
    header,
    ...before.map((event) => JSON.stringify(event)),
    deepAssistantLine(3, depth),
    ...after.map((event) => JSON.stringify(event)),
  ];
}

/** Writes a log as another tool would: raw lines, or one zstd frame for the header and one for the events. */
async function writeDeepLog(root: string, compression: Compression, id: string, depth: number): Promise<string> {
  const path = artifactPathFor({ root, compression } as Parameters<typeof artifactPathFor>[0], asSessionId(id), CWD);
  const [header, ...events] = deepLogLines(id, depth);
  const encoder = new TextEncoder();
  if (compression === 'none') {
    await writeArtifactFile(path, `${header}\n${events.join('\n')}\n`);
  } else {
    await initZstd();
    const a = compressFrame(encoder.encode(`${header}\n`));
    const b = compressFrame(encoder.encode(`${events.join('\n')}\n`));
    const bytes = new Uint8Array(a.length + b.length);
    bytes.set(a, 0);
    bytes.set(b, a.length);
    await writeArtifactFile(path, bytes);
  }
  return path;
}

/** The inner error every path carries for the deep log at `path`. */
function tooDeepMessage(depth: number, path: string): string {
  return `session event "assistant/message" at seq 3 nests ${depth} levels of arrays and objects; the limit is ${LIMIT} (event line 4 of ${JSON.stringify(path)})`;
}

interface CliResult {
  readonly code: number;
  readonly stdout: string;
}

async function cli(args: readonly string[]): Promise<CliResult> {
  try {
    const { stdout } = await run(process.execPath, [BIN, ...args], { maxBuffer: 64 * 1024 * 1024, timeout: 30_000 });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

/** Awaits `promise`, which must reject; returns the error (a hang fails through the test timeout). */
async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; cause?: unknown }> {
  try {
    await promise;
  } catch (error) {
    expect(error).not.toBeInstanceOf(RangeError);
    return error as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

/** The codes and messages of an error's cause chain, outermost first. */
function chain(error: unknown): Array<{ code: unknown; message: string }> {
  const out: Array<{ code: unknown; message: string }> = [];
  for (let current = error; current instanceof Error; current = (current as { cause?: unknown }).cause) {
    out.push({ code: (current as { code?: unknown }).code, message: current.message });
  }
  return out;
}

/** A prepared result without the fresh random id of its context message (SESSION-LOG.md §4.1). */
function withoutMessageId(prepared: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(prepared)) as { additionalContext?: { id?: string } };
  delete copy.additionalContext?.id;
  return copy;
}

const target = { id: asSessionId('session-citing'), session: { header: { cwd: CWD } } };

function citing(id: string): ReturnType<typeof parseMessageContent> {
  return parseMessageContent([{ type: 'text', text: `what about @[deep](${encodeSessionReferenceUri(asSessionId(id))})?` }]);
}

describe.each<[Compression]>([['none'], ['zstd']])('deep nesting, %s logs', (compression) => {
  let root: string;
  let pool: LocalSessionEngine;
  let inThread: LocalSessionEngine;
  let store: JsonlSessionStore;
  const paths = new Map<number, string>();
  const depths = [LIMIT - 1, LIMIT + 1, 3000, 10_000];
  const idOf = (depth: number): string => `deep-${depth}`;

  beforeAll(async () => {
    root = await makeTempDir();
    store = await JsonlSessionStore.open({ root, compression });
    const s = new EventSequence();
    await store.create(sessionHeader('healthy', CWD), s.closedTurn(1, 'hello', ['a', 'b', 'c']));
    for (const depth of depths) paths.set(depth, await writeDeepLog(root, compression, idOf(depth), depth));
    pool = await createEngine({ root, compression });
    inThread = await createEngine({ root, compression, workers: false });
  });

  afterAll(async () => {
    await pool?.close();
    await inThread?.close();
    await removeTempDir(root);
  });

  it(`depth ${LIMIT - 1} works on every read path and returns the deep value intact`, async () => {
    const id = asSessionId(idOf(LIMIT - 1));
    const pooled = await pool.readSurface(id);
    const local = await inThread.readSurface(id);
    expect(local).toEqual(pooled);
    expect(lineDepth(JSON.stringify(pooled.events[1]))).toBe(LIMIT - 1);
    const direct = await new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store }).readSurface(id);
    expect(direct).toEqual(pooled);
    const message = citing(id);
    const viaPool = await pool.prepare(target, message.content, message.references);
    const viaThread = await inThread.prepare(target, message.content, message.references);
    expect(withoutMessageId(viaThread)).toEqual(withoutMessageId(viaPool));
    const rendered = await new InThreadSourceRenderer(new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store })).render(
      id,
      'deep',
      65536,
      new AbortController().signal,
    );
    expect(rendered.fits).toBe(true);
    const [title] = await pool.readTitleSnapshots([id]);
    expect(title?.status).toBe('fulfilled');
  });

  it.each([LIMIT + 1, 3000, 10_000])('depth %i gives SESSION_LOG_TOO_DEEP on every read path (no RangeError, no hang)', async (depth) => {
    const id = asSessionId(idOf(depth));
    const path = paths.get(depth) as string;
    const inner = tooDeepMessage(depth, path);
    const corrupt = `stored session "${id}" is corrupt: ${inner}`;

    const inspected = await rejection(store.inspect(id));
    expect({ code: inspected.code, message: inspected.message }).toEqual({ code: 'SESSION_LOG_TOO_DEEP', message: inner });

    for (const engine of [pool, inThread]) {
      const read = await rejection(engine.readSurface(id));
      expect(chain(read)).toEqual([
        { code: 'SESSION_QUERY_CORRUPT_SESSION', message: corrupt },
        { code: 'SESSION_LOG_TOO_DEEP', message: inner },
      ]);
      const message = citing(id);
      const prepared = await rejection(engine.prepare(target, message.content, message.references));
      expect(chain(prepared).map((link) => link.code)).toEqual([
        'SESSION_REFERENCE_READ_FAILED',
        'SESSION_QUERY_CORRUPT_SESSION',
        'SESSION_LOG_TOO_DEEP',
      ]);
      expect(chain(prepared)[2]?.message).toBe(inner);
      const [title] = await engine.readTitleSnapshots([id]);
      expect(title?.status).toBe('rejected');
      expect(chain((title as { reason: unknown }).reason)).toEqual([
        { code: 'SESSION_QUERY_CORRUPT_SESSION', message: corrupt },
        { code: 'SESSION_LOG_TOO_DEEP', message: inner },
      ]);
    }
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
    const direct = await rejection(query.readSurface(id));
    expect(chain(direct)[0]).toEqual({ code: 'SESSION_QUERY_CORRUPT_SESSION', message: corrupt });
    const rendered = await rejection(new InThreadSourceRenderer(query).render(id, 'deep', 65536, new AbortController().signal));
    expect(chain(rendered)[0]).toEqual({ code: 'SESSION_QUERY_CORRUPT_SESSION', message: corrupt });
  });

  it('the other sessions of the root stay listed and readable', async () => {
    const records = await pool.listSessions();
    expect(records.map((record) => record.header.id).sort()).toEqual(['healthy', ...depths.map(idOf)].sort());
    const healthy = await pool.readSurface(asSessionId('healthy'));
    expect(healthy.events.length).toBe(2);
  });

  it.each([LIMIT - 1, 3000])('the built CLI: show --json at depth %i', async (depth) => {
    const id = idOf(depth);
    const result = await cli(['show', id, '--root', root, '--json']);
    if (depth < LIMIT) {
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(JSON.parse(JSON.stringify(await pool.readSurface(asSessionId(id)))));
      return;
    }
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'SESSION_QUERY_CORRUPT_SESSION',
        message: `stored session "${id}" is corrupt: ${tooDeepMessage(depth, paths.get(depth) as string)}`,
      },
    });
  });
});

describe('the store write path refuses before writing', () => {
  let root: string;
  let store: JsonlSessionStore;

  beforeAll(async () => {
    root = await makeTempDir();
    store = await JsonlSessionStore.open({ root, compression: 'zstd' });
  });

  afterAll(async () => {
    await removeTempDir(root);
  });

  it.each([LIMIT + 1, 3000, 10_000])(
    'create and append of an event nesting %i levels: SESSION_LOG_TOO_DEEP, no log written or changed',
    async (depth) => {
      const s = new EventSequence();
      const events = [s.turnStart(1), s.stepStart(1, 1), s.userMessage('how deep?')];
      s.advance(1);
      const deep = deepAssistantEvent(3, depth);
      const message = `session event "assistant/message" at seq 3 nests ${depth} levels of arrays and objects; the limit is ${LIMIT}`;
      const header = sessionHeader(`write-${depth}`, CWD);
      const created = await rejection(store.create(header, [...events, deep]));
      expect({ code: created.code, message: created.message }).toEqual({ code: 'SESSION_LOG_TOO_DEEP', message });
      const path = artifactPathFor(store.config, header.id, CWD);
      expect(existsSync(path)).toBe(false);
      // The same session written without the deep event, then the deep event appended: refused, the log unchanged.
      await store.create(header, events);
      const before = readFileSync(path);
      const appended = await rejection(store.append(header, [deep]));
      expect({ code: appended.code, message: appended.message }).toEqual({ code: 'SESSION_LOG_TOO_DEEP', message });
      expect(readFileSync(path).equals(before)).toBe(true);
      await store.append(header, [deepAssistantEvent(3, LIMIT - 1)]);
      expect((await store.inspect(header.id)).events.length).toBe(4 + 2);
    },
  );
});

describe('live sessions', () => {
  it.each([[LIMIT + 1], [3000], [10_000]])(
    'attach refuses a log nesting %i levels; a live log that gains one fails every read alike',
    async (depth) => {
      const message = `session event "assistant/message" at seq 3 nests ${depth} levels of arrays and objects; the limit is ${LIMIT}`;
      for (const workers of [true, false]) {
        const engine = await createEngine({ workers });
        try {
          const s = new EventSequence();
          const events: SessionEvent[] = [s.turnStart(1), s.stepStart(1, 1), s.userMessage('how deep?')];
          const refused = {
            id: asSessionId('live-refused'),
            header: sessionHeader('live-refused', CWD),
            events: [...events, deepAssistantEvent(3, depth)],
          };
          let attachError: unknown;
          try {
            engine.attachLive(refused);
          } catch (error) {
            attachError = error;
          }
          expect(chain(attachError)).toEqual([{ code: 'SESSION_LOG_TOO_DEEP', message }]);

          const live = { id: asSessionId('live-deep'), header: sessionHeader('live-deep', CWD), events: [...events] };
          engine.attachLive(live);
          live.events.push(deepAssistantEvent(3, depth));
          const read = await rejection(engine.readSurface(live.id));
          expect(chain(read)).toEqual([
            { code: 'SESSION_QUERY_INVALID_SURFACE', message: `invalid session surface: ${message}` },
            { code: 'SESSION_LOG_TOO_DEEP', message },
          ]);
          const cite = citing(live.id);
          const prepared = await rejection(engine.prepare(target, cite.content, cite.references));
          expect(chain(prepared).slice(1)).toEqual(chain(read));
        } finally {
          await engine.close();
        }
      }
    },
  );

  it(`a live log at depth ${LIMIT - 1} attaches, reads and renders on both paths`, async () => {
    const results: unknown[] = [];
    for (const workers of [true, false]) {
      const engine = await createEngine({ workers });
      try {
        const s = new EventSequence();
        const events: SessionEvent[] = [s.turnStart(1), s.stepStart(1, 1), s.userMessage('how deep?')];
        const live = {
          id: asSessionId('live-ok'),
          header: sessionHeader('live-ok', CWD),
          events: [...events, deepAssistantEvent(3, LIMIT - 1)],
        };
        engine.attachLive(live);
        const read = await engine.readSurface(live.id);
        expect(lineDepth(JSON.stringify(read.events[1]))).toBe(LIMIT - 1);
        const cite = citing(live.id);
        results.push(await engine.prepare(target, cite.content, cite.references));
      } finally {
        await engine.close();
      }
    }
    expect(withoutMessageId(results[1])).toEqual(withoutMessageId(results[0]));
  });
});

describe('a header with a deep field', () => {
  it('is one listing problem; the other sessions stay listed and readable', async () => {
    const root = await makeTempDir();
    try {
      const store = await JsonlSessionStore.open({ root, compression: 'none' });
      await store.create(sessionHeader('healthy', CWD), new EventSequence().closedTurn(1, 'hello', ['a', 'b', 'c']));
      const path = artifactPathFor(store.config, asSessionId('deep-header'), CWD);
      const parent = `${'['.repeat(3000)}${']'.repeat(3000)}`;
      await writeArtifactFile(
        path,
        `{"type":"session","version":0,"id":"deep-header","createdAt":1,"cwd":${JSON.stringify(CWD)},"parentSession":${parent},"delegationDepth":0}\n`,
      );
      const engine = await createEngine({ root, compression: 'none' });
      try {
        const report = await engine.listSessionsReport();
        expect(report.records.map((record) => record.header.id)).toEqual(['healthy']);
        expect(report.problems).toEqual([
          {
            path,
            code: 'SESSION_STORE_CORRUPT_HEADER',
            message: 'session header nests 3000 levels of arrays and objects; the limit is 512',
          },
        ]);
        expect((await engine.readSurface(asSessionId('healthy'))).events.length).toBe(2);
        const read = await rejection(engine.readSurface(asSessionId('deep-header')));
        expect(read.code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
        const inspected = await rejection(store.inspect(asSessionId('deep-header')));
        expect({ code: inspected.code, message: inspected.message }).toEqual({
          code: 'SESSION_LOG_TOO_DEEP',
          message: `session header nests 3000 levels of arrays and objects; the limit is 512 (${JSON.stringify(path)})`,
        });
      } finally {
        await engine.close();
      }
    } finally {
      await removeTempDir(root);
    }
  });
});

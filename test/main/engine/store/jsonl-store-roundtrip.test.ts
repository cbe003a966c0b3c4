// SESSION-REFERENCE.md §15 item 95 at store level: create + append in raw and zstd, the exact bytes on
// disk (SESSION-LOG.md §9.7–§9.9, §9.16), and inspection returning exactly the written events.
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionLogError } from '../../../../src/protocol/errors.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { xxh64Low32 } from '../../../../src/workers/decode/xxh64.js';
import {
  EventSequence,
  decodeFrames,
  expectRejection,
  json,
  linesOf,
  makeTempDir,
  removeTempDir,
  sessionHeader,
} from './store-test-builders.js';

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

const HEADER = sessionHeader('writer/1', '/home/u/app', { createdAt: 1767225600000 });
const HEADER_LINE = '{"type":"session","version":0,"id":"writer/1","createdAt":1767225600000,"cwd":"/home/u/app","delegationDepth":0}\n';

/** One written batch: its events and the storage records expected on disk with packing on (§9.7). */
interface Batch {
  readonly events: SessionEvent[];
  readonly packedRecords: unknown[];
}

/**
 * Four batches of one session: a first turn with a reasoning run of 2 (verbatim), a text run of 4 with a
 * negative gap (one row), a recorded tool call and its result; a second step with a named and an unnamed
 * tool-call run of 3 each (two rows, split on `name` presence); a title; a second closed turn.
 */
function buildBatches(): Batch[] {
  const log = new EventSequence();
  const first: SessionEvent[] = [log.turnStart(1), log.stepStart(1, 1), log.userMessage('Explain the build.')];
  const reasoning = [log.reasoningDelta(1, 1, 0, 'Let me'), log.reasoningDelta(1, 1, 0, ' think.')];
  const blockStart = log.blockStart(1, 1, 1);
  const t0 = 1767225700000;
  const textRun = [
    log.textDelta(1, 1, 1, 'The ', t0),
    log.textDelta(1, 1, 1, 'build ', t0 + 2),
    log.textDelta(1, 1, 1, 'uses ', t0 + 5),
    log.textDelta(1, 1, 1, 'tsc.', t0 + 4),
  ];
  const answer = log.assistantMessage(1, 1, [
    { type: 'reasoning', text: 'Let me think.' },
    { type: 'text', text: 'The build uses tsc.' },
    { type: 'tool-call', id: 'call-1', name: 'read_file', arguments: '{"path":"package.json"}' },
  ]);
  const call = log.toolCallRecorded(1, 1, 'call-1', 'read_file', '{"path":"package.json"}');
  const result = log.toolResult(1, 1, 'call-1', '{"name":"app"}', call.seq);
  const stepEnd = log.stepEnd(1, 1);
  first.push(...reasoning, blockStart, ...textRun, answer, call, result, stepEnd);
  const textRow = {
    type: 'text-chunks',
    seq0: textRun[0]?.seq,
    time0: t0,
    data: { turn: 1, step: 1, index: 1, dt: [2, 3, -1], texts: ['The ', 'build ', 'uses ', 'tsc.'] },
  };
  const firstRecords = [...first.slice(0, 3), ...reasoning, blockStart, textRow, answer, call, result, stepEnd];

  const stepStart = log.stepStart(1, 2);
  const named = [
    log.toolCallDelta(1, 2, 0, 'call-2', '{"pa', 'grep'),
    log.toolCallDelta(1, 2, 0, 'call-2', 'ttern"', 'grep'),
    log.toolCallDelta(1, 2, 0, 'call-2', ':"x"}', 'grep'),
  ];
  const unnamed = [
    log.toolCallDelta(1, 2, 0, 'call-2', 'a'),
    log.toolCallDelta(1, 2, 0, 'call-2', 'b'),
    log.toolCallDelta(1, 2, 0, 'call-2', 'c'),
  ];
  const closing = [log.assistantMessage(1, 2, 'Done.'), log.stepEnd(1, 2), log.turnEnd(1)];
  const namedRow = {
    type: 'tool-call-chunks',
    seq0: named[0]?.seq,
    time0: named[0]?.time,
    data: { turn: 1, step: 2, index: 0, dt: [10, 10], id: 'call-2', name: 'grep', args: ['{"pa', 'ttern"', ':"x"}'] },
  };
  const unnamedRow = {
    type: 'tool-call-chunks',
    seq0: unnamed[0]?.seq,
    time0: unnamed[0]?.time,
    data: { turn: 1, step: 2, index: 0, dt: [10, 10], id: 'call-2', args: ['a', 'b', 'c'] },
  };
  const second = [stepStart, ...named, ...unnamed, ...closing];

  const title = [
    log.sessionTitle('Build explained', [2], {
      kind: 'provider',
      provider: 'deepseek',
      model: { provider: 'deepseek', model: 'deepseek-chat' },
    }),
  ];

  const turn2 = log.closedTurn(2, 'And the tests?', ['Vi', 'test ', 'runs ', 'them', '.']);
  const deltas = turn2.slice(3, 8);
  const turn2Row = {
    type: 'text-chunks',
    seq0: deltas[0]?.seq,
    time0: deltas[0]?.time,
    data: { turn: 2, step: 1, index: 0, dt: [10, 10, 10, 10], texts: ['Vi', 'test ', 'runs ', 'them', '.'] },
  };
  return [
    { events: first, packedRecords: firstRecords },
    { events: second, packedRecords: [stepStart, namedRow, unnamedRow, ...closing] },
    { events: title, packedRecords: title },
    { events: turn2, packedRecords: [...turn2.slice(0, 3), turn2Row, ...turn2.slice(8)] },
  ];
}

async function writeAll(store: JsonlSessionStore, batches: readonly Batch[]): Promise<string> {
  const [first, ...rest] = batches;
  const path = await store.create(HEADER, first?.events ?? []);
  for (const batch of rest) await store.append(HEADER, batch.events);
  return path;
}

describe('raw writer (§9.8, §9.16)', () => {
  it('the file is the header line followed by each batch, with runs of ≥ 3 deltas packed into rows in §9.7 key order', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const batches = buildBatches();
    const path = await writeAll(store, batches);
    expect(path).toBe(join(root, '--home-u-app--', 'writer~002F1', 'session.jsonl'));
    const expected = HEADER_LINE + batches.map((batch) => linesOf(batch.packedRecords)).join('');
    expect(await readFile(path, 'utf8')).toBe(expected);
    // The literal text of the first row, to pin the key order independently of the object literal above.
    expect(expected).toContain(
      '{"type":"text-chunks","seq0":6,"time0":1767225700000,"data":{"turn":1,"step":1,"index":1,"dt":[2,3,-1],"texts":["The ","build ","uses ","tsc."]}}\n',
    );
    expect(expected).toContain(
      '"data":{"turn":1,"step":2,"index":0,"dt":[10,10],"id":"call-2","name":"grep","args":["{\\"pa","ttern\\"",":\\"x\\"}"]}}\n',
    );
  });

  it('with packChunks false every event is written verbatim', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none', packChunks: false });
    const batches = buildBatches();
    const path = await writeAll(store, batches);
    expect(await readFile(path, 'utf8')).toBe(HEADER_LINE + batches.map((batch) => linesOf(batch.events)).join(''));
  });
});

describe('zstd writer (§9.9, §9.16, §9.17)', () => {
  it('frame 0 holds only the header line; each batch is one checksummed frame with the raw-mode plaintext', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    const batches = buildBatches();
    const path = await writeAll(store, batches);
    expect(path).toBe(join(root, '--home-u-app--', 'writer~002F1', 'session.jsonl.zstd'));
    const bytes = await readFile(path);
    const frames = await decodeFrames(bytes);
    expect(frames.map((frame) => frame.plaintext)).toEqual([HEADER_LINE, ...batches.map((batch) => linesOf(batch.packedRecords))]);
    expect(frames[0]?.start).toBe(0);
    expect(frames.at(-1)?.end).toBe(bytes.length);
    for (const frame of frames) {
      expect(frame.descriptor & 0x04, 'content checksum flag').toBe(0x04);
      const checksum = xxh64Low32(new TextEncoder().encode(frame.plaintext));
      expect([...frame.trailer]).toEqual([checksum & 0xff, (checksum >>> 8) & 0xff, (checksum >>> 16) & 0xff, checksum >>> 24]);
    }
  });

  it('create without a first batch writes the header frame alone; an empty append writes nothing', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    const path = await store.create(HEADER);
    await store.append(HEADER, []);
    const frames = await decodeFrames(await readFile(path));
    expect(frames.map((frame) => frame.plaintext)).toEqual([HEADER_LINE]);
    expect((await store.inspect(asSessionId('writer/1'))).events).toEqual([]);
  });
});

describe.each(['none', 'zstd'] as const)('read back (%s)', (compression) => {
  it('inspect returns exactly the written events, in order and key order, with no torn tail and no closers', async () => {
    const store = await JsonlSessionStore.open({ root, compression });
    const batches = buildBatches();
    await writeAll(store, batches);
    const written = batches.flatMap((batch) => batch.events);
    const inspection = await store.inspectArtifact(asSessionId('writer/1'));
    expect(json(inspection.events)).toBe(json(written));
    expect(inspection.events).toEqual(written);
    expect(inspection.decoded.tornTail).toBeUndefined();
    expect(json(inspection.meta)).toBe('{"version":0,"id":"writer/1","createdAt":1767225600000,"cwd":"/home/u/app","delegationDepth":0}');
    expect(Object.isFrozen(inspection.events[0])).toBe(true);
    // A second store instance on the same root reads the same thing.
    const other = await JsonlSessionStore.open({ root, compression });
    expect(json((await other.inspect(asSessionId('writer/1'))).events)).toBe(json(written));
  });

  it('create refuses an id that already has a log and leaves the file untouched', async () => {
    const store = await JsonlSessionStore.open({ root, compression });
    const log = new EventSequence();
    const path = await store.create(HEADER, log.closedTurn(1, 'first', ['a']));
    const before = await readFile(path);
    const refusal = {
      message: 'refusing to materialize "writer/1": a log already exists on disk (load/resume it instead)',
      code: 'SESSION_STORE_EXISTS',
      name: 'Error',
    };
    await expectRejection(store.create(HEADER, new EventSequence().closedTurn(1, 'second', ['b'])), refusal);
    await expectRejection((await JsonlSessionStore.open({ root, compression })).create(HEADER), refusal);
    expect(Buffer.compare(await readFile(path), before)).toBe(0);
  });

  it('two concurrent creates of one id: exactly one wins, the other is refused', async () => {
    const stores = [await JsonlSessionStore.open({ root, compression }), await JsonlSessionStore.open({ root, compression })];
    const settled = await Promise.allSettled([
      stores[0]?.create(HEADER, new EventSequence().closedTurn(1, 'a', ['x'])),
      stores[1]?.create(HEADER, new EventSequence().closedTurn(1, 'b', ['y'])),
      stores[0]?.create(HEADER),
    ]);
    expect(settled.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    // The loser either found the log (EXISTS, dsh's text) or met the winner's lock while it wrote (LOCKED).
    for (const outcome of settled) {
      if (outcome.status === 'rejected') {
        const reason = outcome.reason as SessionLogError;
        expect(['SESSION_STORE_EXISTS', 'SESSION_STORE_LOCKED']).toContain(reason.code);
        if (reason.code === 'SESSION_STORE_EXISTS') {
          expect(reason.message).toBe('refusing to materialize "writer/1": a log already exists on disk (load/resume it instead)');
        }
      }
    }
  });

  it('materialises with mode 0700 directories and a 0600 file, leaving no temp file behind', async () => {
    const store = await JsonlSessionStore.open({ root, compression });
    const path = await store.create(HEADER, new EventSequence().closedTurn(1, 'a', ['x']));
    expect(await readdir(dirname(path))).toEqual([compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl']);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const umask = process.umask();
    expect((await stat(dirname(path))).mode & 0o777).toBe(0o700 & ~umask);
    expect((await stat(dirname(dirname(path)))).mode & 0o777).toBe(0o700 & ~umask);
  });

  it('append to a session that was never created fails and creates nothing', async () => {
    const store = await JsonlSessionStore.open({ root, compression });
    let thrown: unknown;
    try {
      await store.append(HEADER, new EventSequence().closedTurn(1, 'a', ['x']));
    } catch (error) {
      thrown = error;
    }
    // A typed store error naming the operation and the path, the system error kept as its cause.
    const path = join(root, '--home-u-app--', 'writer~002F1', compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl');
    expect(thrown).toBeInstanceOf(SessionLogError);
    expect((thrown as SessionLogError).code).toBe('SESSION_STORE_IO_FAILED');
    expect((thrown as Error).message.startsWith(`session store: cannot append to "${path}": ENOENT: `), (thrown as Error).message).toBe(
      true,
    );
    expect(((thrown as Error).cause as { code?: unknown }).code).toBe('ENOENT');
    expect(await store.list()).toEqual([]);
  });

  it('appends issued without awaiting land in call order', async () => {
    const store = await JsonlSessionStore.open({ root, compression });
    const log = new EventSequence();
    await store.create(HEADER);
    const turns = [1, 2, 3, 4, 5, 6].map((turn) => log.closedTurn(turn, `prompt ${turn}`, ['a', 'b', 'c']));
    await Promise.all(turns.map((events) => store.append(HEADER, events)));
    expect(json((await store.inspect(asSessionId('writer/1'))).events)).toBe(json(turns.flat()));
  });
});

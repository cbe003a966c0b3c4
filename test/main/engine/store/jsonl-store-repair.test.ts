// SESSION-REFERENCE.md §15 item 88, durable part: a log cut inside an open turn, repaired by the store
// (SESSION-LOG.md §9.12 rule 4): truncate to the torn-tail offset, then one batch of recovered events and
// closers (new lines in raw mode, one new frame in zstd mode).
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { storedFrame, utf8Bytes } from '../../../support/zstd-stored-frame.js';
import { EventSequence, decodeFrames, json, linesOf, makeTempDir, removeTempDir, sessionHeader } from './store-test-builders.js';

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

const OUTCOME_UNKNOWN_TEXT =
  'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.';
const NOT_STARTED_TEXT = 'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.';

const HEADER = sessionHeader('crashed', '/home/u/app');
const ID = asSessionId('crashed');

/**
 * An open turn: the assistant asked for two tools (`c-rec`, `c-new`); only `c-rec` reached its
 * `tool/call`. Returns the builder (positioned after seq 4), the first batch and the second batch.
 */
function openTurn(): { log: EventSequence; first: SessionEvent[]; second: SessionEvent[] } {
  const log = new EventSequence();
  const first = [log.turnStart(1), log.stepStart(1, 1), log.userMessage('List the files and run the tests.')];
  const second = [
    log.assistantMessage(1, 1, [
      { type: 'text', text: 'Running both.' },
      { type: 'tool-call', id: 'c-rec', name: 'list_files', arguments: '{}' },
      { type: 'tool-call', id: 'c-new', name: 'run_tests', arguments: '{}' },
    ]),
    log.toolCallRecorded(1, 1, 'c-rec', 'list_files', '{}'),
  ];
  return { log, first, second };
}

/** The closers of §9.12 for {@link openTurn}, built literally, in dsh's key order (`surfaceOp` before `sourceEventSeqs`). */
function expectedClosers(time: number): unknown[] {
  const result = (seq: number, callId: string, text: string, error: unknown): Record<string, unknown> => ({
    type: 'tool/result',
    seq,
    time,
    data: {
      turn: 1,
      step: 1,
      message: {
        id: `interrupted-tool-result-${callId}-${seq}`,
        role: 'user',
        source: { kind: 'tool', callId },
        content: [{ type: 'tool-result', toolCallId: callId, isError: true, content: [{ type: 'text', text }] }],
      },
      error,
    },
    surfaceOp: 'append',
  });
  return [
    {
      ...result(5, 'c-rec', OUTCOME_UNKNOWN_TEXT, { name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' }),
      sourceEventSeqs: [4],
    },
    result(6, 'c-new', NOT_STARTED_TEXT, { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' }),
    { type: 'step/end', seq: 7, time, data: { turn: 1, step: 1 } },
    { type: 'turn/end', seq: 8, time, data: { turn: 1, reason: { kind: 'interrupted' } } },
  ];
}

describe('raw repair', () => {
  it('truncates the torn last line and appends the closers as one batch; re-inspection equals the pre-repair inspection', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const { log, first, second } = openTurn();
    const path = await store.create(HEADER, first);
    await store.append(HEADER, second);
    const committed = await readFile(path, 'utf8');
    await appendFile(path, '{"type":"tool/result","seq":5,"time":');

    const before = await store.inspectArtifact(ID);
    const stored = [...first, ...second];
    const closers = expectedClosers(second[1]?.time as number);
    expect(json(before.events)).toBe(json([...stored, ...closers]));
    expect(before.decoded.tornTail).toEqual({ truncateTo: Buffer.byteLength(committed), recoveredEvents: 0 });

    expect(await store.repair(ID)).toBe(4);
    expect(await readFile(path, 'utf8')).toBe(committed + linesOf(closers));

    const after = await store.inspectArtifact(ID);
    expect(json(after.events)).toBe(json(before.events));
    expect(after.decoded.events).toHaveLength(9);
    expect(after.decoded.tornTail).toBeUndefined();

    // Nothing left to repair: the file is not touched again.
    const repaired = await stat(path, { bigint: true });
    expect(await store.repair(ID)).toBe(0);
    const again = await stat(path, { bigint: true });
    expect([again.size, again.mtimeNs]).toEqual([repaired.size, repaired.mtimeNs]);

    // A resumed writer continues after the closers.
    log.advance(4);
    const next = log.closedTurn(2, 'Retry the tests.', ['ok']);
    expect(next[0]?.seq).toBe(9);
    await store.append(HEADER, next);
    expect(json((await store.inspect(ID)).events)).toBe(json([...stored, ...closers, ...next]));
  });

  it('a torn tail after a closed turn is only truncated (no events written)', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const events = new EventSequence().closedTurn(1, 'hi', ['a', 'b', 'c']);
    const path = await store.create(HEADER, events);
    const committed = await readFile(path, 'utf8');
    await appendFile(path, '{"type":"turn/st');
    expect(await store.repair(ID)).toBe(0);
    expect(await readFile(path, 'utf8')).toBe(committed);
    expect(json((await store.inspect(ID)).events)).toBe(json(events));
  });

  it('tolerated damage after the last turn/end (an unparsable line, then more lines) is cut at the committed offset', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const log = new EventSequence();
    const events = log.closedTurn(1, 'hi', ['a']);
    const path = await store.create(HEADER, events);
    const committed = await readFile(path, 'utf8');
    const stray = log.turnStart(2);
    await appendFile(path, `not json\n${JSON.stringify(stray)}\n`);
    const before = await store.inspectArtifact(ID);
    expect(json(before.events)).toBe(json(events));
    expect(before.decoded.tornTail?.truncateTo).toBe(Buffer.byteLength(committed));
    expect(await store.repair(ID)).toBe(0);
    expect(await readFile(path, 'utf8')).toBe(committed);
  });
});

describe('zstd repair', () => {
  it('truncates to tornStart and appends the recovered events and the closers as one new frame', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    const { first, second } = openTurn();
    const [answer, call] = second as [SessionEvent, SessionEvent];
    const path = await store.create(HEADER, first);
    await store.append(HEADER, [answer]);
    const committed = await readFile(path);

    // A torn final frame: raw block 1 holds the tool/call line, raw block 2 a later line cut mid-payload.
    const callLine = `${JSON.stringify(call)}\n`;
    const laterLine = `${JSON.stringify({ type: 'step/end', seq: 5, time: call.time, data: { turn: 1, step: 1 } })}\n`;
    const frame = storedFrame(utf8Bytes(callLine + laterLine), [Buffer.byteLength(callLine), Buffer.byteLength(laterLine)]);
    const cut = 6 + 3 + Buffer.byteLength(callLine) + 3 + 10; // magic, descriptor, window; block 1; 10 bytes of block 2
    await writeFile(path, Buffer.concat([committed, frame.subarray(0, cut)]));

    const before = await store.inspectArtifact(ID);
    const closers = expectedClosers(call.time);
    expect(json(before.events)).toBe(json([...first, answer, call, ...closers]));
    expect(before.decoded.tornTail).toEqual({ truncateTo: committed.length, recoveredEvents: 1 });

    expect(await store.repair(ID)).toBe(5);
    const repaired = await readFile(path);
    expect(Buffer.compare(repaired.subarray(0, committed.length), committed)).toBe(0);
    const frames = await decodeFrames(repaired);
    expect(frames).toHaveLength(4);
    expect(frames[3]?.start).toBe(committed.length);
    expect(frames[3]?.plaintext).toBe(callLine + linesOf(closers));
    expect((frames[3]?.descriptor ?? 0) & 0x04).toBe(0x04);

    const after = await store.inspectArtifact(ID);
    expect(json(after.events)).toBe(json(before.events));
    expect(after.decoded.tornTail).toBeUndefined();
    expect(await store.repair(ID)).toBe(0);
  });

  it('a torn frame cut inside its header after a closed turn is truncated away, nothing appended', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    const events = new EventSequence().closedTurn(1, 'hi', ['a', 'b', 'c']);
    const path = await store.create(HEADER, events);
    const committed = await readFile(path);
    await writeFile(path, Buffer.concat([committed, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x04])]));
    const before = await store.inspectArtifact(ID);
    expect(before.decoded.tornTail).toEqual({ truncateTo: committed.length, recoveredEvents: 0 });
    expect(await store.repair(ID)).toBe(0);
    expect(Buffer.compare(await readFile(path), committed)).toBe(0);
    expect(json((await store.inspect(ID)).events)).toBe(json(events));
  });

  it('an open turn without a torn tail gets its closers appended as one frame', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    const { first, second } = openTurn();
    const path = await store.create(HEADER, first);
    await store.append(HEADER, second);
    const committed = await readFile(path);
    const before = await store.inspect(ID);
    expect(await store.repair(ID)).toBe(4);
    const frames = await decodeFrames(await readFile(path));
    expect(frames).toHaveLength(4);
    expect(frames[3]?.start).toBe(committed.length);
    expect(frames[3]?.plaintext).toBe(linesOf(expectedClosers(second[1]?.time as number)));
    expect(json((await store.inspect(ID)).events)).toBe(json(before.events));
  });
});

// DCP.md §18 items 37–43 and 45–47: deduplication (keys, keeper, outcome rule, retention, idempotence), purge-errors
// (including a seeded steering message inside a unit),
// `strategies.runAt`, batching into one invalidation, and skipping while busy.
import { describe, expect, it } from 'vitest';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import type { ScriptEntry, ScriptedReply } from '../../../../src/main/stand-in/host/scripted-model.js';
import type { ToolDefinition } from '../../../../src/main/stand-in/host/tool-definition.js';
import type { DcpHarness } from './dcp-harness.js';
import {
  busyDuringPreStep,
  compressReply,
  createDcpHarness,
  expectHealthyLog,
  messageText,
  range,
  readTool,
  turn,
  userMessage,
} from './dcp-harness.js';

const _DEDUP_READ = '[duplicate read output removed; a newer identical call supersedes it]';

/** A reply calling `name` with `args`. */
function call(name: string, args: Record<string, unknown>): ScriptedReply {
  return { toolCalls: [{ name, args }] };
}

/** A turn whose model calls `name(args)` once and then answers. */
function toolTurn(name: string, args: Record<string, unknown>, answer = 'done'): ScriptEntry[] {
  return [call(name, args), { text: answer }];
}

const grepTool: ToolDefinition = {
  name: 'grep',
  description: 'Search.',
  parameters: { type: 'object' },
  concurrencySafe: true,
  execute: () => 'grep output line',
};

/** A tool whose outcomes follow `plan` call by call: `ok` returns text, anything else throws `{name, code}`. */
function scriptedTool(name: string, plan: ReadonlyArray<'ok' | 'error'>): ToolDefinition {
  let calls = 0;
  return {
    name,
    description: 'Scripted.',
    parameters: { type: 'object' },
    execute: () => {
      const outcome = plan[calls++] ?? 'ok';
      if (outcome === 'ok') return `${name} output ${'z'.repeat(80)}`;
      throw Object.assign(new Error(`${name} failed: file was not observed ${'e'.repeat(40)}`), {
        name: 'FsError',
        code: 'FS_NOT_OBSERVED',
      });
    },
  };
}

/** The original (appended) tool results in log order. */
function appendedResults(harness: DcpHarness): SessionEvent[] {
  return harness.session.events.filter((event) => event.type === 'tool/result' && event.surfaceOp === 'append');
}

/** The dedup replacements in log order. */
function dedupReplaces(harness: DcpHarness): SessionEvent[] {
  return harness.session.events.filter((event) => event.type === 'tool/result' && typeof event.surfaceOp === 'object');
}

function resultText(event: SessionEvent): string {
  const block = (event.data as { message: Message }).message.content[0] as unknown as { content: Array<{ text: string }> };
  return block.content.map((inner) => inner.text).join('\n');
}

describe('§18 item 37: dedup of identical reads', () => {
  it('prunes only the older read, keeps the newer visible, and a second run prunes nothing', async () => {
    const harness = createDcpHarness({
      tools: [readTool, grepTool],
      script: [
        ...toolTurn('read', { path: 'a.txt' }),
        ...toolTurn('read', { path: 'a.txt' }),
        ...toolTurn('grep', { q: 'x' }),
        { text: 'four' },
        { text: 'five' },
      ],
    });
    for (const text of ['one', 'two', 'three', 'four']) await turn(harness, text);
    const [first, second] = appendedResults(harness);
    const replaces = dedupReplaces(harness);
    expect(replaces).toHaveLength(1);
    expect(replaces[0]!.surfaceOp).toEqual({ op: 'replace', start: first!.seq, end: first!.seq });
    expect(resultText(replaces[0]!)).toContain('[duplicate read output removed');
    expect(harness.session.surface.has(second!.seq)).toBe(true);
    expect(harness.session.surface.has(first!.seq)).toBe(false);
    // The metering event is directly before and prices exactly the shadowed result.
    const prune = harness.session.events[replaces[0]!.seq - 1]!;
    expect(prune.type).toBe('compaction/prune');
    expect(prune.data).toEqual({
      shadowedRange: { start: first!.seq, end: first!.seq },
      shadowedSeqs: [first!.seq],
      shadowedTokenCount: harness.session.meter.estimateOf(first!.seq),
    });
    await turn(harness, 'five');
    expect(dedupReplaces(harness)).toHaveLength(1);
    expectHealthyLog(harness);
  });
});

describe('§18 item 38: dedup of an errored result keeps every data field', () => {
  it('copies error, turn and step, changes only the first block content, and the host accepts it', async () => {
    const harness = createDcpHarness({
      tools: [scriptedTool('stat', ['error', 'error'])],
      script: [...toolTurn('stat', { path: 'a.txt' }), ...toolTurn('stat', { path: 'a.txt' }), { text: 'three' }],
    });
    for (const text of ['one', 'two', 'three']) await turn(harness, text);
    const [first] = appendedResults(harness);
    const [replace] = dedupReplaces(harness);
    expect(replace).toBeDefined();
    const original = first!.data as Record<string, unknown> & { message: Message };
    const replaced = replace!.data as Record<string, unknown> & { message: Message };
    // A thrown tool error logs no `error` field (dsh, HOST.md §7.2); the replacement keeps exactly the original's fields.
    expect(original['error']).toBeUndefined();
    expect(replaced['error']).toBeUndefined();
    expect(Object.keys(replaced)).toEqual(Object.keys(original));
    expect({ ...replaced, message: null }).toEqual({ ...original, message: null });
    const block = replaced.message.content[0] as unknown as Record<string, unknown>;
    const originalBlock = original.message.content[0] as unknown as Record<string, unknown>;
    expect(block['content']).toEqual([{ type: 'text', text: '[duplicate stat output removed; a newer identical call supersedes it]' }]);
    expect({ ...block, content: null }).toEqual({ ...originalBlock, content: null });
    expect(replaced.message.id).toBe(original.message.id);
    expectHealthyLog(harness);
  });
});

describe('§18 item 39: canonical keys', () => {
  it.each([
    [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ],
    [{ a: null }, {}],
  ])('%j groups with %j', async (older, newer) => {
    const harness = createDcpHarness({
      tools: [readTool],
      script: [...toolTurn('read', { path: 'k.txt', ...older }), ...toolTurn('read', { path: 'k.txt', ...newer }), { text: 'three' }],
    });
    for (const text of ['one', 'two', 'three']) await turn(harness, text);
    expect(dedupReplaces(harness).map((event) => event.surfaceOp)).toEqual([
      { op: 'replace', start: appendedResults(harness)[0]!.seq, end: appendedResults(harness)[0]!.seq },
    ]);
    expectHealthyLog(harness);
  });

  it('different arguments do not group', async () => {
    const harness = createDcpHarness({
      tools: [readTool],
      script: [...toolTurn('read', { path: 'a.txt' }), ...toolTurn('read', { path: 'b.txt' }), { text: 'three' }],
    });
    for (const text of ['one', 'two', 'three']) await turn(harness, text);
    expect(dedupReplaces(harness)).toEqual([]);
  });
});

describe('§18 item 40: the keeper may sit in the retention window', () => {
  it('reads in turns 1 and 4 with retainRecentTurns=2: the first step of turn 5 prunes the turn-1 read', async () => {
    const harness = createDcpHarness({
      dcp: { compress: { retainRecentTurns: 2 } },
      tools: [readTool],
      script: [
        ...toolTurn('read', { path: 'a.txt' }),
        { text: 'two' },
        { text: 'three' },
        ...toolTurn('read', { path: 'a.txt' }),
        { text: 'five' },
      ],
    });
    for (const text of ['one', 'two', 'three', 'four']) await turn(harness, text);
    expect(dedupReplaces(harness)).toEqual([]);
    await turn(harness, 'five');
    const [first] = appendedResults(harness);
    const [replace] = dedupReplaces(harness);
    expect(replace?.surfaceOp).toEqual({ op: 'replace', start: first!.seq, end: first!.seq });
    // The prune pair lies before the marker of turn 5, step 1.
    const turnStart = harness.session.events.findIndex(
      (event) => event.type === 'turn/start' && (event.data as { turn: number }).turn === 5,
    );
    expect(replace!.seq).toBeGreaterThan(turnStart);
    expectHealthyLog(harness);
  });
});

describe('§18 item 41: outcome rule', () => {
  it('ok then error: nothing is pruned', async () => {
    const harness = createDcpHarness({
      tools: [scriptedTool('stat', ['ok', 'error'])],
      script: [...toolTurn('stat', { path: 'a' }), ...toolTurn('stat', { path: 'a' }), { text: 'three' }, { text: 'four' }],
    });
    for (const text of ['one', 'two', 'three', 'four']) await turn(harness, text);
    expect(dedupReplaces(harness)).toEqual([]);
  });

  it('error then ok: the error is pruned', async () => {
    const harness = createDcpHarness({
      tools: [scriptedTool('stat', ['error', 'ok'])],
      script: [...toolTurn('stat', { path: 'a' }), ...toolTurn('stat', { path: 'a' }), { text: 'three' }],
    });
    for (const text of ['one', 'two', 'three']) await turn(harness, text);
    const [first] = appendedResults(harness);
    expect(dedupReplaces(harness).map((event) => event.surfaceOp)).toEqual([{ op: 'replace', start: first!.seq, end: first!.seq }]);
    expectHealthyLog(harness);
  });
});

/** The model says something long and calls the failing `fetch` once. */
const FAILING_CALL: ScriptedReply = {
  text: `Let me fetch it now. ${'narrative '.repeat(30)}`,
  toolCalls: [{ name: 'fetch', args: { url: 'u' } }],
};

/** Turn 1: the model says something long and calls a failing tool; turn 2 is plain. */
async function failingUnit(dcp: Record<string, unknown>) {
  const harness = createDcpHarness({
    dcp,
    tools: [scriptedTool('fetch', ['error'])],
    script: [FAILING_CALL, { text: 'failed' }, { text: 'two' }],
  });
  for (const text of ['one', 'two']) await turn(harness, text);
  return harness;
}

describe('§18 item 42: purge-errors', () => {
  it('enabled with turns=1: the errored single-call unit becomes a purge checkpoint and the narrative is gone', async () => {
    const harness = await failingUnit({ strategies: { purgeErrors: { enabled: true, turns: 1 } } });
    const checkpoints = harness.session.events.filter((event) => event.type === 'user/message' && typeof event.surfaceOp === 'object');
    expect(checkpoints).toHaveLength(1);
    const checkpoint = checkpoints[0]!;
    const text = messageText(checkpoint.data as Message);
    expect(text).toBe(`[errored tool unit removed]\ntool: fetch\nerror: Error: fetch failed: file was not observed ${'e'.repeat(40)}`);
    expect((checkpoint.data as Message).source).toEqual({ kind: 'plugin', plugin: 'dsh-dcp' });
    const assistant = harness.session.events.find((event) => event.type === 'assistant/message')!;
    const result = appendedResults(harness)[0]!;
    expect(checkpoint.surfaceOp).toEqual({ op: 'replace', start: assistant.seq, end: result.seq });
    expect(checkpoint.sourceEventSeqs).toEqual([assistant.seq, result.seq]);
    const prune = harness.session.events[checkpoint.seq - 1]!;
    expect(prune.data).toEqual({
      shadowedRange: { start: assistant.seq, end: result.seq },
      shadowedSeqs: [assistant.seq, result.seq],
      shadowedTokenCount: harness.session.meter.estimateOf(assistant.seq)! + harness.session.meter.estimateOf(result.seq)!,
    });
    expect(harness.session.deriveMessages().map(messageText).join('\n')).not.toContain('Let me fetch it now.');
    expect(harness.index().replaceClass(checkpoint.seq)).toBe('dcp-purge');
    expectHealthyLog(harness);
  });

  it('the default configuration purges nothing', async () => {
    const harness = await failingUnit({});
    expect(harness.session.events.filter((event) => typeof event.surfaceOp === 'object')).toEqual([]);
  });

  it('a unit younger than the purge age is kept', async () => {
    const harness = await failingUnit({ strategies: { purgeErrors: { enabled: true, turns: 2 } } });
    expect(harness.session.events.filter((event) => typeof event.surfaceOp === 'object')).toEqual([]);
  });

  /** Turn 1 of {@link failingUnit} with purge off, so the unit is still on the surface: the events to seed with. */
  async function unpurgedTurnOne(): Promise<SessionEvent[]> {
    const harness = createDcpHarness({ tools: [scriptedTool('fetch', ['error'])], script: [FAILING_CALL, { text: 'failed' }] });
    await turn(harness, 'one');
    expect(harness.session.events.filter((event) => typeof event.surfaceOp === 'object')).toEqual([]);
    return structuredClone(harness.session.events) as SessionEvent[];
  }

  /**
   * `events` with a surface-appended user message inserted at `at`: every later event's `seq` and every
   * `sourceEventSeqs` entry that points at or past `at` move up by one (the only seq references a turn of this
   * shape holds, checked below), so the seed stays dense and self-consistent.
   */
  function withUserMessageAt(events: readonly SessionEvent[], at: number, text: string): SessionEvent[] {
    const shift = (seq: number): number => (seq >= at ? seq + 1 : seq);
    const moved = events.map((event) => {
      const copy: Record<string, unknown> = { ...event, seq: shift(event.seq) };
      if (event.sourceEventSeqs !== undefined) copy['sourceEventSeqs'] = event.sourceEventSeqs.map(shift);
      return copy as unknown as SessionEvent;
    });
    const inserted = {
      type: 'user/message',
      seq: at,
      time: events[at - 1]!.time,
      data: userMessage(text),
      surfaceOp: 'append',
    } as unknown as SessionEvent;
    return [...moved.slice(0, at), inserted, ...moved.slice(at)];
  }

  /** Seeds a purge-enabled (`turns=1`) DCP harness with `seed` and runs turn 2. */
  async function nextTurnOver(seed: readonly SessionEvent[]): Promise<DcpHarness> {
    const harness = createDcpHarness({
      seed,
      dcp: { strategies: { purgeErrors: { enabled: true, turns: 1 } } },
      tools: [scriptedTool('fetch', [])],
      script: [{ text: 'two' }],
    });
    await turn(harness, 'two');
    expect(harness.errors).toEqual([]);
    return harness;
  }

  it('a unit with a steering message between call and result is not purged (control: the same unit without it is)', async () => {
    const events = await unpurgedTurnOne();
    // The only seq references in this log are `sourceEventSeqs`, so renumbering `seq` and those keeps it consistent.
    const referenceKeys = new Set<string>();
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value !== null && typeof value === 'object')
        for (const [key, inner] of Object.entries(value)) {
          if (/seq/i.test(key)) referenceKeys.add(key);
          collect(inner);
        }
    };
    for (const { seq: _own, ...rest } of events) collect(rest);
    expect([...referenceKeys]).toEqual(['sourceEventSeqs']);
    const assistant = events.find(
      (event) =>
        event.type === 'assistant/message' &&
        (event.data as { message: Message }).message.content.some(
          (block) => block.type === 'tool-call' && (block as { name?: string }).name === 'fetch',
        ),
    )!;
    // The host renders a throwing tool as `Error: <message>` (dsh; HOST.md §7.2).
    const errorText = `Error: fetch failed: file was not observed ${'e'.repeat(40)}`;

    // Control: the unchanged turn-1 log, seeded the same way, is purged at step 1 of turn 2.
    const control = await nextTurnOver(events);
    const controlResult = control.session.events.find((event) => event.type === 'tool/result' && event.surfaceOp === 'append')!;
    const purges = control.session.events.filter((event) => typeof event.surfaceOp === 'object');
    expect(purges.map((event) => [event.type, event.surfaceOp])).toEqual([
      ['user/message', { op: 'replace', start: assistant.seq, end: controlResult.seq }],
    ]);
    expect(messageText(purges[0]!.data as Message)).toBe(`[errored tool unit removed]\ntool: fetch\nerror: ${errorText}`);
    expect(control.session.deriveMessages().map(messageText).join('\n')).not.toContain('Let me fetch it now.');
    expectHealthyLog(control);

    // The steering message sits on the surface between the assistant's call and its result.
    const steer = 'steer: look at b.txt instead';
    const seeded = await nextTurnOver(withUserMessageAt(events, assistant.seq + 1, steer));
    const { session } = seeded;
    const result = session.events.find((event) => event.type === 'tool/result' && event.surfaceOp === 'append')!;
    expect(result.seq).toBe(controlResult.seq + 1);
    expect(session.surface.positionOf(result.seq)).toBe(session.surface.positionOf(assistant.seq) + 2);
    expect(session.events[assistant.seq + 1]!.type).toBe('user/message');
    expect(messageText(session.events[assistant.seq + 1]!.data as Message)).toBe(steer);
    expect(session.events.filter((event) => typeof event.surfaceOp === 'object')).toEqual([]);
    expect(session.events.filter((event) => event.type === 'compaction/prune')).toEqual([]);
    const derived = session.deriveMessages();
    const texts = derived.map(messageText).join('\n');
    expect(texts).toContain('Let me fetch it now.');
    expect(texts).toContain(steer);
    const errored = derived.flatMap((message) => message.content).find((block) => block.type === 'tool-result') as unknown as {
      content: Array<{ text: string }>;
      isError: boolean;
    };
    expect(errored).toMatchObject({ isError: true, content: [{ type: 'text', text: errorText }] });
    expectHealthyLog(seeded);
  });
});

describe('§18 item 43: a purge checkpoint is not native', () => {
  it('creates no pending alias and does not absorb anything', async () => {
    const harness = await failingUnit({ strategies: { purgeErrors: { enabled: true, turns: 1 } } });
    expect(harness.index().pendingAliasCount).toBe(0);
    expect(harness.index().blocks()).toEqual([]);
  });
});

describe('§18 item 45: strategies.runAt', () => {
  /** Turn 1 reads a.txt; turn 2 reads it again at step 1 and answers at step 2; turn 3 is plain. */
  async function runAtScenario(runAt: string) {
    const harness = createDcpHarness({
      dcp: { strategies: { runAt } },
      tools: [readTool],
      script: [...toolTurn('read', { path: 'a.txt' }), ...toolTurn('read', { path: 'a.txt' }), { text: 'three' }],
    });
    await turn(harness, 'one');
    await turn(harness, 'two');
    const afterTurn2 = dedupReplaces(harness).length;
    await turn(harness, 'three');
    return { harness, afterTurn2, afterTurn3: dedupReplaces(harness).length };
  }

  it("'turn-start' prunes only at the first step (turn 3), not at step 2 of turn 2", async () => {
    const { harness, afterTurn2, afterTurn3 } = await runAtScenario('turn-start');
    expect([afterTurn2, afterTurn3]).toEqual([0, 1]);
    expectHealthyLog(harness);
  });

  it("'every-step' already prunes at step 1 of turn 2", async () => {
    const { harness, afterTurn2, afterTurn3 } = await runAtScenario('every-step');
    expect([afterTurn2, afterTurn3]).toEqual([1, 1]);
    const replace = dedupReplaces(harness)[0]!;
    const stepStarts = harness.session.events.filter((event) => event.type === 'step/start' && event.seq < replace.seq);
    // The pre-step of a step runs after its `step/start`: the batch sits in step 1 of turn 2.
    expect(stepStarts.at(-1)!.data as { turn: number; step: number }).toMatchObject({ turn: 2, step: 1 });
    expectHealthyLog(harness);
  });

  it("'with-compress' never prunes in the pre-step, only right after a compress commit", async () => {
    const harness = createDcpHarness({
      dcp: { strategies: { runAt: 'with-compress' } },
      tools: [readTool],
      script: [
        { text: `one ${'x'.repeat(300)}` },
        { text: `two ${'y'.repeat(300)}` },
        ...toolTurn('read', { path: 'a.txt' }),
        ...toolTurn('read', { path: 'a.txt' }),
        { text: 'five' },
        compressReply([range('m0001', 'm0003')]),
        { text: 'compressed' },
      ],
    });
    for (const text of ['one', 'two', 'three', 'four', 'five']) await turn(harness, `${text} ${'u'.repeat(200)}`);
    expect(dedupReplaces(harness)).toEqual([]);
    await turn(harness, 'compress now');
    const replaces = dedupReplaces(harness);
    expect(replaces).toHaveLength(1);
    const end = harness.session.events.find((event) => event.type === 'compaction/end')!;
    expect(replaces[0]!.seq).toBeGreaterThan(end.seq);
    expectHealthyLog(harness);
  });
});

describe('§18 item 46: one batch, one invalidation', () => {
  it('two duplicates and one purge unit are written in ascending position with exactly one invalidation record', async () => {
    const harness = createDcpHarness({
      dcp: { strategies: { purgeErrors: { enabled: true, turns: 1 } } },
      tools: [readTool, scriptedTool('fetch', ['error'])],
      script: [
        call('read', { path: 'a.txt' }),
        call('read', { path: 'b.txt' }),
        { text: 'one' },
        { text: `fetching ${'n '.repeat(60)}`, toolCalls: [{ name: 'fetch', args: { url: 'u' } }] },
        call('read', { path: 'a.txt' }),
        call('read', { path: 'b.txt' }),
        { text: 'two' },
        { text: 'three' },
      ],
    });
    await turn(harness, 'one');
    await turn(harness, 'two');
    const before = harness.index().invalidations.count;
    const firstNew = harness.session.events.length;
    await turn(harness, 'three');
    const written = harness.session.events.slice(firstNew).filter((event) => typeof event.surfaceOp === 'object');
    expect(written.map((event) => event.type)).toEqual(['tool/result', 'tool/result', 'user/message']);
    // Consecutive pairs: nothing else between the units.
    const firstPrune = written[0]!.seq - 1;
    expect(harness.session.events.slice(firstPrune, written[2]!.seq + 1).map((event) => event.type)).toEqual([
      'compaction/prune',
      'tool/result',
      'compaction/prune',
      'tool/result',
      'compaction/prune',
      'user/message',
    ]);
    const starts = written.map((event) => (event.surfaceOp as { start: number }).start);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    const invalidations = harness.index().invalidations.list();
    expect(invalidations.length).toBe(before + 1);
    const record = invalidations.at(-1)!;
    expect(record.firstSeq).toBe(written[0]!.seq);
    expect(record.cause).toBe('dcp');
    // The position of the first unit: the number of nodes before it on the surface, which no later unit moved.
    expect(record.position).toBe(harness.session.surface.positionOf(written[0]!.seq));
    expectHealthyLog(harness);
  });
});

describe('§18 item 47: busy', () => {
  it('skips while a bracket is open and runs at the next eligible pre-step', async () => {
    const busy = busyDuringPreStep(3);
    const harness = createDcpHarness({
      plugins: [busy.outer],
      pluginsAfter: [busy.inner],
      tools: [readTool],
      script: [...toolTurn('read', { path: 'a.txt' }), ...toolTurn('read', { path: 'a.txt' }), { text: 'three' }, { text: 'four' }],
    });
    await turn(harness, 'one');
    await turn(harness, 'two');
    await turn(harness, 'three');
    expect(harness.errors).toEqual([]);
    // The lock was really held during turn 3's pre-step, and nothing was pruned.
    expect(harness.session.events.some((event) => event.type === 'compaction/start' && (event.data as { turn: number }).turn === 3)).toBe(
      true,
    );
    expect(dedupReplaces(harness)).toEqual([]);
    await turn(harness, 'four');
    expect(dedupReplaces(harness)).toHaveLength(1);
    expectHealthyLog(harness);
  });
});

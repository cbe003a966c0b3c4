// DCP.md §18 items 16 (pairing), 18 (E12), 19, 20, 23–27: pairing cuts, the current-call rule, whole-call and
// per-entry texts, run_code sub-calls, approval deny, abort, the busy lock, injected host failures, result texts
// and the manual gate.
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { Agent } from '../../../../src/main/stand-in/host/agent.js';
import { createPluginContext } from '../../../../src/main/stand-in/host/plugin-context.js';
import { assertRequestMatchesColdFold } from '../../../../src/main/stand-in/host/request-invariant.js';
import { ScriptedModel } from '../../../../src/main/stand-in/host/scripted-model.js';
import type { ScriptEntry } from '../../../../src/main/stand-in/host/scripted-model.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { SessionAppendError } from '../../../../src/main/stand-in/host/session-append-error.js';
import type { ToolDefinition, ToolExecutionContext } from '../../../../src/main/stand-in/host/tool-definition.js';
import { createHostValidationLayers } from '../../../../src/main/stand-in/host/validation/default-layers.js';
import type { ValidationLayer } from '../../../../src/main/stand-in/host/validation/validation-layer.js';
import { createCompressTool, executeCompress } from '../../../../src/main/engine/dcp/compress-tool.js';
import { dcpPlugin } from '../../../../src/main/engine/dcp/dcp-plugin.js';
import { planRange } from '../../../../src/main/engine/dcp/range-plan.js';
import type { Agent as AgentType } from '../../../../src/main/stand-in/host/agent.js';
import { headerFor, newSession, waitFor } from '../../stand-in/host/host-builders.js';
import {
  compactionEvents,
  compressReply,
  compressResults,
  createDcpHarness,
  expectHealthyLog,
  expectSessionReloads,
  loggedMarkers,
  markerMessage,
  merged,
  range,
  standaloneRuntime,
  TEST_DCP_CONFIG,
  texts,
  turn,
  userMessage,
} from './dcp-harness.js';
import type { Plugin } from '../../../../src/main/host-api/host-api.js';

const PLAIN = (index: number) => `turn ${index} prompt ${'p'.repeat(300)}`;

/** A session with turn 1 closed — [m0001, user, assistant(call c1), m0002, result c1, m0003, user] — and turn 3 open. */
function sessionWithSplitPair() {
  const session = newSession();
  const runtime = standaloneRuntime();
  const index = runtime.indexFor(session);
  session.append('turn/start', { turn: 1 });
  session.append('step/start', { turn: 1, step: 1 });
  session.append('user/message', markerMessage('m0001'), { surfaceOp: 'append' });
  session.append('user/message', userMessage(`do it ${'u'.repeat(400)}`), { surfaceOp: 'append' });
  session.append(
    'assistant/message',
    {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' }],
        source: { kind: 'model', provider: 'p', model: 'm' },
        id: 'a1',
      },
    },
    { surfaceOp: 'append' },
  );
  session.append('user/message', markerMessage('m0002', 1, 1), { surfaceOp: 'append' });
  session.append(
    'tool/result',
    {
      turn: 1,
      step: 1,
      message: {
        source: { kind: 'tool', callId: 'c1' },
        content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'out' }], isError: false }],
        role: 'user',
        id: 'r1',
      },
    },
    { surfaceOp: 'append' },
  );
  session.append('user/message', markerMessage('m0003', 1, 2), { surfaceOp: 'append' });
  session.append('user/message', userMessage(`more ${'v'.repeat(400)}`), { surfaceOp: 'append' });
  session.append('step/end', { turn: 1, step: 1 });
  session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
  session.append('turn/start', { turn: 3 });
  session.append('step/start', { turn: 3, step: 1 });
  return { session, runtime, index };
}

function execFor(session: Session, callId: string, extra: Partial<ToolExecutionContext> = {}): ToolExecutionContext {
  return { callId, turn: 3, step: 1, signal: new AbortController().signal, agent: {} as AgentType, session, ...extra };
}

function thrownText(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
}

describe('§18 item 16: pairing cuts', () => {
  it('refuses a start or end cut between a call and its result, naming the nearest balanced cuts', () => {
    const { session, runtime } = sessionWithSplitPair();
    const before = session.events.length;
    expect(thrownText(() => executeCompress(runtime, { topic: 't', content: [range('m0002', 'm0003')] }, execFor(session, 'ghost')))).toBe(
      'No range was compressed.\nRange status:\n1. m0002..m0003: failed: range start m0002 cuts an open tool call/result pair; nearest valid cuts: m0001, m0003',
    );
    expect(thrownText(() => executeCompress(runtime, { topic: 't', content: [range('m0001', 'm0002')] }, execFor(session, 'ghost')))).toBe(
      'No range was compressed.\nRange status:\n1. m0001..m0002: failed: range end m0002 cuts an open tool call/result pair; nearest valid cuts: m0001, m0003',
    );
    expect(session.events.length).toBe(before);
    expectSessionReloads(session);
  });
});

describe('§18 item 18 (E12) and item 26: the current call and the author', () => {
  it('E12 refuses a range holding the author when retention is set aside', () => {
    const { session, index } = sessionWithSplitPair();
    session.append(
      'assistant/message',
      {
        turn: 3,
        step: 1,
        message: {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 'cx', name: 'compress', arguments: '{}' }],
          source: { kind: 'model', provider: 'p', model: 'm' },
          id: 'ax',
        },
      },
      { surfaceOp: 'append' },
    );
    const authorSeq = session.events.length - 1;
    session.append(
      'tool/result',
      {
        turn: 3,
        step: 1,
        message: {
          source: { kind: 'tool', callId: 'cx' },
          content: [{ type: 'tool-result', toolCallId: 'cx', content: [{ type: 'text', text: 'x' }], isError: false }],
          role: 'user',
          id: 'rx',
        },
      },
      { surfaceOp: 'append' },
    );
    session.append('user/message', markerMessage('m0004', 3, 1), { surfaceOp: 'append' });
    const context = {
      index,
      session,
      hintCount: 3,
      events: session.events,
      estimateOf: (seq: number) => session.meter.estimateOf(seq),
      currentTurn: Number.MAX_SAFE_INTEGER,
      retainRecentTurns: 1,
      minNetSavingsTokens: 1,
      appendix: {
        protectUserMessages: false,
        protectTags: true,
        protectedSources: [],
        protectedTools: [],
        matchesProtectedFile: () => false,
      },
      authorSeq,
      topic: 't',
      authorMessageId: 'ax',
      callId: 'cx',
    };
    const entry = { startRef: 'm0003', endRef: 'm0004', givenStartRef: 'm0003', givenEndRef: 'm0004', label: 'm0003..m0004', summary: 's' };
    expect(planRange(context, entry, 'b1')).toEqual({
      ok: false,
      error: 'range includes the current compress call; choose an earlier endRef',
    });
  });

  it('commits without a known author: authorMessageId unknown and a cleanup warning, without the clarity sentence', () => {
    const { session, runtime, index } = sessionWithSplitPair();
    const text = executeCompress(
      runtime,
      { topic: 't', content: [range('m0003', 'm0003x'), range('m0001', 'm0003', 'Short.')] },
      execFor(session, 'ghost'),
    );
    expect(text).toMatch(
      /^Compressed 5 message\(s\) into b1\.\nRange status:\n1\. m0003\.\.m0003x: failed: endRef m0003x is not an active boundary \(not a boundary ref\); nearest valid cuts: m0001, m0003\n2\. m0001\.\.m0003: committed as b1 \(5 message\(s\), ~\d+ tokens saved\)\n\(cleanup warning: author assistant message not found for inline cleanup\)$/,
    );
    expect(index.block('b1')!.meta.authorMessageId).toBe('unknown');
    expect(session.events.filter((event) => event.type === 'compaction/prune')).toEqual([]);
    expectSessionReloads(session);
  });
});

describe('§18 item 19: whole-call and per-entry texts', () => {
  it('gives the §7.4 whole-call texts as error results', async () => {
    const reply = {
      toolCalls: [
        { name: 'compress', args: { topic: '   ', content: [range('m0001', 'm0002')] } },
        { name: 'compress', args: { topic: 't'.repeat(201), content: [range('m0001', 'm0002')] } },
        { name: 'compress', args: { topic: 'x', content: [] } },
        { name: 'compress', args: { topic: 'x', content: [1, 2, 3, 4] } },
        { name: 'compress', args: { topic: '', content: 'nope' } },
        { name: 'compress', args: [1] },
      ],
    };
    const harness = createDcpHarness({ script: [...texts(1), reply, { text: 'ok' }] });
    await turn(harness, PLAIN(1));
    await turn(harness, 'bad calls');
    expect(compressResults(harness.session).map((result) => [result.isError, result.text])).toEqual([
      [true, 'Error: topic must be a non-empty string'],
      [true, 'Error: topic must be at most 200 characters'],
      [true, 'Error: content must be a non-empty array'],
      [true, 'Error: content accepts at most 3 range(s)'],
      [true, 'Error: topic must be a non-empty string\ncontent must be a non-empty array'],
      [true, 'Error: compress arguments must be an object'],
    ]);
    expect(compactionEvents(harness.session)).toEqual([]);
    expectHealthyLog(harness);
  });

  it('gives the §7.5 per-entry texts while another entry still commits', async () => {
    const content = [
      42,
      { startRef: '', endRef: 'm0002', summary: 'x' },
      { startRef: 'm0001', endRef: 'm0002', summary: '  ' },
      { startRef: 'm0001', endRef: 'm0002', summary: 'y'.repeat(8001) },
      range('m0001', 'm0003', 'Turns one and two.'),
    ];
    const harness = createDcpHarness({
      dcp: { compress: { maxRangesPerCall: 5 } },
      script: [...texts(3), compressReply(content), { text: 'ok' }],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'compress');
    const [result] = compressResults(harness.session);
    expect(result!.isError).toBe(false);
    expect(result!.text.split('\n').slice(1)).toEqual([
      'Range status:',
      '1. ?..?: failed: content[0] must be an object',
      '2. ..m0002: failed: content[1].startRef must be a non-empty string (<= 32 chars)',
      '3. m0001..m0002: failed: content[2].summary must be a non-empty string',
      '4. m0001..m0002: failed: content[3].summary must be at most 8000 characters',
      expect.stringMatching(/^5\. m0001\.\.m0003: committed as b1 \(6 message\(s\), ~\d+ tokens saved\)$/) as string,
    ]);
    expectHealthyLog(harness);
  });
});

describe('§18 item 20: summary rules through the tool', () => {
  it('fails E5, E6 and E7 with their texts', async () => {
    const content = [
      range('m0001', 'm0002', '[b3] foo'),
      range('m0001', 'm0002', '[stored in b1]'),
      range('m0001', 'm0002', 'see [stored in b2]'),
      range('m0001', 'm0002', 'has <dcp-message-id>b1</dcp-message-id> inside'),
    ];
    const harness = createDcpHarness({
      dcp: { compress: { maxRangesPerCall: 4 } },
      script: [...texts(2), compressReply(content), { text: 'ok' }],
    });
    for (let index = 1; index <= 2; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'compress');
    expect(compressResults(harness.session)[0]!.text).toBe(
      [
        'Error: No range was compressed.',
        'Range status:',
        '1. m0001..m0002: failed: content[0].summary must not start with a block ref such as [b1]; write the summary as plain prose',
        '2. m0001..m0002: failed: content[1].summary must contain the actual technical content, not a [stored in bN] placeholder',
        '3. m0001..m0002: failed: content[2].summary must contain the actual technical content, not a [stored in bN] placeholder',
        '4. m0001..m0002: failed: content[3].summary must not contain <dcp-message-id> or <dcp-prior> tags',
      ].join('\n'),
    );
    expectHealthyLog(harness);
  });
});

describe('§18 item 23: sub-calls, approval deny, abort', () => {
  it('refuses a run_code sub-call before reading anything, and writes nothing', () => {
    const { session, runtime } = sessionWithSplitPair();
    const before = session.events.length;
    expect(
      thrownText(() =>
        executeCompress(
          runtime,
          { topic: 't', content: [range('m0001', 'm0003')] },
          execFor(session, 'c', { parent: { callId: 'outer' } }),
        ),
      ),
    ).toBe('compress cannot be executed from a run_code sub-call; use native tool presentation or /dcp compress');
    expect(thrownText(() => executeCompress(runtime, {}, execFor(session, 'c', { agent: undefined as unknown as AgentType })))).toBe(
      'compress requires an agent session',
    );
    expect(session.events.length).toBe(before);
  });

  it('approval deny gives an error result, and no DCP event or block', async () => {
    const deny: Plugin = { name: 'deny', apply: (context) => context.on('tool/approve', () => ({ kind: 'deny', reason: 'not now' })) };
    const harness = createDcpHarness({ plugins: [deny], script: [...texts(2), compressReply([range('m0001', 'm0002')]), { text: 'ok' }] });
    for (let index = 1; index <= 2; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'compress');
    expect(compressResults(harness.session).map((result) => [result.isError, result.text])).toEqual([[true, 'Tool call denied: not now']]);
    expect(compactionEvents(harness.session)).toEqual([]);
    expect(harness.index().blocks()).toEqual([]);
    expectHealthyLog(harness);
  });

  it('an abort during a hanging model call ends the turn aborted with no DCP event', async () => {
    const harness = createDcpHarness({ script: [...texts(1), { hang: true }] });
    await turn(harness, PLAIN(1));
    harness.prompt('hang');
    await waitFor(() => harness.model.dispatchCount === 2, 'the hanging dispatch');
    harness.agent.abort();
    await harness.runUntilIdle();
    expect(harness.session.events.at(-1)!.data).toEqual({ turn: 2, reason: { kind: 'aborted', reason: { kind: 'user' } } });
    expect(compactionEvents(harness.session)).toEqual([]);
    expectHealthyLog(harness);
  });
});

/** Tools that open and close a native bracket around a compress call, as another writer would. */
function nativeBracketTools(withSummary: boolean): ToolDefinition[] {
  return [
    {
      name: 'native_start',
      description: 'open a native bracket',
      parameters: { type: 'object' },
      execute: (_args, exec) => {
        exec.session!.append('compaction/start', { compactionId: 'native-live', turn: exec.turn });
        if (withSummary) {
          const seq = exec.session!.surface.at(0)!;
          exec.session!.append('compaction/summary', {
            compactionId: 'native-live',
            summary: [{ type: 'text', text: 's' }],
            shadowedRange: { start: seq, end: seq },
            shadowedSeqs: [seq],
            shadowedTokenCount: exec.session!.meter.estimateOf(seq)!,
            provider: 'p',
            model: 'm',
          });
        }
        return 'started';
      },
    },
    {
      name: 'native_end',
      description: 'close the native bracket as failed',
      parameters: { type: 'object' },
      execute: (_args, exec) => {
        exec.session!.append('compaction/end', { compactionId: 'native-live', turn: exec.turn, error: { message: 'abandoned' } });
        return 'ended';
      },
    },
  ];
}

describe('§18 item 24: the busy lock', () => {
  for (const withSummary of [false, true]) {
    it(`fails every entry busy while a native bracket is open${withSummary ? ' with a summary' : ''}, writing nothing`, async () => {
      const reply = {
        toolCalls: [
          { name: 'native_start', args: {} },
          { name: 'compress', args: { topic: 't', content: [range('m0001', 'm0002'), range('m0002', 'm0003')] } },
          { name: 'native_end', args: {} },
        ],
      };
      const harness = createDcpHarness({ tools: nativeBracketTools(withSummary), script: [...texts(3), reply, { text: 'ok' }] });
      for (let index = 1; index <= 3; index++) await turn(harness, PLAIN(index));
      await turn(harness, 'compress while busy');
      expect(compressResults(harness.session)[0]).toMatchObject({
        isError: true,
        text: [
          'Error: No range was compressed.',
          'Range status:',
          '1. m0001..m0002: failed: compaction is busy: an unclosed bracket holds the session lock',
          '2. m0002..m0003: failed: compaction is busy: an unclosed bracket holds the session lock',
        ].join('\n'),
      });
      expect(compactionEvents(harness.session).map((event) => (event.data as { compactionId?: string }).compactionId)).toEqual(
        withSummary ? ['native-live', 'native-live', 'native-live'] : ['native-live', 'native-live'],
      );
      expect(harness.index().blocks()).toEqual([]);
      expectHealthyLog(harness);
    });
  }

  it('is not busy after session/end-seed made an orphan start stale', async () => {
    const first = createDcpHarness({ script: texts(3) });
    for (let index = 1; index <= 3; index++) await turn(first, PLAIN(index));
    first.session.append('compaction/start', { compactionId: 'orphan', turn: null });
    const harness = createDcpHarness({
      seed: [...first.session.events],
      script: [compressReply([range('m0001', 'm0003', 'Two turns.')]), { text: 'ok' }],
    });
    expect(harness.session.openBrackets()).toEqual([]);
    expect(harness.index().classifyLastBracket()).toMatchObject({ class: 'stale-orphan-start', busy: false });
    await turn(harness, 'compress');
    expect(compressResults(harness.session)[0]!.text).toMatch(/\n1\. m0001\.\.m0003: committed as b1 /);
    expectHealthyLog(harness);
  });
});

/** The harness of HOST.md §12 assembled by hand, with one extra validation layer that refuses on demand. */
function harnessWithInjector(script: ScriptEntry[], refuse: (type: string, data: unknown, surfaceOp: unknown) => boolean) {
  let armed = true;
  const injector: ValidationLayer = {
    name: 'test failure injector',
    check(candidate) {
      if (armed && refuse(candidate.type, candidate.data, candidate.surfaceOp))
        throw new SessionAppendError('HOST_INVALID_EVENT', 'injected failure');
    },
  };
  let now = 1_000;
  const session = Session.create('inject', {
    header: headerFor('inject'),
    now: () => now++,
    validationLayers: () => [...createHostValidationLayers(), injector],
  });
  const model = new ScriptedModel({ script });
  const agent = new Agent({ session, model, checkRequest: (request, current) => assertRequestMatchesColdFold(request, current.events) });
  const errors: unknown[] = [];
  agent.on('agent/error', (event) => errors.push(event.error));
  const plugin = dcpPlugin();
  plugin.apply(createPluginContext(agent, { config: { dcp: merged(TEST_DCP_CONFIG, {}) } }));
  return {
    session,
    agent,
    plugin,
    errors,
    disarm: () => {
      armed = false;
    },
    run: async (text: string) => {
      agent.prompt(text);
      await agent.runUntilIdle();
    },
  };
}

function isCheckpointReplace(type: string, surfaceOp: unknown): boolean {
  return type === 'user/message' && typeof surfaceOp === 'object' && surfaceOp !== null;
}

function resultTexts(session: Session): string[] {
  return session.events
    .filter((event) => event.type === 'tool/result')
    .map(
      (event) => (event.data as { message: { content: Array<{ content: Array<{ text: string }> }> } }).message.content[0]!.content[0]!.text,
    );
}

describe('§18 item 25: host failures during a commit', () => {
  it('closes the failed bracket at once, reports E15, classifies failed-attempt, and a later compress succeeds', async () => {
    const script: ScriptEntry[] = [
      ...texts(3),
      compressReply([range('m0001', 'm0003', 'Two turns.')]),
      { text: 'ok' },
      compressReply([range('m0001', 'm0003', 'Two turns.')]),
      { text: 'ok' },
    ];
    const h = harnessWithInjector(script, (type, _data, op) => isCheckpointReplace(type, op));
    for (let index = 1; index <= 3; index++) await h.run(PLAIN(index));
    await h.run('compress');
    const events = h.session.events;
    const summaryIndex = events.findIndex((event) => event.type === 'compaction/summary');
    const end = events[summaryIndex + 1]!;
    expect(end.type).toBe('compaction/end');
    expect(end.data).toEqual({
      compactionId: (events[summaryIndex]!.data as { compactionId: string }).compactionId,
      turn: 4,
      // dsh declares `compaction/end.error` a string (`@deepseek-ai/dsh-compaction`).
      error: 'injected failure',
    });
    expect(resultTexts(h.session).at(-1)).toBe(
      'Error: No range was compressed.\nRange status:\n1. m0001..m0003: failed: range m0001..m0003 could not be committed: injected failure',
    );
    const index = h.plugin.runtime!.indexFor(h.session);
    expect(index.classifyLastBracket()).toMatchObject({ class: 'failed-attempt', busy: false });
    h.disarm();
    await h.run('compress again');
    expect(resultTexts(h.session).at(-1)).toMatch(/^Compressed 6 message\(s\) into b1\. /);
    expect(index.classifyLastBracket()).toMatchObject({ class: 'committed' });
    expect(h.errors).toEqual([]);
    expect(
      JSON.stringify(Session.create('inject', { header: headerFor('inject'), seed: structuredClone(h.session.events) }).deriveMessages()),
    ).toBe(JSON.stringify(h.session.deriveMessages()));
  });

  it('stops the batch when the failed bracket cannot be closed: later entries are skipped', async () => {
    const script: ScriptEntry[] = [
      ...texts(3),
      compressReply([range('m0001', 'm0002', 'One.'), range('m0002', 'm0003', 'Two.')]),
      { text: 'ok' },
    ];
    const h = harnessWithInjector(
      script,
      (type, data, op) => isCheckpointReplace(type, op) || (type === 'compaction/end' && (data as { error?: unknown }).error !== undefined),
    );
    for (let index = 1; index <= 3; index++) await h.run(PLAIN(index));
    await h.run('compress');
    expect(resultTexts(h.session).at(-1)).toBe(
      [
        'Error: No range was compressed.',
        'Range status:',
        '1. m0001..m0002: failed: range m0001..m0002 could not be committed: injected failure',
        '2. m0002..m0003: skipped: batch stopped after a host error',
      ].join('\n'),
    );
    expect(h.session.openBrackets()).toHaveLength(1);
  });

  it('counts a range committed when only its closing end fails, and stops the batch', async () => {
    const script: ScriptEntry[] = [
      ...texts(3),
      compressReply([range('m0001', 'm0002', 'One.'), range('m0002', 'm0003', 'Two.')]),
      { text: 'ok' },
    ];
    const h = harnessWithInjector(script, (type, data) => type === 'compaction/end' && (data as { error?: unknown }).error === undefined);
    for (let index = 1; index <= 3; index++) await h.run(PLAIN(index));
    await h.run('compress');
    const text = resultTexts(h.session).at(-1)!;
    expect(text).toMatch(/^Compressed 3 message\(s\) into b1\. Full summaries/);
    expect(text).toMatch(
      /\n1\. m0001\.\.m0002: committed as b1 \(3 message\(s\), ~\d+ tokens saved\); bracket left open: injected failure\n2\. m0002\.\.m0003: skipped: batch stopped after a host error$/,
    );
    expect(h.plugin.runtime!.indexFor(h.session).classifyLastBracket()).toMatchObject({ class: 'recovered-unclosed', busy: true });
  });
});

describe('§18 item 27: the manual gate', () => {
  /** A stand-in for the `/dcp` command of the next issue: `manual on` succeeds; `compress` queues the trigger. */
  it('blocks compress in manual mode, opens it in the triggered turn only, and shows the manual line on first-pre-step markers', async () => {
    // The real `/dcp` command (DCP.md §11.2): `manual on` is replayed from its success pair, `compress` queues the trigger.
    const harness = createDcpHarness({
      script: [
        ...texts(3),
        compressReply([range('m0001', 'm0002', 'One.')]),
        { text: 'ok' },
        compressReply([range('m0001', 'm0003', 'Two.')]),
        { text: 'ok' },
        compressReply([range('m0003', 'm0004', 'Three.')]),
        { text: 'ok' },
      ],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, PLAIN(index));
    await harness.runCommand('/dcp manual on');
    expect(harness.index().manualOn).toBe(true);
    await turn(harness, 'compress please');
    expect(compressResults(harness.session)[0]).toEqual({
      isError: true,
      text: 'Error: manual mode is on: compress runs only in a turn started by /dcp compress',
      seq: expect.any(Number) as number,
    });
    const manualMarker = loggedMarkers(harness.session).find((marker) => marker.ref === 'm0004')!;
    expect(manualMarker.text).toBe(
      '<dcp-boundary ref="m0004" turn="4" step="1" />\nDCP manual mode: on. Call compress only in a turn that starts with <compress triggered manually>.',
    );
    await harness.runCommand('/dcp compress');
    await harness.runUntilIdle();
    expect(compressResults(harness.session)[1]!.text).toMatch(/\n1\. m0001\.\.m0003: committed as b1 /);
    expect(harness.index().lastTriggerTurn).toBe(5);
    await turn(harness, 'compress once more');
    expect(compressResults(harness.session)[2]!.text).toBe(
      'Error: manual mode is on: compress runs only in a turn started by /dcp compress',
    );
    expectHealthyLog(harness);
  });
});

describe('the tool is exclusive and synchronous', () => {
  it('declares no concurrencySafe and returns its result without a promise', () => {
    const { session, runtime } = sessionWithSplitPair();
    const tool = createCompressTool(runtime);
    expect(tool.concurrencySafe).toBeUndefined();
    const output = tool.execute({ topic: 't', content: [range('m0001', 'm0003', 'Short.')] }, execFor(session, 'ghost'));
    expect(typeof output).toBe('string');
    const types = session.events.slice(-4).map((event: SessionEvent) => event.type);
    expect(types).toEqual(['compaction/start', 'compaction/summary', 'user/message', 'compaction/end']);
    expectSessionReloads(session);
  });
});

// DCP.md §18 items 2–11 and 60: markers through the real loop, numbering, recognition, aliases (transitive),
// half-open resolution on surface positions with nearest-valid-cut hints, and prefix-invalidation records.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../../src/protocol/events.js';
import { MARKER_STRICT_RE } from '../../../../src/protocol/dcp/constants.js';
import { resolveRange, resolveRef } from '../../../../src/main/engine/dcp/ref-resolver.js';
import { compactRange, newSession } from '../../stand-in/host/host-builders.js';
import {
  coldIndex,
  compactionEvents,
  compressReply,
  compressResults,
  createDcpHarness,
  expectHealthyLog,
  filler,
  loggedMarkers,
  markerMessage,
  range,
  standaloneRuntime,
  texts,
  turn,
  userMessage,
} from './dcp-harness.js';
import type { Plugin } from '../../../../src/main/host-api/host-api.js';

describe('§18 item 2: half-open ranges on surface positions', () => {
  it('[m0001, m0002) over the surface [10, 20, 30, 40] shadows [10, 20]', () => {
    const session = newSession();
    const runtime = standaloneRuntime();
    const index = runtime.indexFor(session);
    const at = (seq: number, append: () => void): void => {
      while (session.events.length < seq) filler(session);
      append();
    };
    at(10, () => session.append('user/message', markerMessage('m0001'), { surfaceOp: 'append' }));
    at(20, () => session.append('user/message', userMessage('twenty'), { surfaceOp: 'append' }));
    at(30, () => session.append('user/message', markerMessage('m0002'), { surfaceOp: 'append' }));
    at(40, () => session.append('user/message', userMessage('forty'), { surfaceOp: 'append' }));
    expect(session.surface.slice(0, 4)).toEqual([10, 20, 30, 40]);
    expect(resolveRange({ index, session, hintCount: 3 }, 'm0001', 'm0002')).toEqual({
      ok: true,
      startPos: 0,
      endPos: 2,
      startSeq: 10,
      endSeq: 30,
      shadowed: [10, 20],
    });
  });
});

describe('§18 item 3: non-monotonic surface', () => {
  it('[b1, m0004) resolves by position although b1 has the larger seq, and a nesting range starting at b1 commits', async () => {
    const harness = createDcpHarness({
      script: [
        ...texts(4),
        compressReply([range('m0001', 'm0003', 'Turns one and two.')]),
        { text: 'ok' },
        compressReply([range('b1', 'm0004', 'Turn three and the earlier block.')]),
        { text: 'ok' },
      ],
    });
    for (let index = 1; index <= 4; index++) await turn(harness, `turn ${index} text ${'z'.repeat(300)}`);
    await turn(harness, 'compress turns one and two');
    const index = harness.index();
    const b1 = index.block('b1')!;
    const m0004 = index.marker('m0004')!;
    expect(b1.seq).toBeGreaterThan(m0004.seq);
    const resolved = resolveRange({ index, session: harness.session, hintCount: 3 }, 'b1', 'm0004');
    expect(resolved.ok).toBe(true);
    if (resolved.ok) expect(resolved.shadowed).toEqual([b1.seq, ...harness.session.surface.slice(1, resolved.endPos)]);
    expect(resolved.ok && resolved.shadowed.length).toBe(4);
    await turn(harness, 'compress the block with turn three');
    const results = compressResults(harness.session);
    expect(results.map((result) => result.isError)).toEqual([false, false]);
    expect(results[1]!.text).toMatch(/\n1\. b1\.\.m0004: committed as b2 \(4 message\(s\), /);
    expect(index.block('b1')).toMatchObject({ membership: 'consumed', successor: 'b2' });
    expectHealthyLog(harness);
  });

  it('a range holding only b1 resolves to [b1] and is refused only by net savings, because b2 carries b1 verbatim', async () => {
    const harness = createDcpHarness({
      script: [
        ...texts(3),
        compressReply([range('m0001', 'm0003', 'Turns one and two.')]),
        { text: 'ok' },
        compressReply([range('b1', 'm0003', 'Again.')]),
        { text: 'ok' },
      ],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, `turn ${index} ${'q'.repeat(200)}`);
    await turn(harness, 'compress');
    const index = harness.index();
    const resolved = resolveRange({ index, session: harness.session, hintCount: 3 }, 'b1', 'm0003');
    expect(resolved.ok && resolved.shadowed).toEqual([index.block('b1')!.seq]);
    await turn(harness, 'compress again');
    expect(compressResults(harness.session)[1]!.text).toMatch(
      /^Error: No range was compressed\.\nRange status:\n1\. b1\.\.m0003: failed: range b1\.\.m0003 saves ~-\d+ tokens, below minNetSavingsTokens=1$/,
    );
    expectHealthyLog(harness);
  });
});

describe('§18 item 4: failed refs carry reasons and nearest valid cuts', () => {
  it('gives the §5.3 texts for a natively shadowed ref without alias, an unknown ref and a reversed pair, and writes nothing', async () => {
    const harness = createDcpHarness({
      dcp: { references: { maxAliasEntries: 0 } },
      script: [...texts(3), compressReply([range('m0001', 'm0003'), range('m9999', 'm0002'), range('m0003', 'm0002')]), { text: 'ok' }],
    });
    await turn(harness, `turn one ${'a'.repeat(200)}`);
    const [m0001] = loggedMarkers(harness.session);
    compactRange(harness.session, 'native-1', m0001!.seq, m0001!.seq + 1, 'native summary of turn one');
    await turn(harness, `turn two ${'b'.repeat(200)}`);
    await turn(harness, `turn three ${'c'.repeat(200)}`);
    const before = harness.session.events.length;
    await turn(harness, 'compress');
    const [result] = compressResults(harness.session);
    expect(result!.isError).toBe(true);
    expect(result!.text).toBe(
      [
        'Error: No range was compressed.',
        'Range status:',
        '1. m0001..m0003: failed: startRef m0001 is not an active boundary (shadowed by compaction); nearest valid cuts: m0002, m0003, m0004',
        '2. m9999..m0002: failed: startRef m9999 is not an active boundary (unknown ref); nearest valid cuts: m0002, m0003, m0004',
        '3. m0003..m0002: failed: startRef m0003 must appear before endRef m0002; nearest valid cuts: m0002, m0003, m0004',
      ].join('\n'),
    );
    expect(compactionEvents(harness.session).filter((event) => event.seq >= before)).toEqual([]);
    expectHealthyLog(harness);
  });

  it('names only pairing-balanced refs: a marker between a call and its result is no valid cut, and a cut there fails E10', () => {
    const session = newSession();
    const runtime = standaloneRuntime();
    const index = runtime.indexFor(session);
    session.append('turn/start', { turn: 1 });
    session.append('step/start', { turn: 1, step: 1 });
    session.append('user/message', markerMessage('m0001'), { surfaceOp: 'append' });
    session.append('user/message', userMessage('do it'), { surfaceOp: 'append' });
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
    const context = { index, session, hintCount: 3 };
    expect(resolveRef(context, 'm0002')).toMatchObject({ ok: true, pos: 3 });
    const unknown = resolveRange(context, 'm0404', 'm0003');
    expect(unknown).toEqual({
      ok: false,
      error: 'startRef m0404 is not an active boundary (unknown ref); nearest valid cuts: m0001, m0003',
    });
  });
});

describe('§18 items 5 and 6: aliases after native compaction', () => {
  async function nativeOverTurnOne(dcp: Record<string, unknown>, script: unknown[]) {
    const harness = createDcpHarness({ dcp, script: [...texts(3), ...(script as []), { text: 'ok' }] });
    await turn(harness, `turn one ${'a'.repeat(300)}`);
    const [m0001] = loggedMarkers(harness.session);
    const nativeSeq = compactRange(harness.session, 'native-1', m0001!.seq, m0001!.seq + 1, 'native summary');
    return { harness, nativeSeq };
  }

  it('emits alias m0001=s<native> in the next marker, and compress [m0001, m0003) then commits', async () => {
    const { harness, nativeSeq } = await nativeOverTurnOne({}, [compressReply([range('m0001', 'm0003', 'Turns one and two.')])]);
    await turn(harness, `turn two ${'b'.repeat(300)}`);
    const markers = loggedMarkers(harness.session);
    expect(markers[1]!.text).toBe(`<dcp-boundary ref="m0002" turn="2" step="1" />\nalias m0001=s${nativeSeq}`);
    await turn(harness, `turn three ${'c'.repeat(300)}`);
    expect(loggedMarkers(harness.session)[2]!.text).toBe('<dcp-boundary ref="m0003" turn="3" step="1" />');
    await turn(harness, 'compress');
    const [result] = compressResults(harness.session);
    expect(result!.isError).toBe(false);
    expect(result!.text).toMatch(/\n1\. m0001\.\.m0003: committed as b1 /);
    const checkpoint = harness.session.events[harness.index().block('b1')!.seq]!;
    expect((checkpoint.surfaceOp as { start: number }).start).toBe(nativeSeq);
    expect(harness.index().pendingAliasCount).toBe(0);
    expectHealthyLog(harness);
  });

  it('with maxAliasEntries = 0 writes no alias line and the ref fails closed', async () => {
    const { harness } = await nativeOverTurnOne({ references: { maxAliasEntries: 0 } }, [compressReply([range('m0001', 'm0003')])]);
    await turn(harness, `turn two ${'b'.repeat(300)}`);
    await turn(harness, `turn three ${'c'.repeat(300)}`);
    expect(loggedMarkers(harness.session).every((marker) => !marker.text.includes('alias'))).toBe(true);
    await turn(harness, 'compress');
    const [result] = compressResults(harness.session);
    expect(result!.isError).toBe(true);
    expect(result!.text).toContain(
      '1. m0001..m0003: failed: startRef m0001 is not an active boundary (shadowed by compaction); nearest valid cuts: ',
    );
    expectHealthyLog(harness);
  });

  it('follows aliases transitively: a second native pass over the first keeps m0001 valid without a new alias line', async () => {
    const { harness, nativeSeq } = await nativeOverTurnOne({}, []);
    await turn(harness, `turn two ${'b'.repeat(300)}`);
    const secondMarker = loggedMarkers(harness.session)[1]!;
    const secondNative = compactRange(harness.session, 'native-2', nativeSeq, secondMarker.seq + 1, 'native summary two');
    await turn(harness, `turn three ${'c'.repeat(300)}`);
    const index = harness.index();
    const context = { index, session: harness.session, hintCount: 3 };
    expect(resolveRef(context, 'm0001')).toEqual({ ok: true, pos: 0, seq: secondNative });
    // m0002 was shadowed natively too; it gets its alias now, and m0001 gets none.
    expect(loggedMarkers(harness.session)[2]!.text).toBe(`<dcp-boundary ref="m0003" turn="3" step="1" />\nalias m0002=s${secondNative}`);
    expect(index.alias('m0001')).toBe(nativeSeq);
    expectHealthyLog(harness);
  });
});

describe('§18 item 7: numbers are never reused', () => {
  it('continues m9999 with m10000, and replay recognises it', async () => {
    const seedHarness = createDcpHarness();
    seedHarness.session.append('user/message', markerMessage('m9999'), { surfaceOp: 'append' });
    const harness = createDcpHarness({ seed: [...seedHarness.session.events], script: texts(1) });
    await turn(harness, 'next');
    expect(loggedMarkers(harness.session).map((marker) => marker.ref)).toEqual(['m9999', 'm10000']);
    expect(coldIndex(harness).maxMarkerNumber).toBe(10000);
    expect(coldIndex(harness).marker('m10000')).toMatchObject({ number: 10000, turn: 1, step: 1 });
    expectHealthyLog(harness);
  });

  it('allocates b(max+1) after consumption and absorption, and continues markers after reload and fork', async () => {
    const harness = createDcpHarness({
      script: [
        ...texts(3),
        compressReply([range('m0001', 'm0002', 'One.')]),
        { text: 'ok' },
        compressReply([range('b1', 'm0003', 'Block one and turn two.')]),
        { text: 'ok' },
      ],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, `turn ${index} ${'w'.repeat(300)}`);
    await turn(harness, 'compress one');
    await turn(harness, 'compress nested');
    const index = harness.index();
    expect(index.blocks().map((block) => [block.ref, block.membership])).toEqual([
      ['b1', 'consumed'],
      ['b2', 'active'],
    ]);
    // A native pass absorbs b2; the next block number still continues from the maximum.
    compactRange(harness.session, 'native-x', index.block('b2')!.seq, index.block('b2')!.seq, 'native over b2');
    expect(index.block('b2')!.membership).toBe('absorbed-native');
    expect(index.maxBlockNumber).toBe(2);
    const maxMarker = index.maxMarkerNumber;
    const reloaded = createDcpHarness({ seed: [...harness.session.events], script: texts(1) });
    await turn(reloaded, 'after reload');
    expect(loggedMarkers(reloaded.session).at(-1)!.ref).toBe(`m${String(maxMarker + 1).padStart(4, '0')}`);
    expect(reloaded.index().maxBlockNumber).toBe(2);
    const child = harness.session.fork(harness.session.events.length);
    const forked = createDcpHarness({ seed: [...child.events], script: texts(1) });
    await turn(forked, 'after fork');
    expect(loggedMarkers(forked.session).at(-1)!.ref).toBe(`m${String(maxMarker + 1).padStart(4, '0')}`);
    expectHealthyLog(reloaded);
    expectHealthyLog(forked);
  });
});

describe('§18 items 8 and 9: when no marker is added', () => {
  it('a downstream enter([]) at the first pre-step gives no marker, no dispatch, and a completed turn', async () => {
    const emptying: Plugin = { name: 'empty', apply: (context) => context.on('agent/pre-step', () => ({ kind: 'enter', messages: [] })) };
    const harness = createDcpHarness({ pluginsAfter: [emptying] });
    await turn(harness, 'hello');
    expect(harness.model.dispatchCount).toBe(0);
    expect(loggedMarkers(harness.session)).toEqual([]);
    expect(harness.session.events.map((event) => event.type)).toEqual(['turn/start', 'turn/end']);
    expect(harness.session.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'completed' } });
  });

  it('compress.enabled = false: no compress tool in the header, no markers, the disabled guidance', async () => {
    const harness = createDcpHarness({ dcp: { compress: { enabled: false } }, script: texts(2) });
    await turn(harness, 'one');
    await turn(harness, 'two');
    const header = harness.session.latestRequestHeader()!;
    expect((header['tools'] as Array<{ name: string }>).map((tool) => tool.name)).toEqual([]);
    expect(header['system']).toContain('Compression is disabled by configuration.');
    expect(loggedMarkers(harness.session)).toEqual([]);
    expectHealthyLog(harness);
  });
});

describe('§18 item 10: quoted markers are not markers', () => {
  it('a human quoting a marker changes neither numbering nor the nudge count', async () => {
    const harness = createDcpHarness({ script: texts(3) });
    await turn(harness, 'first');
    await turn(harness, 'see <dcp-boundary ref="m0099" turn="1" step="0" />');
    await turn(harness, 'third');
    const index = harness.index();
    expect(loggedMarkers(harness.session).map((marker) => marker.ref)).toEqual(['m0001', 'm0002', 'm0003']);
    expect(index.maxMarkerNumber).toBe(3);
    expect(index.marker('m0099')).toBeUndefined();
    // No window is known, so each real marker adds one; the quote adds nothing.
    expect(index.nudgeState).toEqual({ sinceNudge: 3, armed: true });
    const quote = harness.session.events.find(
      (event) =>
        event.type === 'user/message' &&
        (event.data as Message).content.some((block) => (block as { text?: string }).text?.includes('m0099')),
    )!;
    expect(index.markerRefAt(quote.seq)).toBeUndefined();
    expectHealthyLog(harness);
  });
});

describe('§18 items 11 and 60: prefix invalidations', () => {
  it('marker-only steps record none; a compress step records one dcp record at the range start; a native compaction one native record', async () => {
    const harness = createDcpHarness({
      script: [...texts(3), compressReply([range('m0002', 'm0003', 'Turn two.')]), { text: 'ok' }, { text: 'after native' }],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, `turn ${index} ${'v'.repeat(300)}`);
    const index = harness.index();
    expect(index.invalidations.count).toBe(0);
    await turn(harness, 'compress');
    const m0002Position = 3;
    const checkpointSeq = index.block('b1')!.seq;
    expect(index.invalidations.list()).toEqual([
      { firstSeq: checkpointSeq, position: m0002Position, surfaceLengthBefore: expect.any(Number) as number, cause: 'dcp' },
    ]);
    const nativeSeq = compactRange(harness.session, 'native-9', harness.session.surface.at(0)!, harness.session.surface.at(1)!, 'native');
    await turn(harness, 'more');
    expect(index.invalidations.list().slice(1)).toEqual([
      { firstSeq: nativeSeq, position: 0, surfaceLengthBefore: expect.any(Number) as number, cause: 'native' },
    ]);
    expect(loggedMarkers(harness.session).every((marker) => MARKER_STRICT_RE.test(marker.text.split('\n')[0]!))).toBe(true);
    expectHealthyLog(harness);
  });
});

describe('§9 nudges in markers (the pure reducer, folded by the index)', () => {
  it('nudges under pressure once frequencySteps markers passed, then stays disarmed', async () => {
    const harness = createDcpHarness({ contextWindow: 1500, dcp: { nudge: { frequencySteps: 2 } }, script: texts(8) });
    for (let index = 1; index <= 8; index++) await turn(harness, `turn ${index} ${'n'.repeat(300)}`);
    const markers = loggedMarkers(harness.session);
    const nudged = markers.filter((marker) => marker.text.includes('DCP compression recommended:'));
    expect(nudged).toHaveLength(1);
    const [line] = nudged[0]!.text.split('\n').slice(1);
    expect(line).toMatch(/^DCP compression recommended: context is at \d+% of the model window\. Compress a closed range to free space\.$/);
    expect(Number(/at (\d+)%/.exec(line!)![1])).toBeGreaterThan(80);
    expect(markers.indexOf(nudged[0]!)).toBeGreaterThanOrEqual(2);
    const index = harness.index();
    expect(index.marker(nudged[0]!.ref)!.hasNudge).toBe(true);
    expect(index.nudgeState).toEqual({ sinceNudge: markers.length - 1 - markers.indexOf(nudged[0]!), armed: false });
    expectHealthyLog(harness);
  });

  it('without a window, nudges after iterationThreshold markers with the no-pressure text', async () => {
    const harness = createDcpHarness({ dcp: { nudge: { iterationThreshold: 3 } }, script: texts(5) });
    for (let index = 1; index <= 5; index++) await turn(harness, `turn ${index}`);
    expect(loggedMarkers(harness.session).map((marker) => marker.text.split('\n')[1] ?? null)).toEqual([
      null,
      null,
      null,
      'DCP compression recommended: long-running step chain without pressure data. Compress a closed range to keep context bounded.',
      null,
    ]);
    expectHealthyLog(harness);
  });
});

// DCP.md §18 items 16 (retention), 17, 18 (loop part), 28–30 and 32–36: retention with leaf dating, hard
// protection, nesting with prior bodies, the protection appendix and its kinds, net savings that include the
// appendix, and checkpoints with unreadable metadata.
import { describe, expect, it } from 'vitest';
import { decodeDcpMeta } from '../../../../src/protocol/dcp/dcp-meta.js';
import type { Message } from '../../../../src/protocol/events.js';
import {
  blockText,
  bracketWithSource,
  compactionEvents,
  compressReply,
  compressResults,
  createDcpHarness,
  expectHealthyLog,
  injectAtTurn,
  loggedMarkers,
  range,
  readTool,
  texts,
  turn,
  userMessage,
} from './dcp-harness.js';
import { compactRange } from '../../stand-in/host/host-builders.js';

const PLAIN = (index: number) => `turn ${index} prompt ${'p'.repeat(300)}`;

describe('§18 item 16: retention', () => {
  it('a range entering the last N turns fails with the latest allowed endRef', async () => {
    const harness = createDcpHarness({
      dcp: { compress: { retainRecentTurns: 2 } },
      script: [...texts(3), compressReply([range('m0001', 'm0004')]), { text: 'ok' }],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'compress');
    expect(compressResults(harness.session)[0]!.text).toBe(
      [
        'Error: No range was compressed.',
        'Range status:',
        '1. m0001..m0004: failed: range m0001..m0004 enters the last 2 turn(s); choose older content; latest allowed endRef: m0003',
      ].join('\n'),
    );
    expect(compactionEvents(harness.session)).toEqual([]);
    expectHealthyLog(harness);
  });
});

describe('§18 item 18 (loop): the current call lives in the current turn, which retention refuses', () => {
  it('a range over the current turn fails by E11', async () => {
    const harness = createDcpHarness({
      script: [
        ...texts(2),
        { text: 'step one', toolCalls: [{ name: 'read', args: { path: 'x' } }] },
        compressReply([range('m0003', 'm0004')]),
        { text: 'ok' },
      ],
      tools: [readTool],
    });
    for (let index = 1; index <= 2; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'read then compress');
    expect(compressResults(harness.session)[0]!.text).toBe(
      [
        'Error: No range was compressed.',
        'Range status:',
        '1. m0003..m0004: failed: range m0003..m0004 enters the last 1 turn(s); choose older content; latest allowed endRef: m0003',
      ].join('\n'),
    );
    expectHealthyLog(harness);
  });
});

describe('§18 item 17: hard protection', () => {
  const instructions = () => userMessage('Always answer in English.', { kind: 'plugin', plugin: 'ctx', form: 'instructions' });
  const snapshot = (text: string) => () => userMessage(text, { kind: 'plugin', plugin: 'ctx', form: 'snapshot' });

  it('refuses a range holding a form:instructions message', async () => {
    const harness = createDcpHarness({
      pluginsAfter: [injectAtTurn(1, instructions)],
      script: [...texts(3), compressReply([range('m0001', 'm0003')]), { text: 'ok' }],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'compress');
    expect(compressResults(harness.session)[0]!.text).toBe(
      'Error: No range was compressed.\nRange status:\n1. m0001..m0003: failed: range m0001..m0003 contains a hard-protected instruction/snapshot node',
    );
    expectHealthyLog(harness);
  });

  it('refuses the latest snapshot and commits a range holding only an older snapshot', async () => {
    const harness = createDcpHarness({
      pluginsAfter: [injectAtTurn(1, snapshot('snapshot one')), injectAtTurn(2, snapshot('snapshot two'))],
      script: [
        ...texts(3),
        compressReply([range('m0002', 'm0003', 'Turn two.')]),
        { text: 'ok' },
        compressReply([range('m0001', 'm0002', 'Turn one.')]),
        { text: 'ok' },
      ],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'compress turn two');
    expect(compressResults(harness.session)[0]!.text).toContain(
      '1. m0002..m0003: failed: range m0002..m0003 contains a hard-protected instruction/snapshot node',
    );
    const index = harness.index();
    const latest = harness.session.events[index.latestSnapshot!]!.data as Message;
    expect((latest.content[0] as { text: string }).text).toBe('snapshot two');
    await turn(harness, 'compress turn one');
    expect(compressResults(harness.session)[1]!.text).toMatch(/\n1\. m0001\.\.m0002: committed as b1 /);
    expectHealthyLog(harness);
  });
});

describe('§18 items 28 and 29: nesting and leaf dating', () => {
  it('nests b1 into b2 with its body as a prior block and exactly one id tag', async () => {
    const harness = createDcpHarness({
      script: [
        ...texts(3),
        compressReply([range('m0001', 'm0003', 'Turns one and two: setup done.')]),
        { text: 'ok' },
        { text: 'turn five answer' },
        compressReply([range('b1', 'm0006', 'Everything up to turn five.')]),
        { text: 'ok' },
      ],
    });
    for (let index = 1; index <= 3; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'compress one');
    await turn(harness, PLAIN(5));
    await turn(harness, 'compress nested');
    expect(loggedMarkers(harness.session).map((marker) => marker.ref)).toContain('m0006');
    const index = harness.index();
    expect(index.block('b1')).toMatchObject({ membership: 'consumed', successor: 'b2' });
    expect(index.block('b2')!.membership).toBe('active');
    expect(index.block('b2')!.meta.consumedBlockRefs).toEqual(['b1']);
    expect(index.block('b2')!.meta.protectedKinds).toEqual(['prior-blocks']);
    expect(index.maxBlockNumber).toBe(2);
    const text = blockText(harness, 'b2');
    expect(text).toContain('\nIncluded prior blocks:\n<dcp-prior ref="b1">\nTurns one and two: setup done.\n</dcp-prior>');
    expect(text.startsWith('[Compressed conversation section]\nEverything up to turn five.\nIncluded prior blocks:')).toBe(true);
    expect(text.match(/<dcp-message-id>/g)).toHaveLength(1);
    expect(text.endsWith('\n\n<dcp-message-id>b2</dcp-message-id>')).toBe(true);
    expectHealthyLog(harness);
  });

  it('dates a block by its leaves: b1 written in turn 5 over turns 1–2 nests in turn 6 with retainRecentTurns = 2', async () => {
    const harness = createDcpHarness({
      dcp: { compress: { retainRecentTurns: 2 } },
      script: [
        ...texts(4),
        compressReply([range('m0001', 'm0003', 'Turns one and two.')]),
        { text: 'ok' },
        compressReply([range('b1', 'm0004', 'Block one and turn three.')]),
        { text: 'ok' },
      ],
    });
    for (let index = 1; index <= 4; index++) await turn(harness, PLAIN(index));
    await turn(harness, 'compress in turn five');
    const index = harness.index();
    expect(index.turnOf(index.block('b1')!.seq)).toBe(2);
    await turn(harness, 'compress in turn six');
    expect(compressResults(harness.session)[1]!.text).toMatch(/\n1\. b1\.\.m0004: committed as b2 /);
    expectHealthyLog(harness);
  });
});

describe('§18 items 30, 34, 35: protected tool outputs', () => {
  async function readThenCompress(dcp: Record<string, unknown>, readArgs: Record<string, unknown>, summary = 'Read a file and answered.') {
    const harness = createDcpHarness({
      dcp,
      tools: [readTool],
      script: [
        { toolCalls: [{ name: 'read', args: readArgs }] },
        { text: 'read it' },
        { text: 'turn two' },
        compressReply([range('m0001', 'm0003', summary)]),
        { text: 'ok' },
      ],
    });
    await turn(harness, PLAIN(1));
    await turn(harness, PLAIN(2));
    await turn(harness, 'compress');
    return harness;
  }

  it('copies a protectedTools output verbatim under its tool kind', async () => {
    const harness = await readThenCompress({ compress: { protectedTools: ['read'] } }, { path: 'a.txt' });
    expect(compressResults(harness.session)[0]!.isError).toBe(false);
    expect(blockText(harness, 'b1')).toBe(
      '[Compressed conversation section]\nRead a file and answered.\nProtected tool read output verbatim:\ncontents of a.txt\n\n<dcp-message-id>b1</dcp-message-id>',
    );
    expect(harness.index().block('b1')!.meta.protectedKinds).toEqual(['tool:read']);
    expectHealthyLog(harness);
  });

  it('protects outputs whose file_path or filePath matches protectedFilePatterns', async () => {
    for (const key of ['file_path', 'filePath']) {
      const harness = await readThenCompress({ protectedFilePatterns: ['**/*.txt'] }, { [key]: '/x/a.txt' });
      expect(blockText(harness, 'b1')).toContain('\nProtected tool read output verbatim:\ncontents of /x/a.txt');
      expectHealthyLog(harness);
    }
    const unprotected = await readThenCompress({ protectedFilePatterns: ['**/*.md'] }, { file_path: '/x/a.txt' });
    expect(blockText(unprotected, 'b1')).not.toContain('Protected tool');
  });

  it('checks net savings after the appendix: a large protected output fails E14 and is never truncated', async () => {
    const big = 'L'.repeat(6000);
    const failing = await readThenCompress({ compress: { protectedTools: ['read'] } }, { path: 'big', size: 6000 }, 'S'.repeat(2000));
    expect(compressResults(failing.session)[0]!.text).toMatch(
      /^Error: No range was compressed\.\nRange status:\n1\. m0001\.\.m0003: failed: range m0001\.\.m0003 saves ~-\d+ tokens, below minNetSavingsTokens=1$/,
    );
    const passing = await readThenCompress({ compress: { protectedTools: ['read'] } }, { path: 'big', size: 6000 }, 'Short.');
    expect(blockText(passing, 'b1')).toContain(`\nProtected tool read output verbatim:\n${big}\n\n<dcp-message-id>b1</dcp-message-id>`);
    expectHealthyLog(passing);
  });
});

describe('§18 items 32 and 33: appendix kinds', () => {
  it('copies user messages (kind user only), <protect> bodies and protected sources, never DCP text', async () => {
    const report = () => userMessage('subagent found 3 bugs', { kind: 'subagent-report' });
    const notice = () => userMessage('build is green', { kind: 'plugin', plugin: 'ci', form: 'notice' });
    const harness = createDcpHarness({
      dcp: { compress: { protectUserMessages: true, protectedSources: ['subagent-report', 'notice'] } },
      pluginsAfter: [injectAtTurn(1, report), injectAtTurn(2, notice)],
      script: [...texts(2), compressReply([range('m0001', 'm0003', 'Two turns.')]), { text: 'ok' }],
    });
    await turn(harness, 'first <protect>keep A</protect> and <PROTECT>keep B</PROTECT>');
    await turn(harness, 'second plain');
    await turn(harness, 'compress');
    const text = blockText(harness, 'b1');
    expect(text).toBe(
      [
        '[Compressed conversation section]',
        'Two turns.',
        'User message verbatim:',
        'first <protect>keep A</protect> and <PROTECT>keep B</PROTECT>',
        'Protected prompt information verbatim:',
        'keep A',
        'keep B',
        'Protected source subagent-report verbatim:',
        'subagent found 3 bugs',
        'User message verbatim:',
        'second plain',
        'Protected source notice verbatim:',
        'build is green',
        '',
        '<dcp-message-id>b1</dcp-message-id>',
      ].join('\n'),
    );
    expect(text).not.toContain('<dcp-boundary');
    expect(harness.index().block('b1')!.meta.protectedKinds).toEqual(['user', 'protect-tag', 'source:subagent-report', 'source:notice']);
    expectHealthyLog(harness);
  });

  it('trims each <protect> body, as dsh-dcp does, and leaves a blank body out (issue 13 item 9)', async () => {
    // The example: dsh-dcp appends `API key rotation: weekly\nsalt=v2` for a padded tag body.
    const harness = createDcpHarness({ script: [...texts(2), compressReply([range('m0001', 'm0003', 'Two turns.')]), { text: 'ok' }] });
    await turn(harness, 'keys: <protect>  API key rotation: weekly\nsalt=v2 \n</protect> and <protect> \n </protect>');
    await turn(harness, 'second plain');
    await turn(harness, 'compress');
    expect(blockText(harness, 'b1')).toBe(
      [
        '[Compressed conversation section]',
        'Two turns.',
        'Protected prompt information verbatim:',
        'API key rotation: weekly',
        'salt=v2',
        '',
        '<dcp-message-id>b1</dcp-message-id>',
      ].join('\n'),
    );
    expect(harness.index().block('b1')!.meta.protectedKinds).toEqual(['protect-tag']);
    expectHealthyLog(harness);
  });

  it('carries a subagent-report message verbatim under the default configuration', async () => {
    const report = () => userMessage('child result: done', { kind: 'subagent-report' });
    const harness = createDcpHarness({
      pluginsAfter: [injectAtTurn(1, report)],
      script: [...texts(2), compressReply([range('m0001', 'm0002', 'Turn one.')]), { text: 'ok' }],
    });
    await turn(harness, PLAIN(1));
    await turn(harness, PLAIN(2));
    await turn(harness, 'compress');
    expect(blockText(harness, 'b1')).toContain('\nProtected source subagent-report verbatim:\nchild result: done');
    expect(harness.index().block('b1')!.meta.protectedKinds).toEqual(['source:subagent-report']);
    expectHealthyLog(harness);
  });
});

describe('§18 item 36: unreadable DCP metadata', () => {
  it('loads a dcp.v = 2 checkpoint with a diagnostic, not as a block, protects it, and gives native checkpoints none', async () => {
    const first = createDcpHarness({ script: texts(3) });
    for (let index = 1; index <= 3; index++) await turn(first, PLAIN(index));
    const markers = loggedMarkers(first.session);
    const foreign = bracketWithSource(first.session, 'foreign-1', markers[0]!.seq, markers[0]!.seq + 1, {
      kind: 'plugin',
      plugin: 'compact',
      compactionId: 'foreign-1',
      dcp: { v: 2, kind: 'summary', blockRef: 'b7' },
    });
    const native = compactRange(first.session, 'native-1', markers[1]!.seq, markers[1]!.seq, 'native');
    const harness = createDcpHarness({
      seed: [...first.session.events],
      script: [compressReply([range('m0001', 'm0003')]), { text: 'ok' }],
    });
    await turn(harness, 'compress');
    const index = harness.index();
    expect(index.diagnostics()).toEqual([
      { seq: foreign, code: 'UNSUPPORTED_VERSION', message: 'dcp metadata version 2 is not supported' },
    ]);
    expect(index.diagnostic(native)).toBeUndefined();
    expect(index.replaceClass(foreign)).toBe('foreign-dcp');
    expect(index.replaceClass(native)).toBe('native');
    expect(index.blocks()).toEqual([]);
    expect(index.maxBlockNumber).toBe(0);
    expect(decodeDcpMeta((harness.session.events[foreign]!.data as Message).source)).toMatchObject({
      ok: false,
      code: 'UNSUPPORTED_VERSION',
    });
    expect(harness.logs.filter((line) => line.level === 'warn')).toEqual([
      {
        level: 'warn',
        text: `DCP checkpoint s${foreign} has unreadable metadata (UNSUPPORTED_VERSION): dcp metadata version 2 is not supported`,
      },
    ]);
    expect(compressResults(harness.session)[0]!.text).toBe(
      'Error: No range was compressed.\nRange status:\n1. m0001..m0003: failed: range m0001..m0003 contains a checkpoint with unreadable DCP metadata (UNSUPPORTED_VERSION); it is protected',
    );
    expectHealthyLog(harness);
  });
});

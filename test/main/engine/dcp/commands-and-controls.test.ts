// DCP.md §18 items 44, 53 and 62–67: manual mode gating the strategies, manual-state replay from command records,
// sweep control turns, human-typed control text, co-claimed controls, rejected control turns and the `/dcp` texts.
import { describe, expect, it } from 'vitest';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import { HELP_TEXT } from '../../../../src/protocol/dcp/command-texts.js';
import type { ScriptEntry } from '../../../../src/main/stand-in/host/scripted-model.js';
import type { DcpHarness } from './dcp-harness.js';
import {
  busyDuringPreStep,
  coldIndex,
  compressReply,
  createDcpHarness,
  expectHealthyLog,
  messageText,
  range,
  readTool,
  turn,
} from './dcp-harness.js';
import type { Plugin } from '../../../../src/main/host-api/host-api.js';

/** Turn 1 and turn 2 read a.txt; every later turn answers with text. */
const READ_TWICE: ScriptEntry[] = [
  { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
  { text: 'one' },
  { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
  { text: 'two' },
  ...Array.from({ length: 6 }, (_, index) => ({ text: `later ${index}` })),
];

function dedupReplaces(harness: DcpHarness): SessionEvent[] {
  return harness.session.events.filter((event) => event.type === 'tool/result' && typeof event.surfaceOp === 'object');
}

function notices(harness: DcpHarness): string[] {
  return harness.notifications.map((notification) => notification.text);
}

/** A harness whose two reads are duplicates, with manual mode switched on before turn 3. */
async function manualWithDuplicate(extra: { plugins?: readonly Plugin[]; pluginsAfter?: readonly Plugin[] } = {}) {
  const harness = createDcpHarness({ tools: [readTool], script: READ_TWICE, ...extra });
  await turn(harness, 'one');
  await turn(harness, 'two');
  expect(await harness.runCommand('/dcp manual on')).toEqual({ kind: 'success', text: 'Manual mode is now ON.' });
  await turn(harness, 'three');
  return harness;
}

/** {@link manualWithDuplicate}, then manual mode switched off again: the duplicate is left for a sweep to prune. */
async function duplicateLeftForSweep(extra: { plugins?: readonly Plugin[]; pluginsAfter?: readonly Plugin[] } = {}) {
  const harness = await manualWithDuplicate(extra);
  expect(await harness.runCommand('/dcp manual off')).toEqual({ kind: 'success', text: 'Manual mode is now OFF.' });
  return harness;
}

describe('§18 item 44: manual mode gates the automatic strategies', () => {
  it('with the default automaticStrategies=false dedup does not run, nor does /dcp sweep (as in dsh-dcp); after manual off a sweep runs it', async () => {
    const harness = await manualWithDuplicate();
    expect(harness.index().manualOn).toBe(true);
    expect(dedupReplaces(harness)).toEqual([]);
    expect(await harness.runCommand('/dcp sweep')).toEqual({
      kind: 'success',
      text: 'Sweep scheduled in a control turn (no model request).',
    });
    await harness.runUntilIdle();
    // DCP.md §8.1 rule 4: the gate holds for a sweep (test/fixtures/dcp-dsh/s10: dsh-dcp's first sweep, under manual
    // mode, prunes nothing; its second, after `/dcp manual off`, prunes the duplicate).
    expect(dedupReplaces(harness)).toEqual([]);
    expect(notices(harness)).toEqual(['DCP sweep skipped: manual mode is on and automatic strategies are off.']);
    expect(harness.runtime.pendingControls.size).toBe(0);
    await harness.runCommand('/dcp manual off');
    await harness.runCommand('/dcp sweep');
    await harness.runUntilIdle();
    expect(dedupReplaces(harness)).toHaveLength(1);
    expectHealthyLog(harness);
  });

  it('with automaticStrategies=true dedup runs in manual mode', async () => {
    const harness = createDcpHarness({ tools: [readTool], script: READ_TWICE, dcp: { manualMode: { automaticStrategies: true } } });
    await turn(harness, 'one');
    await turn(harness, 'two');
    await harness.runCommand('/dcp manual on');
    await turn(harness, 'three');
    expect(dedupReplaces(harness)).toHaveLength(1);
  });
});

describe('§18 item 62: /dcp sweep is a control turn', () => {
  it('runs with 0 model dispatches, no assistant message, a completed turn, logged prunes and a notice', async () => {
    const harness = await duplicateLeftForSweep();
    const dispatches = harness.model.dispatchCount;
    const assistants = harness.session.events.filter((event) => event.type === 'assistant/message').length;
    const firstNew = harness.session.events.length;
    await harness.runCommand('/dcp sweep');
    await harness.runUntilIdle();
    expect(harness.model.dispatchCount).toBe(dispatches);
    const written = harness.session.events.slice(firstNew);
    expect(written.filter((event) => event.type === 'assistant/message')).toHaveLength(0);
    expect(harness.session.events.filter((event) => event.type === 'assistant/message')).toHaveLength(assistants);
    const turnEnd = written.find((event) => event.type === 'turn/end')!;
    expect((turnEnd.data as { reason: unknown }).reason).toEqual({ kind: 'completed' });
    // Neither the control nor a marker is logged.
    expect(written.filter((event) => event.type === 'user/message' && event.surfaceOp === 'append')).toEqual([]);
    const [replace] = dedupReplaces(harness);
    const original = (replace!.surfaceOp as { start: number }).start;
    const saved = harness.session.meter.estimateOf(original)! - harness.session.meter.estimateOf(replace!.seq)!;
    expect(notices(harness)).toContain(`DCP sweep: pruned 1 duplicate output(s) and 0 errored unit(s), ~${saved} tokens.`);
    expect(harness.runtime.pendingControls.size).toBe(0);
    expectHealthyLog(harness);
  });

  it('a sweep with nothing to prune says so', async () => {
    const harness = createDcpHarness({ script: [{ text: 'one' }] });
    await turn(harness, 'one');
    await harness.runCommand('/dcp sweep');
    await harness.runUntilIdle();
    expect(notices(harness)).toEqual(['DCP sweep: nothing to prune.']);
  });

  it('a sweep while busy is skipped and says so', async () => {
    const busy = busyDuringPreStep(4);
    const harness = await duplicateLeftForSweep({ plugins: [busy.outer], pluginsAfter: [busy.inner] });
    await harness.runCommand('/dcp sweep');
    await harness.runUntilIdle();
    expect(harness.errors).toEqual([]);
    expect(notices(harness)).toEqual(['DCP sweep skipped: compaction is busy.']);
    expect(dedupReplaces(harness)).toEqual([]);
    expect(harness.runtime.pendingControls.size).toBe(0);
  });
});

describe('§18 item 63: a human typing the control text', () => {
  it('is an ordinary message: it reaches the model after a marker and no sweep runs', async () => {
    const harness = await manualWithDuplicate();
    await turn(harness, '<dcp-control>sweep</dcp-control>');
    expect(dedupReplaces(harness)).toEqual([]);
    const request = harness.model.requests.at(-1)!;
    const texts = request.messages.map((message) => messageText(message as Message));
    expect(texts.at(-1)).toBe('<dcp-control>sweep</dcp-control>');
    expect(texts.at(-2)).toMatch(/^<dcp-boundary ref="m\d+" turn="4" step="1" \/>/);
    expect(notices(harness)).toEqual([]);
  });
});

describe('§18 item 64: a control claimed with a real user message', () => {
  it('runs the control first, then the user message reaches the model with a marker', async () => {
    const harness = await duplicateLeftForSweep();
    const dispatches = harness.model.dispatchCount;
    const command = harness.runCommand('/dcp sweep');
    harness.prompt('and here is my real question');
    await command;
    await harness.runUntilIdle();
    expect(harness.model.dispatchCount).toBe(dispatches + 1);
    const [replace] = dedupReplaces(harness);
    expect(replace).toBeDefined();
    const texts = harness.model.requests.at(-1)!.messages.map((message) => messageText(message as Message));
    expect(texts.at(-1)).toBe('and here is my real question');
    expect(texts.at(-2)).toMatch(/^<dcp-boundary ref="m\d+" turn="4" step="1" \/>/);
    expect(texts.some((text) => text.includes('<dcp-control>'))).toBe(false);
    // The prunes come before the marker: the request already sees the replacement.
    const marker = harness.session.events.find(
      (event) => event.type === 'user/message' && event.surfaceOp === 'append' && event.seq > replace!.seq,
    );
    expect(marker).toBeDefined();
    expect(notices(harness)[0]).toMatch(/^DCP sweep: pruned 1 duplicate output\(s\)/);
    expectHealthyLog(harness);
  });
});

describe('§18 item 65: a rejected control turn', () => {
  it('runs nothing, drops the pending control and notifies the human', async () => {
    const rejectControls: Plugin = {
      name: 'reject-controls',
      apply: (context) =>
        context.on('agent/pre-step', async (payload, next) => {
          const decision = await next();
          return payload.messages.some((message) => messageText(message as unknown as Message).startsWith('<dcp-control>'))
            ? { kind: 'reject' }
            : decision;
        }),
    };
    const harness = await manualWithDuplicate({ pluginsAfter: [rejectControls] });
    await harness.runCommand('/dcp sweep');
    await harness.runUntilIdle();
    expect(dedupReplaces(harness)).toEqual([]);
    expect(notices(harness)).toEqual(['DCP: sweep was not run because the turn was rejected.']);
    expect(harness.runtime.pendingControls.size).toBe(0);
  });
});

describe('§18 item 53: manual-state replay', () => {
  it.each([
    [' manual on ', true],
    ['MANUAL   On', true],
    ['manual off', false],
  ])('a success pair with args %j replays as %s', (args, expected) => {
    const harness = createDcpHarness({ dcp: { manualMode: { default: !expected } } });
    harness.session.append('command/run', { commandId: 'c1', name: 'dcp', args, source: { kind: 'user' } });
    harness.session.append('command/done', { commandId: 'c1', kind: 'success', text: 'x' });
    expect(harness.index().manualOn).toBe(expected);
    expect(coldIndex(harness).manualOn).toBe(expected);
  });

  it("'manual on' with command/done kind:'error' changes nothing", () => {
    const harness = createDcpHarness();
    harness.session.append('command/run', { commandId: 'c1', name: 'dcp', args: 'manual on', source: { kind: 'user' } });
    harness.session.append('command/done', { commandId: 'c1', kind: 'error', text: 'x' });
    expect(harness.index().manualOn).toBe(false);
    expect(coldIndex(harness).manualOn).toBe(false);
  });

  it('the real command with odd spacing and case prints "now ON" and replays as on', async () => {
    const harness = createDcpHarness();
    expect(await harness.runCommand('/dcp   MANUAL   On')).toEqual({ kind: 'success', text: 'Manual mode is now ON.' });
    expect(harness.index().manualOn).toBe(true);
    expect(await harness.runCommand('/dcp manual status')).toEqual({ kind: 'success', text: 'Manual mode is ON.' });
    expect(await harness.runCommand('/dcp manual off')).toEqual({ kind: 'success', text: 'Manual mode is now OFF.' });
    expect(harness.index().manualOn).toBe(false);
    expect(coldIndex(harness).manualOn).toBe(false);
  });
});

describe('§18 item 66: command texts', () => {
  it('help, unknown sub-command, usage errors, manual status and usage', async () => {
    const harness = createDcpHarness();
    expect(await harness.runCommand('/dcp')).toEqual({ kind: 'success', text: HELP_TEXT });
    expect(await harness.runCommand('/dcp help')).toEqual({ kind: 'success', text: HELP_TEXT });
    expect(await harness.runCommand('/dcp frobnicate')).toEqual({
      kind: 'error',
      text: 'Unknown /dcp subcommand "frobnicate". Use /dcp help.',
    });
    expect(await harness.runCommand('/dcp show')).toEqual({ kind: 'error', text: 'Usage: /dcp show <bN> [--raw]' });
    expect(await harness.runCommand('/dcp show x')).toEqual({ kind: 'error', text: 'Usage: /dcp show <bN> [--raw]' });
    expect(await harness.runCommand('/dcp decompress')).toEqual({ kind: 'error', text: 'Usage: /dcp decompress <bN> [--into-context]' });
    expect(await harness.runCommand('/dcp recompress b1 --raw')).toEqual({ kind: 'error', text: 'Usage: /dcp recompress <bN>' });
    expect(await harness.runCommand('/dcp manual status')).toEqual({ kind: 'success', text: 'Manual mode is OFF.' });
    expect(await harness.runCommand('/dcp manual maybe')).toEqual({
      kind: 'success',
      text: 'Usage: /dcp manual [on|off|status]. Current: OFF.',
    });
    expect(await harness.runCommand('/dcp show b9')).toEqual({ kind: 'success', text: 'Compression b9 does not exist.' });
  });

  it('dcp-compress is registered and queues the trigger with focus; compress disabled is an error', async () => {
    const harness = createDcpHarness({ script: [{ text: 'ok' }] });
    expect(harness.agent.commands.map((definition) => definition.name)).toEqual(expect.arrayContaining(['dcp', 'dcp-compress']));
    const result = await harness.runCommand('/dcp-compress the parser work');
    expect(result).toEqual({ kind: 'success', text: 'Compression triggered; the model will select closed ranges in the next turn.' });
    await harness.runUntilIdle();
    const trigger = harness.session.events.find(
      (event) => event.type === 'user/message' && messageText(event.data as Message).startsWith('<compress triggered manually>'),
    )!;
    const message = trigger.data as Message;
    // dsh-dcp's trigger (test/fixtures/dcp-dsh/s10-trigger-sweep), here with this focus.
    expect(messageText(message)).toBe(
      '<compress triggered manually>\n\nManual mode trigger received. You must now use the compress tool.\n\nFind the most significant completed conversation content that can be compressed into a high-fidelity technical summary.\n\nChoose safe, closed, tool-pairing-balanced ranges and return after compress with a brief explanation.\n\nAdditional user focus:\nthe parser work',
    );
    expect(message.source).toMatchObject({ kind: 'plugin', plugin: 'dsh-dcp', commandId: expect.any(String) as string });

    const disabled = createDcpHarness({ dcp: { compress: { enabled: false } } });
    expect(await disabled.runCommand('/dcp compress')).toEqual({ kind: 'error', text: 'Compression is disabled by configuration.' });
  });

  it('/dcp decompress b1 shows the raw block with the note; /dcp show b1 shows the summary', async () => {
    const harness = createDcpHarness({
      script: [
        { text: 'first answer' },
        { text: 'second answer' },
        { text: 'third' },
        compressReply([range('m0001', 'm0003', 'Two turns of questions and answers about the parser.')]),
        { text: 'done' },
      ],
    });
    for (const text of ['alpha question', 'beta question', 'gamma question', 'compress now'])
      await turn(harness, `${text} ${'q'.repeat(200)}`);
    expect(harness.index().block('b1')?.membership).toBe('active');
    const show = await harness.runCommand('/dcp show b1');
    expect(show.kind).toBe('success');
    expect(show.text.split('\n').slice(0, 7)).toEqual([
      'Block b1:',
      'kind: summary',
      'mode: range',
      'topic: old work',
      'status: active',
      'range: m0001..m0003',
      'consumed blocks: (none)',
    ]);
    const decompress = await harness.runCommand('/dcp decompress b1');
    expect(decompress.kind).toBe('success');
    // dsh-dcp's leaf layout (test/fixtures/dcp-dsh/s11, `/dcp decompress b1`): the two turns' markers are leaves too,
    // leaves are separated by a blank line, and so is the note.
    expect(decompress.text).toContain('\n\nOriginal leaf nodes (6):\n--- leaf ');
    expect(decompress.text).toMatch(
      /\n\nOriginal leaf nodes \(6\):\n--- leaf \d+ \(user\) ---\n<dcp-boundary ref="m0001" turn="1" step="1" \/>\n\n--- leaf \d+ \(user\) ---\nalpha question q+\n\n--- leaf \d+ \(assistant\) ---\nfirst answer\n\n--- leaf \d+ \(user\) ---\n<dcp-boundary ref="m0002" turn="2" step="1" \/>\n\n/,
    );
    expect(decompress.text).toContain(`alpha question ${'q'.repeat(200)}`);
    expect(
      decompress.text.endsWith('second answer\n\nNote: model context is unchanged (raw show only). Use --into-context to expand.'),
    ).toBe(true);
    const context = await harness.runCommand('/dcp context');
    expect(context.text).toMatch(/^DCP context \(heuristic token estimates\):\nsurface tokens ~\d+\n/);
    expect(context.text).toContain('\nactive blocks: b1\n');
    expect(context.text).toContain('\nmanual mode: OFF');
  });
});

describe('§18 item 67: decompress --into-context pre-checks', () => {
  it('on a block that is not an active summary: kind error and no control is queued', async () => {
    const harness = createDcpHarness();
    expect(await harness.runCommand('/dcp decompress b1 --into-context')).toEqual({
      kind: 'error',
      text: 'b1 is not an active summary block',
    });
    expect(harness.runtime.pendingControls.size).toBe(0);
    expect(await harness.runCommand('/dcp recompress b1')).toEqual({
      kind: 'error',
      text: 'b1 has no active semantic expansion to recompress',
    });
    expect(harness.runtime.pendingControls.size).toBe(0);
  });
});

// DCP.md §18 item 70 and §16 mounting: DCP writes only known types and the host refuses others; a second full
// bracket over a DCP checkpoint still yields one node; a reload with DCP disabled derives the same messages;
// an invalid configuration leaves the agent without DCP; `enabled:false` registers nothing.
import { describe, expect, it } from 'vitest';
import { SessionAppendError } from '../../../../src/main/stand-in/host/session-append-error.js';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import { dcpPlugin } from '../../../../src/main/engine/dcp/dcp-plugin.js';
import { appendRaw, compactRange } from '../../stand-in/host/host-builders.js';
import { compressReply, createDcpHarness, expectHealthyLog, loggedMarkers, range, texts, turn } from './dcp-harness.js';

async function withBlock() {
  const harness = createDcpHarness({
    script: [...texts(3), compressReply([range('m0001', 'm0003', 'Two turns.')]), { text: 'ok' }, { text: 'later' }],
  });
  for (let index = 1; index <= 3; index++) await turn(harness, `turn ${index} ${'t'.repeat(300)}`);
  await turn(harness, 'compress');
  return harness;
}

describe('§18 item 70: host contract', () => {
  it('refuses an unknown event type and leaves the log unchanged', async () => {
    const harness = await withBlock();
    const before = harness.session.events.length;
    let thrown: unknown;
    try {
      appendRaw(harness.session, 'dcp/block', {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SessionAppendError);
    expect((thrown as SessionAppendError).code).toBe('HOST_UNKNOWN_EVENT_TYPE');
    expect((thrown as Error).message).toBe('unknown session event type "dcp/block"');
    expect(harness.session.events.length).toBe(before);
  });

  it('a second full bracket over a DCP checkpoint yields one node, and the block is absorbed', async () => {
    const harness = await withBlock();
    const b1 = harness.index().block('b1')!;
    const length = harness.session.surface.length;
    const native = compactRange(harness.session, 'native-over-b1', b1.seq, b1.seq, 'native over b1');
    expect(harness.session.surface.length).toBe(length);
    expect(harness.session.surface.at(0)).toBe(native);
    expect(harness.index().block('b1')!.membership).toBe('absorbed-native');
    await turn(harness, 'after');
    expectHealthyLog(harness);
  });

  it('a reload with DCP disabled derives identical messages', async () => {
    const harness = await withBlock();
    const live = JSON.stringify(harness.session.deriveMessages());
    const plain = createTestHarness({ seed: [...harness.session.events] });
    expect(JSON.stringify(plain.session.deriveMessages())).toBe(live);
    const disabled = createTestHarness({ seed: [...harness.session.events], plugins: [dcpPlugin()], config: { dcp: { enabled: false } } });
    expect(JSON.stringify(disabled.session.deriveMessages())).toBe(live);
  });
});

describe('§16 mounting', () => {
  it('enabled:false registers no tool, no section and no listener', async () => {
    const plugin = dcpPlugin();
    const harness = createTestHarness({ plugins: [plugin], config: { dcp: { enabled: false } }, script: texts(1) });
    expect(plugin.runtime).toBeUndefined();
    await turn(harness, 'hello');
    const header = harness.session.latestRequestHeader()!;
    expect(header['tools']).toEqual([]);
    expect(header['system']).toBe('');
    expect(harness.session.events.filter((event) => event.type === 'user/message')).toHaveLength(1);
  });

  it('an invalid configuration is logged and the agent runs without DCP; unknown keys give one warning', async () => {
    const plugin = dcpPlugin();
    const harness = createTestHarness({ plugins: [plugin], config: { dcp: { compress: { maxRangesPerCall: 0 } } }, script: texts(1) });
    expect(plugin.runtime).toBeUndefined();
    expect(harness.logs).toEqual([
      { level: 'error', text: 'dcp config: compress.maxRangesPerCall must be an integer >= 1', detail: expect.any(Error) as Error },
    ]);
    await turn(harness, 'hello');
    expect(harness.errors).toEqual([]);
    const warned = createTestHarness({ plugins: [dcpPlugin()], config: { dcp: { summaryBuffer: 1, compress: { permission: 'x' } } } });
    expect(warned.logs.filter((line) => line.level === 'warn')).toHaveLength(1);
  });

  it('registers the compress tool with its schema and the guidance section once, keeping the header stable', async () => {
    const harness = createDcpHarness({ script: texts(3) });
    for (let index = 1; index <= 3; index++) await turn(harness, `turn ${index}`);
    const headers = harness.session.events.filter((event) => event.type === 'request/header');
    expect(headers).toHaveLength(1);
    const header = harness.session.latestRequestHeader()!;
    expect(
      (header['tools'] as Array<{ name: string; parameters: { properties: { content: { maxItems: number } } } }>).map((tool) => [
        tool.name,
        tool.parameters.properties.content.maxItems,
      ]),
    ).toEqual([['compress', 3]]);
    expect((header['system'] as string).startsWith('## Context pruning (DCP)\n\nThis conversation is stored as an append-only log.')).toBe(
      true,
    );
    expect(loggedMarkers(harness.session)).toHaveLength(3);
  });
});

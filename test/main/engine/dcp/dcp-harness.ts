/**
 * Test support for the DCP host tests: the real harness (HOST.md §12) with the DCP plugin mounted, replies that
 * call `compress`, log readers and the end-of-test checks every DCP test log must pass (reload equality, host
 * validation on reload, no unknown types, every replace priced directly before).
 */
import { expect } from 'vitest';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import { KNOWN_EVENT_TYPES, isRecord } from '../../../../src/protocol/events.js';
import { MARKER_STRICT_RE } from '../../../../src/protocol/dcp/constants.js';
import { deriveModelMessages, foldSurface } from '../../../../src/protocol/surface-fold.js';
import type { ScriptEntry, ScriptedReply } from '../../../../src/main/stand-in/host/scripted-model.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import type { TestHarness, TestHarnessOptions } from '../../../../src/main/stand-in/host/test-harness.js';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import type { ToolDefinition } from '../../../../src/main/stand-in/host/tool-definition.js';
import { replayDcpIndex } from '../../../../src/main/engine/dcp/cold-replay.js';
import type { DcpIndex } from '../../../../src/main/engine/dcp/dcp-index.js';
import type { DcpPlugin, DcpPluginOptions } from '../../../../src/main/engine/dcp/dcp-plugin.js';
import { dcpPlugin } from '../../../../src/main/engine/dcp/dcp-plugin.js';
import { currentWindowLookup, DcpRuntime } from '../../../../src/main/engine/dcp/dcp-runtime.js';
import { resolveDcpConfig } from '../../../../src/protocol/dcp/config.js';
import { buildMarkerText, markerMessageInput } from '../../../../src/protocol/dcp/marker-text.js';
import { silentLogger } from '../../../../src/main/host-kit/silent-logger.js';
import type { UserMessage } from '../../../../src/protocol/user-message.js';
import { createUserMessage } from '../../../../src/protocol/user-message.js';
import { indexSnapshot } from './index-snapshot.js';
import type { Plugin } from '../../../../src/main/host-api/host-api.js';

/** The §18 test defaults: `retainRecentTurns = 1`, `minNetSavingsTokens = 1`. */
export const TEST_DCP_CONFIG = { compress: { retainRecentTurns: 1, minNetSavingsTokens: 1 } };

/** Deep-merges plain objects (arrays and scalars of `override` win). */
export function merged(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) && !Array.isArray(value) ? merged(current, value) : value;
  }
  return out;
}

/** A harness with DCP and its handles. */
export interface DcpHarness extends TestHarness {
  readonly plugin: DcpPlugin;
  readonly runtime: DcpRuntime;
  /** The live index of the session (built on first use). */
  index(): DcpIndex;
}

/** Options: the harness options plus a `dcp` configuration merged over {@link TEST_DCP_CONFIG}. */
export interface DcpHarnessOptions extends Omit<TestHarnessOptions, 'plugins' | 'config'> {
  readonly dcp?: Record<string, unknown>;
  /** Use this `dcp` configuration as is (no test defaults). */
  readonly rawDcp?: unknown;
  /** Plugins applied before DCP (outer pre-step listeners when they do not prepend). */
  readonly plugins?: readonly Plugin[];
  /** Plugins applied after DCP (their pre-step listeners run downstream of DCP's). */
  readonly pluginsAfter?: readonly Plugin[];
  /** Options of the DCP plugin itself (for example `fullLogTasks`). */
  readonly pluginOptions?: DcpPluginOptions;
}

/** Creates the real harness with the DCP plugin (after any extra plugins). */
export function createDcpHarness(options: DcpHarnessOptions = {}): DcpHarness {
  const plugin = dcpPlugin(options.pluginOptions);
  const dcp = options.rawDcp !== undefined ? options.rawDcp : merged(TEST_DCP_CONFIG, options.dcp ?? {});
  const harness = createTestHarness({
    ...options,
    plugins: [...(options.plugins ?? []), plugin, ...(options.pluginsAfter ?? [])],
    config: { dcp },
  });
  const runtime = plugin.runtime;
  if (runtime === undefined) throw new Error('DCP was not mounted');
  return Object.assign(harness, { plugin, runtime, index: () => runtime.indexFor(harness.session) });
}

/** A reply that calls `compress` with `topic` and `content` (one tool call, id `call-<n>` unless given). */
export function compressReply(content: unknown, topic = 'old work', id?: string): ScriptedReply {
  return { toolCalls: [{ name: 'compress', args: { topic, content }, ...(id === undefined ? {} : { id }) }] };
}

/** One range entry. */
export function range(
  startRef: string,
  endRef: string,
  summary = 'Summary of the earlier work: files a.ts and b.ts were changed.',
): Record<string, string> {
  return { startRef, endRef, summary };
}

/** A `read` tool returning `contents of <path>`, the `text` given in the arguments, or `size` × `L`. */
export const readTool: ToolDefinition = {
  name: 'read',
  description: 'Read a file.',
  parameters: { type: 'object' },
  concurrencySafe: true,
  execute: (args) => {
    const record = args as Record<string, unknown>;
    if (typeof record['size'] === 'number') return 'L'.repeat(record['size']);
    return typeof record['text'] === 'string'
      ? record['text']
      : `contents of ${String(record['path'] ?? record['file_path'] ?? record['filePath'])}`;
  },
};

/** Runs one prompt to completion. */
export async function turn(harness: TestHarness, text: string): Promise<void> {
  harness.prompt(text);
  await harness.runUntilIdle();
}

/** Text replies `text-1`, `text-2`, … for plain turns. */
export function texts(count: number, prefix = 'answer'): ScriptEntry[] {
  return Array.from({ length: count }, (_, index) => ({ text: `${prefix} ${index + 1}: ${'detail '.repeat(20)}` }));
}

/** The text of a message's text blocks, joined by `\n`. */
export function messageText(message: Message | undefined): string {
  if (message === undefined) return '';
  return message.content.map((block) => (block.type === 'text' ? (block as { text: string }).text : '')).join('\n');
}

/** Every DCP marker message in the log as `{seq, ref, text}`. */
export function loggedMarkers(session: Session): Array<{ seq: number; ref: string; text: string }> {
  const out: Array<{ seq: number; ref: string; text: string }> = [];
  for (const event of session.events) {
    if (event.type !== 'user/message' || event.surfaceOp !== 'append') continue;
    const message = event.data as Message;
    if (message.source['plugin'] !== 'dsh-dcp') continue;
    const text = messageText(message);
    const match = MARKER_STRICT_RE.exec(text.split('\n')[0] as string);
    if (match !== null) out.push({ seq: event.seq, ref: match[1] as string, text });
  }
  return out;
}

/** The tool result texts of `compress` calls, in log order, with their error flag. */
export function compressResults(session: Session): Array<{ text: string; isError: boolean; seq: number }> {
  const compressCalls = new Set(
    session.events
      .filter((event) => event.type === 'tool/call' && (event.data as { name: string }).name === 'compress')
      .map((event) => (event.data as { callId: string }).callId),
  );
  const out: Array<{ text: string; isError: boolean; seq: number }> = [];
  for (const event of session.events) {
    if (event.type !== 'tool/result' || event.surfaceOp !== 'append') continue;
    const block = (event.data as { message: Message }).message.content[0] as unknown as {
      toolCallId: string;
      content: Array<{ text: string }>;
      isError: boolean;
    };
    if (!compressCalls.has(block.toolCallId)) continue;
    out.push({ text: block.content.map((inner) => inner.text).join('\n'), isError: block.isError, seq: event.seq });
  }
  return out;
}

/** The types of DCP-written or compaction events (brackets, prunes) in the log. */
export function compactionEvents(session: Session): SessionEvent[] {
  return session.events.filter((event) => event.type.startsWith('compaction/'));
}

/**
 * The checks every DCP test log must pass: a reload from cloned events derives the same messages (and passes
 * host validation, or it would throw), a cold fold agrees, only known types were written, every replace is
 * directly preceded by a metering event with the same range, and the live index equals a cold replay.
 */
export function expectHealthyLog(harness: DcpHarness): void {
  const { session } = harness;
  const live = session.deriveMessages();
  const reloaded = harness.reload();
  expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(live));
  const cloned = structuredClone(session.events) as SessionEvent[];
  expect(JSON.stringify(deriveModelMessages(cloned, foldSurface(cloned)))).toBe(JSON.stringify(live));
  for (const event of session.events) expect(KNOWN_EVENT_TYPES.has(event.type), event.type).toBe(true);
  expectEveryReplacePriced(session.events);
  expect(session.meter.measure().projectedTokens).toBe(session.meter.measure().surfaceTokens);
  expect(indexSnapshot(harness.index(), session.events)).toEqual(indexSnapshot(coldIndex(harness), session.events));
}

/** A cold replay of the harness session's whole log, with its own counters and no logging. */
export function coldIndex(harness: DcpHarness, events: readonly SessionEvent[] = harness.session.events): DcpIndex {
  const options = { ...harness.runtime.indexOptions(), counters: undefined, onDiagnostic: undefined };
  return replayDcpIndex(events, options, currentWindowLookup(harness.session));
}

/** Every replace comes directly after a `compaction/summary` or `compaction/prune` with the same start/end. */
export function expectEveryReplacePriced(events: readonly SessionEvent[]): void {
  for (const event of events) {
    const op = event.surfaceOp;
    if (typeof op !== 'object') continue;
    const previous = events[event.seq - 1] as SessionEvent;
    expect(['compaction/summary', 'compaction/prune'], `metering before replace s${event.seq}`).toContain(previous.type);
    const range = (previous.data as { shadowedRange: { start: number; end: number } }).shadowedRange;
    expect(range).toEqual({ start: op.start, end: op.end });
  }
}

/** A DCP runtime outside the loop (for sessions built event by event), with the test defaults merged in. */
export function standaloneRuntime(dcp: Record<string, unknown> = {}): DcpRuntime {
  return new DcpRuntime(resolveDcpConfig(merged(TEST_DCP_CONFIG, dcp)).config, silentLogger);
}

/** A marker message for `ref` (turn/step attributes as given), created like DCP creates its markers. */
export function markerMessage(ref: string, turnNumber = 1, step = 0, extraLines: readonly string[] = []): UserMessage {
  const text = [buildMarkerText({ ref, turn: turnNumber, step }), ...extraLines].join('\n');
  return createUserMessage(markerMessageInput(text));
}

/** A plain user message. */
export function userMessage(text: string, source: Record<string, unknown> = { kind: 'user' }): UserMessage {
  return createUserMessage({ source: source as { kind: string }, content: [{ type: 'text', text }] });
}

/** Appends a log-only filler event (no surface change, no turn rule). */
export function filler(session: Session): void {
  session.append('goal/change', {});
}

/** A plugin whose pre-step listener (downstream of DCP) adds `message` at the first pre-step (step 1) of turn `turnNumber`. */
export function injectAtTurn(turnNumber: number, message: () => UserMessage): Plugin {
  return {
    name: `inject-${turnNumber}`,
    apply: (context) =>
      context.on('agent/pre-step', async (payload, next) => {
        const decision = await next();
        if (decision.kind !== 'enter' || payload.turn !== turnNumber || payload.step !== 1) return decision;
        return { kind: 'enter', messages: [...decision.messages, message()] };
      }),
  };
}

/**
 * A standalone compaction bracket (no open turn) over the surface nodes `start..end` whose checkpoint carries
 * `source`, priced exactly. Returns the checkpoint seq.
 */
export function bracketWithSource(
  session: Session,
  compactionId: string,
  start: number,
  end: number,
  source: Record<string, unknown>,
  text = 'checkpoint',
): number {
  const shadowed = session.surface.slice(session.surface.positionOf(start), session.surface.positionOf(end) + 1);
  const tokens = shadowed.reduce((sum, seq) => sum + (session.meter.estimateOf(seq) ?? 0), 0);
  const startSeq = session.append('compaction/start', { compactionId, turn: null }).seq;
  const summarySeq = session.append('compaction/summary', {
    compactionId,
    summary: [{ type: 'text', text }],
    shadowedRange: { start, end },
    shadowedSeqs: shadowed,
    shadowedTokenCount: tokens,
    provider: 'p',
    model: 'm',
  }).seq;
  const message = createUserMessage({ source: source as { kind: string }, content: [{ type: 'text', text }] });
  const checkpoint = session.append('user/message', message, {
    surfaceOp: { op: 'replace', start, end },
    sourceEventSeqs: [startSeq, summarySeq, ...shadowed],
  }).seq;
  session.append('compaction/end', { compactionId, turn: null });
  return checkpoint;
}

/** The text of the checkpoint of block `ref`. */
export function blockText(harness: DcpHarness, ref: string): string {
  const block = harness.index().block(ref);
  if (block === undefined) throw new Error(`no block ${ref}`);
  return messageText(harness.session.events[block.seq]!.data as Message);
}

/** A session built event by event reloads (host validation in seed mode) to the same derived messages. */
export function expectSessionReloads(session: Session): void {
  const reloaded = Session.create(session.id, { header: session.header, seed: structuredClone(session.events) });
  expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(session.deriveMessages()));
  expectEveryReplacePriced(session.events);
}

/**
 * Two plugins that hold the compaction lock across DCP's pre-step in turn `turnNumber`: `inner` (apply after DCP,
 * so it runs downstream) opens a bracket of that turn, and `outer` (apply before DCP) closes it once DCP returned.
 */
export function busyDuringPreStep(turnNumber: number): { readonly outer: Plugin; readonly inner: Plugin } {
  const compactionId = `native-busy-${turnNumber}`;
  return {
    outer: {
      name: 'busy-outer',
      apply: (context) =>
        context.on('agent/pre-step', async (payload, next) => {
          const decision = await next();
          if (payload.turn === turnNumber && payload.step === 1)
            payload.session.append('compaction/end', { compactionId, turn: turnNumber, error: { message: 'gave up' } });
          return decision;
        }),
    },
    inner: {
      name: 'busy-inner',
      apply: (context) =>
        context.on('agent/pre-step', async (payload, next) => {
          if (payload.turn === turnNumber && payload.step === 1)
            payload.session.append('compaction/start', { compactionId, turn: turnNumber });
          return next();
        }),
    },
  };
}

/**
 * The nine scripted DCP conversations of `test/fixtures/dcp-dsh/` run through `script run`'s composition (the real
 * host, the reference service and DCP mounted, as `sessionctx script run` mounts them) and compared, record by record,
 * with what dsh + dsh-dcp recorded for them. Ids, times and seq offsets are set aside (dsh also logs
 * `agent/inbox/spliced` and a `request/context` for every request); the deliberate differences are the explicit,
 * commented allow-list below, each entry citing the docs section that documents it. Every other compared record must
 * match byte for byte: JSON serialisations with key order.
 *
 * Compared: the host's own records (turn and step records, user prompts, `tool/call`, the `tool/result` of every
 * tool but `compress`, `command/run`, assistant messages), DCP's boundary markers and inline-cleanup replacements, and
 * the `request/context` records of a scenario with a context window. Usage fields are the scripted model's and
 * compared only for presence (allow-list entry `scripted-model-stream`); `assistant/chunk` records are the scripted
 * model's stream and left out (HOST.md §12). The allow-list is documented in DCP.md §20.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dcpPlugin } from '../../src/main/dcp/dcp-plugin.js';
import { runScenario } from '../../src/main/scenario/run-scenario.js';
import { parseScenario } from '../../src/main/scenario/scenario.js';
import { JsonlSessionStore } from '../../src/main/store/jsonl-store.js';
import { asSessionId } from '../../src/protocol/events.js';
import { DCP_DSH } from '../support/fixtures.js';

const SCENARIOS = ['s1-markers', 's2-compress', 's3-errors', 's4-dedup', 's7-nudge', 's8-nudge-nowindow', 's9-manual', 's10-trigger-sweep', 's11-expand'] as const;

interface LoggedEvent {
  readonly type: string;
  readonly seq: number;
  readonly data: Record<string, unknown>;
  readonly surfaceOp?: unknown;
}

/** Records only dsh writes, skipped (fixture README): the inbox splices and the per-request context record. */
const DSH_ONLY = new Set(['agent/inbox/spliced', 'request/context']);

/** The record types compared so far (see the file comment). */
const COMPARED = new Set(['turn/start', 'turn/end', 'step/start', 'step/end', 'tool/call', 'tool/result', 'command/run', 'user/message', 'assistant/message']);

/**
 * Compress calls whose outcome (error or not) differs between the two logs, and the calls after the first of them
 * (entry `diverged-compress-outcomes`); set per scenario by {@link computeDivergence}.
 */
let divergence: { diverged: ReadonlySet<string>; after: ReadonlySet<string> } = { diverged: new Set(), after: new Set() };

/** The `isError` of each compress call's appended result, in log order. */
function compressOutcomes(events: readonly LoggedEvent[]): Map<string, boolean> {
  const compress = new Set(events.filter((event) => event.type === 'tool/call' && event.data['name'] === 'compress').map((event) => String(event.data['callId'])));
  const out = new Map<string, boolean>();
  for (const event of events) {
    if (event.type !== 'tool/result' || event.surfaceOp !== 'append') continue;
    const message = event.data['message'] as { source?: { callId?: string }; content?: Array<{ isError?: boolean }> };
    const callId = message.source?.callId ?? '';
    if (compress.has(callId)) out.set(callId, message.content?.[0]?.isError === true);
  }
  return out;
}

function computeDivergence(ours: readonly LoggedEvent[], dsh: readonly LoggedEvent[]): void {
  const mine = compressOutcomes(ours);
  const theirs = compressOutcomes(dsh);
  const diverged = new Set<string>();
  const after = new Set<string>();
  for (const [callId, isError] of mine) {
    if (diverged.size > 0) after.add(callId);
    if (theirs.get(callId) !== isError) diverged.add(callId);
  }
  divergence = { diverged, after };
}

/** The compress calls of the log being normalised (their results are allow-listed, §7.13). */
let compressCallIds = new Set<string>();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The allow-list: each entry rewrites what a deliberate, documented difference touches, on both sides alike, to
 * the same placeholder, so that the rest of the record is still compared byte for byte.
 */
const ALLOW_LIST: ReadonlyArray<{ readonly name: string; readonly apply: (event: LoggedEvent, side: 'dsh' | 'ours') => LoggedEvent | undefined }> = [
  {
    // HOST.md §12: the scripted model is the generator's, not the host's. dsh's fixture model reports a constant
    // usage; ours estimates it. The host logs what the model streams in both, so only the presence is compared.
    name: 'scripted-model-stream',
    apply: (event) => (event.type === 'assistant/message' && 'usage' in event.data ? { ...event, data: { ...event.data, usage: '<usage>' } } : event),
    // (The inline-cleanup replacement of a compress call, DCP.md §7.12, carries no usage on either side and is
    // compared whole.)
  },
  {
    // DCP.md §7.13: the compress result text and `Range status:` block are the contract's, not dsh-dcp's.
    name: 'compress-result-text',
    apply: (event) => (event.type === 'tool/result' && isCompressResult(event) ? undefined : event),
  },
  {
    // DCP.md §8.3 / §8.1 rule 5: dedup replacements (tool/result replacements) come at our timing, one batch a turn.
    name: 'dedup-timing',
    apply: (event) => (event.type === 'tool/result' && event.surfaceOp !== 'append' ? undefined : event),
  },
  {
    // DCP.md §7.11 (one transaction per range) and §7.14 (the manual-mode gate): a compress call can commit on one
    // side and fail on the other (s3's overlapping pair commits its first range here; s9's compress under manual mode
    // is refused here). The inline-cleanup replacement of such a call exists on one side only, and every block
    // committed after it is numbered one apart, so later `[stored in bN]` numbers are masked.
    name: 'diverged-compress-outcomes',
    apply: (event) => {
      if (event.type !== 'assistant/message' || event.surfaceOp === 'append') return event;
      const message = event.data['message'] as { content?: Array<{ type?: string; id?: string; arguments?: unknown }> } | undefined;
      const calls = (message?.content ?? []).filter((block) => block.type === 'tool-call').map((block) => String(block.id));
      if (calls.some((id) => divergence.diverged.has(id))) return undefined;
      if (!calls.some((id) => divergence.after.has(id))) return event;
      const content = (message?.content ?? []).map((block) => (typeof block.arguments === 'string' ? { ...block, arguments: block.arguments.replace(/\[stored in b\d+\]/g, '[stored in b<n>]') } : block));
      return { ...event, data: { ...event.data, message: { ...message, content } } };
    },
  },
  {
    // DCP.md §9: the pressure percentage counts our system guidance and compress schema (the seed's, longer texts,
    // DCP.md §10, §7.2), so the number in a pressure nudge differs; the line and where it fires must match.
    name: 'nudge-pressure-percent',
    apply: (event) => mapMarkerText(event, (text) => text.replace(/context is at \d+% of the model window/, 'context is at <n>% of the model window')),
  },
  {
    // DCP.md §4.6: our markers carry the manual line on first-pre-step markers while manual mode differs from its
    // default; dsh-dcp never tells the model.
    name: 'manual-line',
    apply: (event, side) => (side === 'ours' ? mapMarkerText(event, (text) => text.split('\n').filter((line) => !line.startsWith('DCP manual mode:')).join('\n')) : event),
  },
];

function isCompressResult(event: LoggedEvent): boolean {
  const message = event.data['message'] as { source?: { callId?: string } } | undefined;
  return compressCallIds.has(message?.source?.callId ?? '');
}

function mapMarkerText(event: LoggedEvent, map: (text: string) => string): LoggedEvent {
  if (event.type !== 'user/message') return event;
  const source = event.data['source'] as { plugin?: string } | undefined;
  if (source?.plugin !== 'dsh-dcp') return event;
  const content = event.data['content'] as Array<{ type: string; text: string }>;
  return { ...event, data: { ...event.data, content: content.map((block) => (block.type === 'text' ? { ...block, text: map(block.text) } : block)) } };
}

/**
 * DCP.md §11.2 (command-time pre-checks): a `/dcp decompress|recompress` that cannot succeed (an unknown block, one
 * already expanded) is refused when the command runs and appends nothing more; dsh-dcp schedules a control turn that
 * fails inside it. On the dsh side the empty control turn (`turn/start`, `turn/end`, no step) that follows such a
 * command's `command/run` is set aside; `refused` holds the ordinals (among `command/run` records) of the commands
 * our run refused.
 */
function withoutRefusedControlTurns(events: readonly LoggedEvent[], refused: ReadonlySet<number>): LoggedEvent[] {
  const dropped = new Set<number>();
  let afterRefused = false;
  let commands = 0;
  events.forEach((event, at) => {
    if (event.type === 'command/run') afterRefused = refused.has(commands++);
    else if (event.type === 'turn/start' && afterRefused) {
      afterRefused = false;
      // dsh logs the command's `command/done` inside the control turn it opened; the turn has no step.
      const end = events.findIndex((later, index) => index > at && (later.type === 'turn/end' || later.type === 'step/start'));
      if (end !== -1 && events[end]?.type === 'turn/end') dropped.add(at).add(end);
    } else if (event.type !== 'command/done') afterRefused = false;
  });
  return events.filter((_, at) => !dropped.has(at));
}

/** Ids by first appearance, times dropped, seqs as positions among the compared-from records. */
function normalise(events: readonly LoggedEvent[], side: 'dsh' | 'ours', refused: ReadonlySet<number> = new Set()): string[] {
  const kept = withoutRefusedControlTurns(events.filter((event) => !DSH_ONLY.has(event.type)), side === 'dsh' ? refused : new Set());
  compressCallIds = new Set(kept.filter((event) => event.type === 'tool/call' && event.data['name'] === 'compress').map((event) => String(event.data['callId'])));
  const ids = new Map<string, string>();
  const idOf = (value: string): string => {
    if (!ids.has(value)) ids.set(value, `<id${ids.size}>`);
    return ids.get(value) as string;
  };
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (typeof value === 'object' && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, k);
      return out;
    }
    if (typeof value === 'string' && (key === 'id' || key === 'commandId' || UUID.test(value))) return idOf(value);
    return value;
  };
  const out: string[] = [];
  const selected: LoggedEvent[] = [];
  for (const event of kept) {
    if (!COMPARED.has(event.type)) continue;
    if (event.type === 'user/message') {
      const source = event.data['source'] as { kind?: string; plugin?: string } | undefined;
      // Checkpoints, purge texts and control messages are DCP's own records, not yet compared.
      if (!(source?.kind === 'user' || (source?.plugin === 'dsh-dcp' && String((event.data['content'] as Array<{ text?: string }>)[0]?.text).startsWith('<dcp-boundary')))) continue;
    }
    let current: LoggedEvent | undefined = { type: event.type, seq: event.seq, data: event.data, ...(event.surfaceOp === undefined ? {} : { surfaceOp: event.surfaceOp }) };
    for (const entry of ALLOW_LIST) {
      if (current === undefined) break;
      current = entry.apply(current, side);
    }
    if (current !== undefined) selected.push(current);
  }
  // Seqs differ by offsets (dsh's extra records, the scripted models' chunking): a seq a record refers to becomes the
  // position of the referenced record among the compared ones, `<uncompared>` when that record is not compared.
  const position = new Map(selected.map((event, index) => [event.seq, index]));
  const at = (seq: unknown): unknown => (typeof seq === 'number' ? (position.get(seq) ?? '<uncompared>') : seq);
  for (const event of selected) {
    const surfaceOp = typeof event.surfaceOp === 'object' && event.surfaceOp !== null
      ? { ...(event.surfaceOp as Record<string, unknown>), start: at((event.surfaceOp as { start?: unknown }).start), end: at((event.surfaceOp as { end?: unknown }).end) }
      : event.surfaceOp;
    out.push(JSON.stringify({ type: event.type, data: walk(event.data), ...(surfaceOp === undefined ? {} : { surfaceOp }) }));
  }
  return out;
}

describe('script run against what dsh + dsh-dcp recorded (test/fixtures/dcp-dsh)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-dsh-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  for (const name of SCENARIOS) {
    it(`${name}: host records and boundary markers match dsh's byte for byte, allow-list aside`, async () => {
      const scenario = parseScenario(JSON.parse(readFileSync(join(DCP_DSH, `${name}.scenario.json`), 'utf8')) as unknown);
      const recorded = JSON.parse(readFileSync(join(DCP_DSH, `${name}.dsh.json`), 'utf8')) as { events: LoggedEvent[]; requests: unknown[] };
      const store = await JsonlSessionStore.open({ root: join(root, name), compression: 'none', titleIndex: false });
      const requests: Array<{ tools: ReadonlyArray<{ name: string }> }> = [];
      const run = await runScenario(scenario, store, { plugins: [dcpPlugin()], onModelRequest: (request) => requests.push(request) });
      const { events } = await store.inspect(asSessionId(run.sessionId));
      // Request by request: as many, with the same tools in the same order (their descriptions: DCP.md §20 #2).
      const toolNames = (list: ReadonlyArray<{ tools: ReadonlyArray<{ name: string }> }>): string[][] => list.map((request) => request.tools.map((tool) => tool.name));
      expect(toolNames(requests)).toEqual(toolNames(recorded.requests as Array<{ tools: Array<{ name: string }> }>));
      // The ordinals of the `/dcp` commands our run refused at command time (every scenario command is registered, so
      // the k-th command step is the k-th `command/run` of either log).
      const refused = new Set(run.commands.flatMap((command, ordinal) => (command.kind === 'error' ? [ordinal] : [])));
      // The window a scenario runs with is recorded as dsh records it (HOST.md §12): after each `request/header`,
      // `request/context {provider, model, contextWindow}`. dsh also writes one without a window; ours only with one.
      const contexts = (log: readonly LoggedEvent[]): string[] => log.filter((event) => event.type === 'request/context').map((event) => JSON.stringify(event.data));
      expect(contexts(events as unknown as LoggedEvent[])).toEqual(contexts(recorded.events).filter((data) => data.includes('"contextWindow"')));
      if (scenario.contextWindow !== undefined) expect(contexts(events as unknown as LoggedEvent[]).length).toBeGreaterThan(0);
      computeDivergence(events as unknown as LoggedEvent[], recorded.events);
      expect(normalise(events as unknown as LoggedEvent[], 'ours')).toEqual(normalise(recorded.events, 'dsh', refused));
    });
  }
});

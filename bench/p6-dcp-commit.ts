/**
 * DCP.md §19 D3 in full: one whole `compress` tool execution for one range — whole-call checks, author lookup,
 * resolution, validation (E8–E14, appendix, net savings), the synchronous metered bracket (`compaction/start`,
 * `compaction/summary`, checkpoint replace, `compaction/end`) and the inline cleanup unit — on corpus logs of 1k,
 * 50k and 200k events, with 10-, 100- and 1,000-node ranges. The issue-6 P6 suite timed validation only.
 *
 * Every sample runs on a fresh copy of the log (copying is not timed), in a new turn whose assistant message holds
 * the compress call, as the host would have logged it before `execute`; every sample is checked afterwards to have
 * committed a new block with exactly the bracket and cleanup events, so that no refusal is ever timed. A k-node
 * replace rejoins the surface chunks around it (surface-view.ts); each case runs at the oldest, the middle and the
 * newest compressible position of the surface to show that the position does not matter. The main
 * rows first run an untimed compress elsewhere on the copy (a session that has compressed before); the "cold" rows
 * time the first compress after the copy, which also pays V8 recompiling what the copy's full GCs flushed.
 */
import { resolveDcpConfig } from '../src/protocol/dcp/config.js';
import type { Agent } from '../src/main/stand-in/host/agent.js';
import type { ToolExecutionContext } from '../src/main/stand-in/host/tool-definition.js';
import { createCompressTool } from '../src/main/engine/dcp/compress-tool.js';
import type { DcpLoaded } from './support/dcp-steps.js';
import { loadDcpSession, reopenDcpSession, stepRow } from './support/dcp-steps.js';
import type { StepRow } from './support/dcp-steps.js';
import { markdownTable } from './support/measure.js';

/** The shipped defaults: `retainRecentTurns = 2`, `minNetSavingsTokens = 256`, strategies at turn start. */
const CONFIG = resolveDcpConfig({}).config;

const CALL_ID = 'bench-compress-call';
const SIGNAL = new AbortController().signal;
/** A plain-prose summary of about 100 tokens: long enough to be real, short enough to save ≥ 256 tokens on 10 nodes. */
const SUMMARY =
  `Earlier work: read src/file-1.ts through the listed files, compared their exports, decided to keep the alpha/beta split, and left one open item: ${'confirm the gamma delta path. '.repeat(6)}`.trim();

/** Where in the surface a range sits. */
type Position = 'oldest' | 'middle' | 'newest';

/** One benchmark case: log size, range size in nodes, position, and whether a compress ran on the copy before. */
interface Case {
  readonly size: number;
  readonly count: number;
  readonly position: Position;
  readonly warm: boolean;
}

/** A chosen range on a loaded log. */
interface ChosenRange {
  readonly startRef: string;
  readonly endRef: string;
  /** Surface nodes in the range. */
  readonly nodes: number;
  readonly startPos: number;
  readonly surfaceLength: number;
}

/** Active markers of the surface in position order. */
function surfaceMarkers(loaded: DcpLoaded): Array<{ position: number; ref: string }> {
  const { surface } = loaded.session;
  const markers: Array<{ position: number; ref: string }> = [];
  for (let position = 0; position < surface.length; position++) {
    const ref = loaded.index.markerRefAt(surface.at(position)!);
    if (ref !== undefined) markers.push({ position, ref });
  }
  return markers;
}

/**
 * A marker pair spanning exactly `count` nodes (else the closest pair spanning more) whose end marker is at or
 * before the anchor end; the anchor is the first marker (oldest), the marker nearest the middle, or the last
 * marker outside retention (newest). The call runs in turn `highestTurn + 1`, so nodes of the highest turn are
 * retained (§7.6 with `retainRecentTurns = 2`).
 */
function chooseRange(loaded: DcpLoaded, count: number, position: Position): ChosenRange {
  const { session, index } = loaded;
  const surface = session.surface;
  const markers = surfaceMarkers(loaded);
  const limit = (session.highestTurn() ?? 0) + 1 - CONFIG.compress.retainRecentTurns;
  const eligible = markers.filter((marker) => marker.position > 0 && index.turnOf(surface.at(marker.position - 1)!) <= limit);
  let endIndex: number;
  if (position === 'newest') endIndex = eligible.length - 1;
  else if (position === 'middle') endIndex = eligible.findIndex((marker) => marker.position >= surface.length / 2);
  else endIndex = eligible.findIndex((marker) => marker.position - eligible[0]!.position >= count);
  // Search a few end markers around the anchor for an exact span, so that every log gets the same range shape.
  const direction = position === 'oldest' ? 1 : -1;
  const newestFirst = [...markers].reverse();
  let fallback: ChosenRange | undefined;
  for (let step = 0; step < 64; step++) {
    const end = eligible[endIndex + direction * step];
    if (end === undefined) break;
    const start = newestFirst.find((marker) => end.position - marker.position >= count);
    if (start === undefined) continue;
    const chosen = {
      startRef: start.ref,
      endRef: end.ref,
      nodes: end.position - start.position,
      startPos: start.position,
      surfaceLength: surface.length,
    };
    if (chosen.nodes === count) return chosen;
    fallback ??= chosen;
  }
  if (fallback === undefined) throw new Error(`no ${count}-node range at ${position} of a ${session.events.length}-event log`);
  return fallback;
}

/**
 * The newest eligible marker pair spanning exactly `count` nodes that does not overlap `avoid` (the warm-up call's
 * range); a tool step's first half (4 nodes with its 2 KB result) passes net savings.
 */
function disjointRange(loaded: DcpLoaded, count: number, avoid: ChosenRange): ChosenRange {
  const { session, index } = loaded;
  const surface = session.surface;
  const markers = surfaceMarkers(loaded);
  const limit = (session.highestTurn() ?? 0) + 1 - CONFIG.compress.retainRecentTurns;
  const avoidEnd = avoid.startPos + avoid.nodes;
  for (let endIndex = markers.length - 1; endIndex > 0; endIndex--) {
    const end = markers[endIndex]!;
    if (index.turnOf(surface.at(end.position - 1)!) > limit) continue;
    const start = markers
      .slice(0, endIndex)
      .reverse()
      .find((marker) => end.position - marker.position >= count);
    if (start === undefined || end.position - start.position !== count) continue;
    if (end.position <= avoid.startPos || start.position >= avoidEnd) {
      return { startRef: start.ref, endRef: end.ref, nodes: count, startPos: start.position, surfaceLength: surface.length };
    }
  }
  throw new Error(`no ${count}-node range outside ${avoid.startRef}..${avoid.endRef}`);
}

/** The compress arguments for one range. */
function argumentsFor(range: ChosenRange): { topic: string; content: Array<{ startRef: string; endRef: string; summary: string }> } {
  return { topic: 'bench old work', content: [{ startRef: range.startRef, endRef: range.endRef, summary: SUMMARY }] };
}

/**
 * Opens a new turn on `loaded` with an assistant message holding the compress call and its `tool/call`, as the
 * host logs them before running the tool; returns the execution context.
 */
function openCall(loaded: DcpLoaded, args: unknown, callId = CALL_ID): ToolExecutionContext {
  const { session } = loaded;
  const turn = (session.highestTurn() ?? 0) + 1;
  const argumentsText = JSON.stringify(args);
  session.append('turn/start', { turn });
  session.append('step/start', { turn, step: 1 });
  session.append(
    'assistant/message',
    {
      turn,
      step: 1,
      message: {
        role: 'assistant',
        content: [{ type: 'tool-call', id: callId, name: 'compress', arguments: argumentsText }],
        source: { kind: 'model', provider: 'bench', model: 'bench-1' },
        id: `author-${callId}`,
      },
    },
    { surfaceOp: 'append' },
  );
  session.append('tool/call', { turn, step: 1, callId, name: 'compress', arguments: argumentsText });
  return { callId, turn, step: 1, signal: SIGNAL, agent: {} as Agent, session };
}

/** Closes the call's turn as the host would: its `tool/result`, `step/end`, `turn/end`. */
function closeCall(loaded: DcpLoaded, exec: ToolExecutionContext, text: string): void {
  const { session } = loaded;
  const callSeq = loaded.index.call(exec.callId)?.callSeq;
  session.append(
    'tool/result',
    {
      turn: exec.turn,
      step: 1,
      message: {
        source: { kind: 'tool', callId: exec.callId },
        content: [{ type: 'tool-result', toolCallId: exec.callId, content: [{ type: 'text', text }], isError: false }],
        role: 'user',
        id: `result-${exec.callId}`,
      },
    },
    callSeq === undefined ? { surfaceOp: 'append' } : { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
  );
  session.append('step/end', { turn: exec.turn, step: 1 });
  session.append('turn/end', { turn: exec.turn, reason: { kind: 'completed' } });
}

/** One verified, untimed compress call of `range` with its turn closed. */
function warmCall(loaded: DcpLoaded, range: ChosenRange): void {
  const tool = createCompressTool(loaded.runtime);
  const args = argumentsFor(range);
  const exec = openCall(loaded, args, 'bench-warm-call');
  const before = { events: loaded.session.events.length, maxBlock: loaded.index.maxBlockNumber };
  const text = String(tool.execute(args, exec));
  verifyCommitted(loaded, before, text, range);
  closeCall(loaded, exec, text);
}

/** Events one committed range with a successful inline cleanup writes: the 4-event bracket and the 2-event cleanup unit. */
const EVENTS_PER_COMMIT = 6;

/** Throws unless the execution committed exactly one new block with its bracket and cleanup. */
function verifyCommitted(loaded: DcpLoaded, before: { events: number; maxBlock: number }, text: string, range: ChosenRange): void {
  const { session, index } = loaded;
  const blockRef = `b${before.maxBlock + 1}`;
  const expectedLine = `1. ${range.startRef}..${range.endRef}: committed as ${blockRef} (${range.nodes} message(s),`;
  const problems: string[] = [];
  if (!text.startsWith(`Compressed ${range.nodes} message(s) into ${blockRef}.`)) problems.push('result head');
  if (!text.includes(expectedLine)) problems.push('status line');
  if (text.includes('cleanup warning')) problems.push('cleanup warned');
  if (index.maxBlockNumber !== before.maxBlock + 1 || index.block(blockRef) === undefined) problems.push(`no block ${blockRef}`);
  if (session.events.length !== before.events + EVENTS_PER_COMMIT) problems.push(`log grew by ${session.events.length - before.events}`);
  const types = session.events
    .slice(before.events)
    .map((event) => event.type)
    .join(',');
  if (types !== 'compaction/start,compaction/summary,user/message,compaction/end,compaction/prune,assistant/message')
    problems.push(`types ${types}`);
  if (session.openBrackets().length > 0) problems.push('bracket left open');
  if (problems.length > 0) throw new Error(`compress did not commit (${problems.join('; ')}): ${text}`);
}

/**
 * One timed execution on a fresh copy of `base`; returns milliseconds. With `warm`, an untimed compress of another
 * range runs first on the same copy (a session that has compressed before); else the timed call is the first
 * compress after the copy, and pays V8's recompilation of code and regexps a full GC of the copy's build flushed.
 */
function sample(base: DcpLoaded, range: ChosenRange, warm: ChosenRange | undefined): number {
  const loaded = reopenDcpSession(base, CONFIG);
  if (warm !== undefined) warmCall(loaded, warm);
  const tool = createCompressTool(loaded.runtime);
  const args = argumentsFor(range);
  const exec = openCall(loaded, args);
  const before = { events: loaded.session.events.length, maxBlock: loaded.index.maxBlockNumber };
  const start = performance.now();
  const text = tool.execute(args, exec);
  const elapsed = performance.now() - start;
  verifyCommitted(loaded, before, String(text), range);
  return elapsed;
}

function caseName(item: Case): string {
  return `${item.count}-node range @ ${item.size}, ${item.position}${item.warm ? '' : ', cold'}`;
}

/** The same range without the warm-up call (both share the chosen range). */
function rangeKey(item: Case): string {
  return `${item.count}@${item.size}/${item.position}`;
}

/** Samples per case, by log size (a 200k copy costs about a second to build). */
const RUNS: Record<number, number> = { 1000: 41, 50000: 21, 200000: 13 };

/** The 4-node span of the warm-up call: a tool step's first half. */
const WARM_NODES = 4;

/** Runs D3 and returns its markdown report. */
export async function runD3(): Promise<string> {
  const positions: Position[] = ['oldest', 'middle', 'newest'];
  const cases: Case[] = [];
  for (const position of positions) {
    for (const warm of [true, false]) {
      cases.push({ size: 1_000, count: 10, position, warm }, { size: 200_000, count: 10, position, warm });
      for (const count of warm ? [10, 100, 1_000] : [1_000]) cases.push({ size: 50_000, count, position, warm });
    }
  }
  const loadedBySize = new Map<number, DcpLoaded>();
  for (const size of [1_000, 50_000, 200_000]) loadedBySize.set(size, loadDcpSession(size, CONFIG, 'd3'));
  const ranges = new Map<string, ChosenRange>();
  const warmRanges = new Map<string, ChosenRange>();
  for (const item of cases) {
    if (ranges.has(rangeKey(item))) continue;
    const loaded = loadedBySize.get(item.size)!;
    const range = chooseRange(loaded, item.count, item.position);
    ranges.set(rangeKey(item), range);
    warmRanges.set(rangeKey(item), disjointRange(loaded, WARM_NODES, range));
  }
  const run = (item: Case): number =>
    sample(loadedBySize.get(item.size)!, ranges.get(rangeKey(item))!, item.warm ? warmRanges.get(rangeKey(item)) : undefined);

  // Warm-up: the code paths get compiled on the small log, then every case commits once untimed (and is verified).
  for (let index = 0; index < 30; index++) run(cases[0]!);
  for (const item of cases) run(item);

  // Cases are interleaved round by round so that machine noise spreads over all of them alike.
  const samples = new Map<string, number[]>(cases.map((item) => [caseName(item), []]));
  const rounds = Math.max(...Object.values(RUNS));
  for (let round = 0; round < rounds; round++) {
    for (const item of cases) {
      if (round < RUNS[item.size]!) samples.get(caseName(item))!.push(run(item));
    }
  }
  const rows: StepRow[] = cases.map((item) => stepRow(caseName(item), samples.get(caseName(item))!));
  const median = (size: number, count: number, position: Position, warm: boolean): number =>
    rows.find((row) => row.name === caseName({ size, count, position, warm }))!.medianMs;

  const verdicts = (warm: boolean): string[] =>
    positions.map((position) => {
      const small = median(1_000, 10, position, warm);
      const large = median(200_000, 10, position, warm);
      const thousand = median(50_000, 1_000, position, warm);
      const fifty = warm ? `; 10-node 50k ÷ 1k = ${(median(50_000, 10, position, warm) / small).toFixed(2)}` : '';
      return `- ${position}${warm ? '' : ', cold'}: 10-node 200k ÷ 1k = **${(large / small).toFixed(2)}** (${(small * 1000).toFixed(1)} → ${(large * 1000).toFixed(1)} µs; target ≤ 1.5: ${large / small <= 1.5 ? 'met' : 'NOT met'})${fifty}; 1,000-node @ 50k median ${thousand.toFixed(3)} ms (target < 5 ms: ${thousand < 5 ? 'met' : 'NOT met'})`;
    });
  const rangeLines = [...ranges.entries()].map(([key, range]) => {
    const warm = warmRanges.get(key)!;
    return `${key}: ${range.startRef}..${range.endRef}, ${range.nodes} nodes from position ${range.startPos} of ${range.surfaceLength} (warm-up call ${warm.startRef}..${warm.endRef})`;
  });
  const logLines = [...loadedBySize.entries()].map(
    ([size, loaded]) => `${size}: ${loaded.session.events.length} events, ${loaded.session.surface.length} surface nodes`,
  );
  return [
    '## D3 — compress validation + commit (DCP.md §19 D3)',
    '',
    `One whole \`compress\` tool execute per sample (one range; default config: retainRecentTurns ${CONFIG.compress.retainRecentTurns}, minNetSavingsTokens ${CONFIG.compress.minNetSavingsTokens}), each on a fresh copy of the log (copy not timed). Every sample is verified to have committed a new block with its 4-event bracket and 2-event inline cleanup. Rows without "cold" run an untimed, verified ${WARM_NODES}-node compress elsewhere on the copy first (its turn closed); "cold" rows time the first compress after the copy.`,
    '',
    markdownTable(rows, caseName(cases[0]!)),
    '',
    `p95 per row: ${rows.map((row) => `${row.name} ${row.p95Ms.toFixed(3)} ms`).join(', ')}.`,
    '',
    ...verdicts(true),
    ...verdicts(false),
    '',
    `Logs: ${logLines.join('; ')}.`,
    '',
    `Ranges: ${rangeLines.join('; ')}.`,
  ].join('\n');
}

/**
 * P6 (BENCHMARKS.md) and DCP.md §19 D1/D3: one DCP pre-step — the listener with the default decision, the marker
 * with its aliases, the nudge, manual and busy reads, and the index update for that step's events — on 1k, 10k
 * and 50k-event logs side by side, against a baseline that refolds the whole log every step; and compress
 * validation cost against range size, and a 10-node range at 1k against 50k.
 */
import { resolveDcpConfig } from '../src/protocol/dcp/config.js';
import { buildBoundaryMarker } from '../src/main/engine/dcp/boundary-marker.js';
import { replayDcpIndex } from '../src/main/engine/dcp/cold-replay.js';
import type { RangePlanContext } from '../src/main/engine/dcp/range-plan.js';
import { planRange } from '../src/main/engine/dcp/range-plan.js';
import type { DcpLoaded } from './support/dcp-steps.js';
import { loadDcpSession, measureDcpSteps, P6_STEP_PLAN, userPrompt } from './support/dcp-steps.js';
import { markdownTable, measure, measureSlow } from './support/measure.js';
import type { MeasuredRow } from './support/measure.js';

const CONFIG = resolveDcpConfig({ compress: { retainRecentTurns: 1, minNetSavingsTokens: 1 } }).config;

type Loaded = DcpLoaded;

function load(size: number): Loaded {
  return loadDcpSession(size, CONFIG);
}

/** The same turn, but the DCP state comes from a full refold of the log (the dsh-dcp shape the contract measures against). */
function refoldStep(loaded: Loaded): void {
  const { session } = loaded;
  const turn = (session.highestTurn() ?? 0) + 1;
  session.append('turn/start', { turn });
  const index = replayDcpIndex(session.events, loaded.runtime.indexOptions());
  const marker = buildBoundaryMarker(index, session, CONFIG, turn, 0);
  session.append('step/start', { turn, step: 1 });
  session.append('user/message', marker, { surfaceOp: 'append' });
  session.append('user/message', userPrompt(turn), { surfaceOp: 'append' });
  session.append('step/end', { turn, step: 1 });
  session.append('turn/end', { turn, reason: { kind: 'completed' } });
}

/** Two active markers at least `count` nodes apart (the closest such pair) in the older half of the surface. */
function markerRange(loaded: Loaded, count: number): { startRef: string; endRef: string; nodes: number } {
  const { surface } = loaded.session;
  const markers: Array<{ position: number; ref: string }> = [];
  for (let position = 0; position < surface.length; position++) {
    const ref = loaded.index.markerRefAt(surface.at(position)!);
    if (ref !== undefined) markers.push({ position, ref });
  }
  for (let first = 1; first < markers.length; first++) {
    const start = markers[first]!;
    const end = markers.find((marker) => marker.position - start.position >= count);
    if (end !== undefined && end.position < surface.length - 20)
      return { startRef: start.ref, endRef: end.ref, nodes: end.position - start.position };
  }
  throw new Error(`no ${count}-node marker range`);
}

function planContext(loaded: Loaded): RangePlanContext {
  const { session, index, runtime } = loaded;
  return {
    index,
    session,
    hintCount: 3,
    events: session.events,
    estimateOf: (seq) => session.meter.estimateOf(seq),
    currentTurn: (session.highestTurn() ?? 0) + 1,
    retainRecentTurns: 1,
    minNetSavingsTokens: 1,
    appendix: {
      protectUserMessages: false,
      protectTags: true,
      protectedSources: [],
      protectedTools: [],
      matchesProtectedFile: runtime.matchesProtectedFile,
    },
    authorSeq: undefined,
    topic: 'bench',
    authorMessageId: 'unknown',
    callId: 'bench',
  };
}

function validator(loaded: Loaded, size: number, count: number): { name: string; nodes: number; run: () => void } {
  const context = planContext(loaded);
  const refs = markerRange(loaded, count);
  const entry = {
    startRef: refs.startRef,
    endRef: refs.endRef,
    givenStartRef: refs.startRef,
    givenEndRef: refs.endRef,
    label: 'bench',
    summary: 'Benchmark summary.',
  };
  return {
    name: `${count}-node range @ ${size}`,
    nodes: refs.nodes,
    run: () => {
      const planned = planRange(context, entry, 'b1');
      if (!planned.ok) throw new Error(planned.error);
    },
  };
}

const { rounds: ROUNDS, firstWarmUp: FIRST_WARM_UP, warmSteps: WARM_STEPS, measuredSteps: MEASURED_STEPS } = P6_STEP_PLAN;

/** Runs P6 and returns its markdown report. */
export async function runP6(): Promise<string> {
  const sizes = [1_000, 10_000, 50_000];
  const loadedBySize = new Map<number, Loaded>();
  const coldRows: MeasuredRow[] = [];
  for (const size of sizes) {
    const loaded = load(size);
    loadedBySize.set(size, loaded);
    const events = loaded.session.events;
    replayDcpIndex(events, loaded.runtime.indexOptions());
    coldRows.push(await measureSlow(`cold index build @ ${size}`, () => replayDcpIndex(events, loaded.runtime.indexOptions()), 9));
  }
  const steps = await measureDcpSteps(sizes, loadedBySize, CONFIG);
  const refold: MeasuredRow[] = [];
  for (const size of [1_000, 50_000]) {
    const loaded = load(size);
    refold.push(await measureSlow(`refold baseline @ ${size}`, () => refoldStep(loaded), size > 10_000 ? 10 : 40));
  }
  const rows = [...steps, ...refold];

  const validation: Record<string, () => void> = {};
  const nodeCounts: string[] = [];
  for (const [size, count] of [
    [1_000, 10],
    [50_000, 10],
    [50_000, 100],
    [50_000, 1_000],
  ] as const) {
    const loaded = size === 1_000 ? load(1_000) : loadedBySize.get(50_000)!;
    const item = validator(loaded, size, count);
    validation[item.name] = item.run;
    nodeCounts.push(`${item.name}: ${item.nodes} nodes, log of ${loaded.session.events.length} events`);
  }
  const validationRows = await measure(validation, { iterations: 200, timeMs: 1000 });

  const at = (name: string): number => rows.find((row) => row.name === name)!.medianMs;
  const flat = at('pre-step @ 50000') / at('pre-step @ 1000');
  const speedup = at('refold baseline @ 50000') / at('pre-step @ 50000');
  const tenAt1k = validationRows.find((row) => row.name === '10-node range @ 1000')!.medianMs;
  const tenAt50k = validationRows.find((row) => row.name === '10-node range @ 50000')!.medianMs;
  return [
    '## P6 — DCP pre-step (DCP.md §19 D1, D3, D5)',
    '',
    'Cold index build (load), per log size:',
    '',
    markdownTable(coldRows, 'cold index build @ 1000'),
    '',
    coldRows
      .map(
        (row, index) =>
          `${row.name}: ${((row.medianMs * 1000) / loadedBySize.get(sizes[index]!)!.session.events.length).toFixed(2)} µs/event`,
      )
      .join('; '),
    '',
    "One pre-step with its step's index update, and the baseline that refolds the whole log every step:",
    '',
    markdownTable(rows, 'pre-step @ 1000'),
    '',
    `Each size runs ${ROUNDS} rounds on a fresh copy of its log (${WARM_STEPS} unmeasured warm-up steps, then ${MEASURED_STEPS} measured steps; a step appends 6 events), sizes interleaved round by round, after ${FIRST_WARM_UP} warm-up steps per size. p95 per row: ${steps.map((row) => `${row.name} ${row.p95Ms.toFixed(3)} ms`).join(', ')}.`,
    '',
    `pre-step 50k / 1k: ${flat.toFixed(2)} (target ≤ 2, median under 1 ms); refold baseline / ours at 50k: ${speedup.toFixed(0)}× (target ≥ 100×)`,
    '',
    'Compress validation (E9–E14 and the checkpoint text, no commit):',
    '',
    markdownTable(validationRows, validationRows[0]!.name),
    '',
    nodeCounts.join('; '),
    '',
    `Medians in µs: ${validationRows.map((row) => `${row.name} ${(row.medianMs * 1000).toFixed(1)} µs`).join(', ')}.`,
    '',
    `10-node range 50k / 1k: ${(tenAt50k / tenAt1k).toFixed(2)} (target ≤ 1.5); 1,000-node range at 50k target < 5 ms`,
  ].join('\n');
}

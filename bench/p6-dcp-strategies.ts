/**
 * P6 (BENCHMARKS.md) and DCP.md §19, issue 7: the DCP pre-step with the automatic strategies enabled on every step
 * (D1 at 1k / 10k / 50k / 200k events, steps with no new candidates), strategy batches of 1, 10 and 100 dedup
 * prunes at 50k with a 1k reference (§19: "batching cost stays visible"), and the cold index build at the spec's 4× sizes
 * (D5: 5k vs 20k, 50k vs 200k), all side by side in one run.
 */
import { resolveDcpConfig } from '../src/protocol/dcp/config.js';
import type { DcpConfig } from '../src/protocol/dcp/config.js';
import type { SessionEvent } from '../src/protocol/events.js';
import { replayDcpIndex } from '../src/main/engine/dcp/cold-replay.js';
import { createDcpPreStepListener } from '../src/main/engine/dcp/dcp-pre-step.js';
import type { DcpListener, DcpLoaded, StepPlan, StepRow } from './support/dcp-steps.js';
import { dcpStep, loadDcpSession, measureDcpSteps, reopenDcpSession, stepRow } from './support/dcp-steps.js';
import { markdownTable } from './support/measure.js';

/** §8.1: dedup (default on) and purge-errors on, run at every pre-step; the p6 compress settings otherwise. */
const CONFIG: DcpConfig = resolveDcpConfig({
  compress: { retainRecentTurns: 1, minNetSavingsTokens: 1 },
  strategies: { runAt: 'every-step', deduplication: { enabled: true }, purgeErrors: { enabled: true } },
}).config;

const STEP_SIZES = [1_000, 10_000, 50_000, 200_000] as const;
/** Fewer rounds than p6: every round reopens the 200k log, which dominates the run time. */
const STEP_PLAN: StepPlan = { rounds: 8, firstWarmUp: 100, warmSteps: 10, measuredSteps: 50 };

/** The contract size of the batch figures, and a 1k reference that shows whether a prune's cost depends on log length. */
const BATCH_SIZES = [1_000, 50_000] as const;
const BATCH_PRUNES = [0, 1, 10, 100] as const;
const BATCH_ROUNDS = 8;
/**
 * Per round and (size, N): copies × samples per copy. A 100-prune sample grows the log by ~1,000 events, so the 50k
 * log takes 5 samples per copy (within ~10% of 50k) and the 1k log a fresh copy per sample.
 */
const BATCH_PLAN: Readonly<Record<number, { copies: number; samplesPerCopy: number }>> = {
  1000: { copies: 5, samplesPerCopy: 1 },
  50000: { copies: 1, samplesPerCopy: 5 },
};
/** §19: the first 100 measured steps are warm-up. */
const BATCH_WARM_UP = 100;

const BUILD_PAIRS = [
  [5_000, 20_000],
  [50_000, 200_000],
] as const;
const BUILD_RUNS = 15;

function countType(events: readonly SessionEvent[], from: number, type: string): number {
  let count = 0;
  for (let seq = from; seq < events.length; seq++) if (events[seq]!.type === type) count++;
  return count;
}

let nextCall = 0;

/**
 * One turn of `paths.length` single-call `read` steps (assistant with one call, `tool/call`, a 2 KB
 * `tool/result`), written the way the corpus writes a tool step, so that the index learns each call and its
 * dedup key. No pre-step runs: this is setup, not measured work.
 */
function readTurn(loaded: DcpLoaded, paths: readonly string[]): void {
  const { session } = loaded;
  const turn = (session.highestTurn() ?? 0) + 1;
  session.append('turn/start', { turn });
  paths.forEach((path, index) => {
    const step = index + 1;
    nextCall += 1;
    const callId = `bench-call-${nextCall}`;
    const args = JSON.stringify({ file_path: path });
    session.append('step/start', { turn, step });
    session.append(
      'assistant/message',
      {
        turn,
        step,
        message: {
          role: 'assistant',
          content: [{ type: 'tool-call', id: callId, name: 'read', arguments: args }],
          source: { kind: 'model', provider: 'bench', model: 'bench-1' },
          id: `bench-ra-${nextCall}`,
        },
      },
      { surfaceOp: 'append' },
    );
    const call = session.append('tool/call', { turn, step, callId, name: 'read', arguments: args });
    session.append(
      'tool/result',
      {
        turn,
        step,
        message: {
          source: { kind: 'tool', callId },
          content: [
            { type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: `${path}\n${'x'.repeat(2040)}` }], isError: false },
          ],
          role: 'user',
          id: `bench-r-${callId}`,
        },
      },
      { surfaceOp: 'append', sourceEventSeqs: [call.seq] },
    );
    session.append('step/end', { turn, step });
  });
  session.append('turn/end', { turn, reason: { kind: 'completed' } });
}

let nextFile = 0;

/**
 * Leaves exactly `count` dedup units pending for the next pre-step: a turn reading `count` fresh files, then a turn
 * reading them again. The next turn's pre-step sees the first reads older than their keepers and at most
 * `currentTurn − retainRecentTurns` (= 1), so its batch writes `count` prunes.
 */
function pendDuplicates(loaded: DcpLoaded, count: number): void {
  if (count === 0) return;
  const paths = Array.from({ length: count }, () => `bench/dup-${++nextFile}.ts`);
  readTurn(loaded, paths);
  readTurn(loaded, paths);
}

/** One pre-step turn after `count` pending duplicates; returns its time and checks that it wrote `count` prunes. */
async function timedBatchStep(loaded: DcpLoaded, listener: DcpListener, count: number, lengths?: number[]): Promise<number> {
  pendDuplicates(loaded, count);
  const before = loaded.session.events.length;
  lengths?.push(before);
  const start = performance.now();
  await dcpStep(loaded, listener);
  const elapsed = performance.now() - start;
  const pruned = countType(loaded.session.events, before, 'compaction/prune');
  if (pruned !== count) throw new Error(`batch step wrote ${pruned} prunes, expected ${count}`);
  return elapsed;
}

/** A reopened copy whose pre-existing corpus duplicates are already pruned by a few unmeasured steps. */
async function settled(loaded: DcpLoaded): Promise<{ copy: DcpLoaded; listener: DcpListener }> {
  const copy = reopenDcpSession(loaded, CONFIG);
  const listener = createDcpPreStepListener(copy.runtime, true);
  for (let index = 0; index < 10; index++) await dcpStep(copy, listener);
  return { copy, listener };
}

/** One batch row: its size, prune count, timing, and the log lengths at the measured steps. */
interface BatchRow extends StepRow {
  readonly size: number;
  readonly prunes: number;
  readonly lengths: readonly number[];
}

/** Strategy batches of 0 (reference), 1, 10 and 100 dedup prunes at each batch size, interleaved round by round. */
async function measureBatches(loadedBySize: ReadonlyMap<number, DcpLoaded>): Promise<BatchRow[]> {
  const warm = await settled(loadedBySize.get(50_000)!);
  for (let index = 0; index < BATCH_WARM_UP; index++)
    await timedBatchStep(warm.copy, warm.listener, BATCH_PRUNES[index % BATCH_PRUNES.length]!);
  const key = (size: number, count: number): string => `${size}/${count}`;
  const samples = new Map<string, number[]>();
  const lengths = new Map<string, number[]>();
  for (const size of BATCH_SIZES)
    for (const count of BATCH_PRUNES) {
      samples.set(key(size, count), []);
      lengths.set(key(size, count), []);
    }
  for (let round = 0; round < BATCH_ROUNDS; round++) {
    for (const size of BATCH_SIZES) {
      const plan = BATCH_PLAN[size]!;
      for (const count of BATCH_PRUNES) {
        for (let copyIndex = 0; copyIndex < plan.copies; copyIndex++) {
          const { copy, listener } = await settled(loadedBySize.get(size)!);
          for (let sample = 0; sample < plan.samplesPerCopy; sample++) {
            samples.get(key(size, count))!.push(await timedBatchStep(copy, listener, count, lengths.get(key(size, count))));
          }
        }
      }
    }
  }
  return BATCH_SIZES.flatMap((size) =>
    BATCH_PRUNES.map((count) => ({
      ...stepRow(`batch of ${count} @ ${size}`, samples.get(key(size, count))!),
      size,
      prunes: count,
      lengths: lengths.get(key(size, count))!,
    })),
  );
}

/** Cold index builds of every size, interleaved run by run after one unmeasured build each. */
function measureBuilds(
  eventsBySize: ReadonlyMap<number, readonly SessionEvent[]>,
  options: ReturnType<DcpLoaded['runtime']['indexOptions']>,
): StepRow[] {
  const sizes = [...eventsBySize.keys()];
  const samples = new Map<number, number[]>(sizes.map((size) => [size, []]));
  for (const size of sizes) replayDcpIndex(eventsBySize.get(size)!, options);
  for (let run = 0; run < BUILD_RUNS; run++) {
    for (const size of sizes) {
      const events = eventsBySize.get(size)!;
      const start = performance.now();
      replayDcpIndex(events, options);
      samples.get(size)!.push(performance.now() - start);
    }
  }
  return sizes.map((size) => stepRow(`cold index build @ ${size}`, samples.get(size)!));
}

/** Checks the D1 premise: after the first step prunes the corpus's own duplicates, later steps find no candidates. */
async function steadyStateCheck(loaded: DcpLoaded): Promise<{ firstBatch: number; later: number }> {
  const copy = reopenDcpSession(loaded, CONFIG);
  const listener = createDcpPreStepListener(copy.runtime, true);
  const start = copy.session.events.length;
  await dcpStep(copy, listener);
  const afterFirst = copy.session.events.length;
  for (let index = 0; index < 20; index++) await dcpStep(copy, listener);
  return {
    firstBatch: countType(copy.session.events, start, 'compaction/prune'),
    later: countType(copy.session.events, afterFirst, 'compaction/prune'),
  };
}

function met(ok: boolean): string {
  return ok ? '**met**' : '**not met**';
}

/** Runs the issue-7 strategy benchmarks and returns their markdown report. */
export async function runP6Strategies(): Promise<string> {
  const allSizes = [...new Set<number>([...STEP_SIZES, ...BUILD_PAIRS.flat()])].sort((a, b) => a - b);
  const loadedBySize = new Map<number, DcpLoaded>();
  for (const size of allSizes) loadedBySize.set(size, loadDcpSession(size, CONFIG, 'p6s'));
  const eventCount = (size: number): number => loadedBySize.get(size)!.session.events.length;

  const steady = await steadyStateCheck(loadedBySize.get(50_000)!);
  const steps = await measureDcpSteps(STEP_SIZES, loadedBySize, CONFIG, STEP_PLAN, 'pre-step, strategies on');
  const batches = await measureBatches(loadedBySize);
  const builds = measureBuilds(
    new Map(
      allSizes.filter((size) => BUILD_PAIRS.flat().includes(size as never)).map((size) => [size, loadedBySize.get(size)!.session.events]),
    ),
    loadedBySize.get(50_000)!.runtime.indexOptions(),
  );

  const stepAt = (size: number): StepRow => steps.find((row) => row.name.endsWith(`@ ${size}`))!;
  const flat50 = stepAt(50_000).medianMs / stepAt(1_000).medianMs;
  const flat200 = stepAt(200_000).medianMs / stepAt(50_000).medianMs;
  const batchAt = (size: number, count: number): BatchRow => batches.find((row) => row.size === size && row.prunes === count)!;
  const buildAt = (size: number): StepRow => builds.find((row) => row.name.endsWith(`@ ${size}`))!;
  const perEvent = (size: number): number => (buildAt(size).medianMs * 1000) / eventCount(size);
  const buildRatios = BUILD_PAIRS.map(([small, large]) => ({
    small,
    large,
    ratio: buildAt(large).medianMs / buildAt(small).medianMs,
    sizeRatio: eventCount(large) / eventCount(small),
  }));
  const worstPerEvent = Math.max(...BUILD_PAIRS.flat().map(perEvent));

  const batchLines = [
    '| log (nominal) | log at measured step (events) | prunes in the batch | median ms | p95 ms | min–max ms | runs | median ÷ prunes (µs) | (median − 0-prune median) ÷ prunes (µs) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...batches.map((row) => {
      const per = row.prunes === 0 ? '—' : ((row.medianMs * 1000) / row.prunes).toFixed(1);
      const marginal = row.prunes === 0 ? '—' : (((row.medianMs - batchAt(row.size, 0).medianMs) * 1000) / row.prunes).toFixed(1);
      return `| ${row.size} | ${Math.min(...row.lengths)}–${Math.max(...row.lengths)} | ${row.prunes} | ${row.medianMs.toFixed(3)} | ${row.p95Ms.toFixed(3)} | ${row.minMs.toFixed(3)}–${row.maxMs.toFixed(3)} | ${row.samples} | ${per} | ${marginal} |`;
    }),
  ];
  const marginal100 = (size: number): number => (batchAt(size, 100).medianMs - batchAt(size, 0).medianMs) / 100;

  return [
    '## P6s — DCP pre-step with strategies enabled (DCP.md §19 D1, batches, D5)',
    '',
    `Config: \`strategies.runAt: 'every-step'\`, \`strategies.deduplication.enabled: true\`, \`strategies.purgeErrors.enabled: true\`, \`compress.retainRecentTurns: 1\`. Log sizes (events): ${allSizes.map((size) => `${size} → ${eventCount(size)}`).join(', ')}.`,
    '',
    `D1 premise check @ 50000: the first pre-step after load pruned the corpus's own ${steady.firstBatch} duplicate reads; the next 20 steps wrote ${steady.later} prunes (measured steps have no new candidates).`,
    '',
    'D1 — one pre-step with its strategy batch (no new candidates), marker, nudge, busy/manual checks and index update:',
    '',
    markdownTable(steps, 'pre-step, strategies on @ 1000'),
    '',
    `Each size runs ${STEP_PLAN.rounds} rounds on a fresh copy of its log (${STEP_PLAN.warmSteps} unmeasured steps, then ${STEP_PLAN.measuredSteps} measured; a step appends 6 events), sizes interleaved round by round, after ${STEP_PLAN.firstWarmUp} warm-up steps per size. Medians: ${steps.map((row) => `${row.name.replace('pre-step, strategies on ', '')} ${(row.medianMs * 1000).toFixed(1)} µs`).join(', ')}. p95: ${steps.map((row) => `${row.name.replace('pre-step, strategies on ', '')} ${row.p95Ms.toFixed(3)} ms`).join(', ')}.`,
    '',
    `50k / 1k: ${flat50.toFixed(2)} (target ≤ 2 and median < 1 ms: ${met(flat50 <= 2 && stepAt(50_000).medianMs < 1)}); 200k / 50k: ${flat200.toFixed(2)} (target ≤ 1.5: ${met(flat200 <= 1.5)}).`,
    '',
    'Strategy batches — one pre-step turn whose batch writes exactly N dedup prunes (checked per sample; N = 0 is the reference), at 50k and, for comparison, at 1k:',
    '',
    ...batchLines,
    '',
    `${BATCH_ROUNDS} rounds; per round and N, 5 samples on one fresh copy of the 50k log (its corpus duplicates pruned by 10 unmeasured steps first) and 1 sample on each of 5 fresh copies of the 1k log; sizes and N interleaved round by round, after ${BATCH_WARM_UP} unmeasured warm-up batch steps. Setting up N pending duplicates appends two read turns (~10 events per read) before the measured step, hence the log lengths shown.`,
    '',
    `Marginal cost per prune (batch of 100): ${(marginal100(1_000) * 1000).toFixed(1)} µs @ 1k, ${(marginal100(50_000) * 1000).toFixed(1)} µs @ 50k (50k ÷ 1k = ${(marginal100(50_000) / marginal100(1_000)).toFixed(2)}; §19 sets no number for batches).`,
    '',
    'D5 — cold index build (load), interleaved run by run:',
    '',
    markdownTable(builds, `cold index build @ ${BUILD_PAIRS[0][0]}`),
    '',
    `µs per event: ${BUILD_PAIRS.flat()
      .map((size) => `${size} ${perEvent(size).toFixed(2)}`)
      .join(
        ', ',
      )} (target < 3: ${met(worstPerEvent < 3)}). ${buildRatios.map(({ small, large, ratio, sizeRatio }) => `time(${large}) / time(${small}) = ${ratio.toFixed(2)} for ${sizeRatio.toFixed(2)}× the events (target ≤ 4.5: ${met(ratio <= 4.5)})`).join('; ')}.`,
  ].join('\n');
}

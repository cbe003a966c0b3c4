/**
 * DCP.md §19 D6: `/dcp stats` recomputes the ledger and the invalidation re-read tokens from the whole log. With
 * `fullLogTasks` the fold runs as a `dcpLedger` task on the worker pool from an O(1) capture of the session's byte
 * log; without it, on the host's thread. Side by side in one run, on §19 corpus sessions of 1k–200k events: the
 * command end to end, the main thread's longest event-loop stall while it runs (target: pool < 5 ms), the raw
 * in-thread `foldLedger` time per event (which the default `minEvents` is based on) and the one-time cost of the
 * first capture, which encodes the byte log of a session loaded before it was tracked.
 */
import { availableParallelism, loadavg } from 'node:os';
import { resolveDcpConfig } from '../src/protocol/dcp/config.js';
import { foldLedger } from '../src/protocol/dcp/ledger-fold.js';
import type { LedgerWindow } from '../src/protocol/dcp/ledger-fold.js';
import type { SessionEvent } from '../src/protocol/events.js';
import { DEFAULT_CATCH_UP_SLICE_MS, DEFAULT_LEDGER_POOL_MIN_EVENTS } from '../src/main/engine/dcp/ledger-service.js';
import { LiveByteLog } from '../src/main/engine/live/live-byte-log.js';
import { LiveLogTracker } from '../src/main/engine/live/live-log-tracker.js';
import { defaultPoolSize } from '../src/main/engine/pool/pool-config.js';
import { WorkerPool } from '../src/main/engine/pool/worker-pool.js';
import { measureStall, percentile } from './p3-pool-support.js';
import { generateDcpCorpus } from './support/dcp-corpus.js';
import type { DcpLoaded } from './support/dcp-steps.js';
import { loadDcpSession } from './support/dcp-steps.js';
import { measure, measureSlow } from './support/measure.js';
import type { MeasuredRow } from './support/measure.js';
import type { CommandResult } from '../src/main/host-api/host-api.js';

const CONFIG = resolveDcpConfig({ compress: { retainRecentTurns: 1, minNetSavingsTokens: 1 } }).config;

/** Log sizes (§19 corpus). Every size runs both variants; 50k and 200k are the ones D6 is about. */
const SIZES = [1_000, 5_000, 20_000, 50_000, 200_000] as const;

/** Measured `/dcp stats` runs per variant and size (after one warm-up run each). */
function commandRuns(size: number): number {
  return size >= 200_000 ? 9 : 15;
}

/** The main thread's budget for a fold it runs itself (the "about a millisecond"). */
const IN_THREAD_BUDGET_MS = 1;

/** The figures of one variant at one size. */
interface VariantFigures {
  readonly latencyMs: number[];
  readonly maxStallMs: number[];
}

/** Figures of one size. */
interface SizeFigures {
  readonly size: number;
  /** Events in the log when the fold and the first capture were timed. */
  readonly events: number;
  readonly windows: number;
  readonly logMiB: number;
  readonly fold: MeasuredRow;
  readonly firstCapture: MeasuredRow;
  /** The same first encoding done the way the plugin does it (sliced): total time and longest stall per run. */
  readonly gradual: { readonly totalMs: number[]; readonly maxStallMs: number[] };
  readonly pool: VariantFigures;
  readonly thread: VariantFigures;
  readonly idleMaxStallMs: number[];
  readonly identical: boolean;
  /** The pool session's byte log was tracked and current before the measured runs, so each capture was O(1). */
  readonly warm: boolean;
  readonly poolRuns: number;
  readonly poolInThreadRuns: number;
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

function ms(value: number): string {
  return value.toFixed(2);
}

function spreadOf(values: readonly number[]): string {
  return `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})`;
}

async function stats(loaded: DcpLoaded): Promise<CommandResult> {
  const result = await loaded.agent!.runCommand('/dcp stats');
  if (result.kind !== 'success') throw new Error(`/dcp stats failed: ${result.text}`);
  return result;
}

/** Long enough for the probe's 1 ms timer to tick once before the measured work starts. */
const PRIME_MS = 3;

function sleep(durationMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, durationMs));
}

/**
 * One `/dcp stats` under the stall probe: its latency and the longest stall seen while it ran. The histogram records
 * a delay only between two of its own ticks, so a block that starts right at `enable()` would go unseen: the work
 * waits for a first tick before it starts.
 */
async function probedRun(loaded: DcpLoaded, into: VariantFigures): Promise<void> {
  let latency = 0;
  const stall = await measureStall(async () => {
    await sleep(PRIME_MS);
    const start = performance.now();
    await stats(loaded);
    latency = performance.now() - start;
  }, 1);
  into.latencyMs.push(latency);
  into.maxStallMs.push(stall.maxMs);
}

/** The raw in-thread fold of the whole log, exactly as `/dcp stats` asks for it (the recent invalidation windows). */
async function measureFold(size: number, events: readonly SessionEvent[], windows: readonly LedgerWindow[]): Promise<MeasuredRow> {
  const run = (): void => {
    if (foldLedger(events, windows).eventCount !== events.length) throw new Error('fold did not cover the log');
  };
  if (size <= 20_000) {
    const [row] = await measure({ [`foldLedger @ ${size}`]: run }, { iterations: 50, timeMs: 300 });
    return row!;
  }
  run();
  return measureSlow(`foldLedger @ ${size}`, run, size >= 200_000 ? 7 : 15);
}

/** The first capture of a log that was loaded untracked: the tracker encodes every event once (a fresh tracker each run). */
async function measureFirstCapture(size: number, loaded: DcpLoaded): Promise<MeasuredRow> {
  return measureSlow(
    `first capture @ ${size}`,
    () => {
      const tracker = new LiveLogTracker();
      const capture = tracker.capture(loaded.session);
      if (capture.events !== loaded.session.events.length) throw new Error('capture did not cover the log');
      tracker.untrack(loaded.session);
    },
    size >= 200_000 ? 3 : 5,
  );
}

/**
 * The first encoding as the plugin does it for a reopened long log: `trackGradually` with the default slice, under
 * the stall probe (a fresh tracker each run).
 */
async function measureGradualCatchUp(size: number, loaded: DcpLoaded): Promise<{ totalMs: number[]; maxStallMs: number[] }> {
  const totalMs: number[] = [];
  const maxStallMs: number[] = [];
  for (let run = 0; run < (size >= 200_000 ? 3 : 5); run++) {
    const tracker = new LiveLogTracker();
    let total = 0;
    const stall = await measureStall(async () => {
      await sleep(PRIME_MS);
      const start = performance.now();
      await tracker.trackGradually(loaded.session, DEFAULT_CATCH_UP_SLICE_MS);
      total = performance.now() - start;
    }, 1);
    if (tracker.encodedEvents(loaded.session) !== loaded.session.events.length) throw new Error('gradual catch-up did not cover the log');
    tracker.untrack(loaded.session);
    totalMs.push(total);
    maxStallMs.push(stall.maxMs);
  }
  return { totalMs, maxStallMs };
}

function logMiB(events: readonly SessionEvent[]): number {
  const log = new LiveByteLog();
  for (const event of events) log.append(event);
  return log.byteLength / 2 ** 20;
}

async function measureSize(size: number, pool: WorkerPool): Promise<SizeFigures> {
  const seed = generateDcpCorpus(size);
  // The pool variant is folded by the pool at every size (minEvents 0) so the crossover with the in-thread fold shows.
  const liveLogs = new LiveLogTracker();
  const pooled = loadDcpSession(
    size,
    CONFIG,
    'd6-pool',
    { pluginOptions: { fullLogTasks: { runner: pool, minEvents: 0, liveLogs } } },
    seed,
  );
  const threaded = loadDcpSession(size, CONFIG, 'd6-thread', { pluginOptions: {} }, seed);
  const windows = threaded.index.invalidations.recent(CONFIG.stats.invalidationHistory);
  // The loaded length (the corpus and the host's end-of-seed event), before the measured commands grow the logs.
  const events = threaded.session.events.length;
  const mebibytes = logMiB(threaded.session.events);

  const fold = await measureFold(size, threaded.session.events, windows);
  const firstCapture = await measureFirstCapture(size, threaded);
  const gradual = await measureGradualCatchUp(size, threaded);

  // Warm-up: threads started, code compiled, and both outputs compared at the same log length. The pool session's
  // byte log is already tracked (the plugin's index followed it at load, which encoded it once), so captures are O(1).
  const identical = (await stats(pooled)).text === (await stats(threaded)).text;
  const warm = liveLogs.encodedEvents(pooled.session) === pooled.session.events.length;

  const poolFigures: VariantFigures = { latencyMs: [], maxStallMs: [] };
  const threadFigures: VariantFigures = { latencyMs: [], maxStallMs: [] };
  const idleMaxStallMs: number[] = [];
  for (let run = 0; run < commandRuns(size); run++) {
    // Interleaved, so that machine noise spreads over both variants alike.
    await probedRun(pooled, poolFigures);
    await probedRun(threaded, threadFigures);
    const idleFor = median(poolFigures.latencyMs);
    idleMaxStallMs.push((await measureStall(() => sleep(PRIME_MS + idleFor), 1)).maxMs);
  }
  const { pool: poolRuns, inThread: poolInThreadRuns } = pooled.runtime.ledgers.runs;
  const figures: SizeFigures = {
    size,
    events,
    windows: windows.length,
    logMiB: mebibytes,
    fold,
    firstCapture,
    gradual,
    pool: poolFigures,
    thread: threadFigures,
    idleMaxStallMs,
    identical,
    warm,
    poolRuns,
    poolInThreadRuns,
  };
  pooled.runtime.dispose();
  threaded.runtime.dispose();
  return figures;
}

/** The largest power of two whose estimated in-thread fold stays within `budgetMs`, from the per-event cost at `perEventUs`. */
function powerOfTwoWithin(budgetMs: number, perEventUs: number): number {
  const events = (budgetMs * 1000) / perEventUs;
  return 2 ** Math.floor(Math.log2(events));
}

/** Runs D6 and returns its markdown report. */
export async function runP6Stats(): Promise<string> {
  const poolSize = defaultPoolSize();
  const pool = new WorkerPool({ size: poolSize });
  const all: SizeFigures[] = [];
  try {
    for (const size of SIZES) all.push(await measureSize(size, pool));
  } finally {
    await pool.close();
  }
  const perEventUs = (row: SizeFigures): number => (row.fold.medianMs * 1000) / row.events;
  // Small logs decide minEvents: the per-event cost there (5k and 20k; 1k is dominated by fixed costs) is what a
  // fold below the threshold pays.
  const smallCost = Math.max(...all.filter((row) => row.size === 5_000 || row.size === 20_000).map(perEventUs));
  const defaultFoldMs = (DEFAULT_LEDGER_POOL_MIN_EVENTS * smallCost) / 1000;
  const recommended = powerOfTwoWithin(IN_THREAD_BUDGET_MS, smallCost);
  const recommended2 = powerOfTwoWithin(2 * IN_THREAD_BUDGET_MS, smallCost);
  const poolD6 = all.filter((row) => row.size >= 50_000);
  const poolMet = poolD6.every((row) => median(row.pool.maxStallMs) < 5);
  const poolMetEveryRun = poolD6.every((row) => Math.max(...row.pool.maxStallMs) < 5);
  return [
    '### D6 — `/dcp stats` full-log recomputation: worker pool vs in-thread',
    '',
    `Corpus: DCP.md §19 generator; DCP mounted through \`dcpPlugin\` on a real agent and session; \`/dcp stats\` through \`agent.runCommand\` (no storage wired, so the domain block is \`unavailable\`). Pool: \`fullLogTasks: { runner: new WorkerPool({ size: ${poolSize} }), minEvents: 0, liveLogs }\` (\`liveLogs\` a tracker of the bench's own, to check the capture is warm); in-thread: no \`fullLogTasks\`. Every size: one warm-up run per variant, then runs interleaved pool / in-thread / idle. Each run appends \`command/run\` and \`command/done\`, so a log grows by 2 events per run. Stall = \`perf_hooks.monitorEventLoopDelay\` (1 ms resolution) around each single run (the p3 probe, with a ${PRIME_MS} ms idle lead-in so that its first tick precedes the work), max per run; idle = the same probe around a timer as long as the median pool run, nothing of ours running. Pool output identical to the in-thread output at every size: **${all.every((row) => row.identical) ? 'yes' : 'NO'}**; every pool-variant fold answered by the pool: **${all.every((row) => row.poolInThreadRuns === 0 && row.poolRuns === 1 + commandRuns(row.size)) ? 'yes' : 'NO'}**; pool byte logs tracked and current before the measured runs (warm, O(1) captures): **${all.every((row) => row.warm) ? 'yes' : 'NO'}**.`,
    '',
    '#### `/dcp stats` end to end, median (min–max) ms',
    '',
    '| events | log MiB | windows | pool | in-thread | pool / in-thread | runs |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...all.map(
      (row) =>
        `| ${row.size.toLocaleString('en-US')} | ${row.logMiB.toFixed(1)} | ${row.windows} | ${spreadOf(row.pool.latencyMs)} | ${spreadOf(row.thread.latencyMs)} | ${(median(row.pool.latencyMs) / median(row.thread.latencyMs)).toFixed(2)} | ${row.pool.latencyMs.length} |`,
    ),
    '',
    '#### Max main-thread event-loop stall per run, median (max over runs) ms',
    '',
    '| events | pool | in-thread | idle floor | pool < 5 ms |',
    '|---:|---:|---:|---:|---|',
    ...all.map(
      (row) =>
        `| ${row.size.toLocaleString('en-US')} | ${ms(median(row.pool.maxStallMs))} (${ms(Math.max(...row.pool.maxStallMs))}) | ${ms(median(row.thread.maxStallMs))} (${ms(Math.max(...row.thread.maxStallMs))}) | ${ms(median(row.idleMaxStallMs))} (${ms(Math.max(...row.idleMaxStallMs))}) | ${median(row.pool.maxStallMs) < 5 ? 'yes' : 'NO'}${Math.max(...row.pool.maxStallMs) < 5 ? '' : ' (not every run)'} |`,
    ),
    '',
    '#### Raw in-thread `foldLedger` and the one-time first capture',
    '',
    '| events | foldLedger median ms | min–max ms | runs | µs per event | first capture median ms | min–max ms | µs per event |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...all.map(
      (row) =>
        `| ${row.size.toLocaleString('en-US')} | ${ms(row.fold.medianMs)} | ${ms(row.fold.minMs)}–${ms(row.fold.maxMs)} | ${row.fold.samples} | ${perEventUs(row).toFixed(3)} | ${ms(row.firstCapture.medianMs)} | ${ms(row.firstCapture.minMs)}–${ms(row.firstCapture.maxMs)} | ${((row.firstCapture.medianMs * 1000) / row.events).toFixed(3)} |`,
    ),
    '',
    `The first capture (\`LiveLogTracker\` encoding a log loaded before it was tracked, all at once; a fresh tracker per run) is what a synchronous first capture would cost. The plugin instead encodes such a log with \`trackGradually\` in slices of ${DEFAULT_CATCH_UP_SLICE_MS} ms when its index first follows a session of at least \`minEvents\` events; afterwards each append is encoded as it lands and a capture is O(1). Neither is part of the pool rows above (those sessions were caught up before the measured runs).`,
    '',
    '#### The sliced first encoding (what the plugin does for a reopened long log)',
    '',
    '| events | total median ms | min–max ms | max stall median ms | max stall worst ms | runs |',
    '|---:|---:|---:|---:|---:|---:|',
    ...all.map(
      (row) =>
        `| ${row.size.toLocaleString('en-US')} | ${ms(median(row.gradual.totalMs))} | ${ms(Math.min(...row.gradual.totalMs))}–${ms(Math.max(...row.gradual.totalMs))} | ${ms(median(row.gradual.maxStallMs))} | ${ms(Math.max(...row.gradual.maxStallMs))} | ${row.gradual.totalMs.length} |`,
    ),
    '',
    `1-minute load average of the machine when the suite ended: ${loadavg()[0]?.toFixed(2)} (on ${availableParallelism()} cores).`,
    '',
    `D6 target (pool, 50k and 200k: median max stall < 5 ms): **${poolMet ? 'met' : 'NOT met'}**${poolMetEveryRun ? ' (every run)' : ' (not in every run; compare with the idle floor)'}. In-thread fold cost at 5k–20k: ${smallCost.toFixed(3)} µs per event (the larger of the two), so the default \`minEvents\` ${DEFAULT_LEDGER_POOL_MIN_EVENTS} is about ${ms(defaultFoldMs)} ms of main-thread fold; the largest power of two within ${IN_THREAD_BUDGET_MS} ms is ${recommended}, within ${2 * IN_THREAD_BUDGET_MS} ms ${recommended2}.`,
  ].join('\n');
}

/**
 * Side-by-side measurement on tinybench: every suite runs its contenders in one process, one after
 * another, and reports medians with min–max and ratios against a named baseline.
 */
import { cpus, totalmem } from 'node:os';
import { Bench } from 'tinybench';

/** One measured contender. */
export interface MeasuredRow {
  readonly name: string;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly samples: number;
}

/** How long and how often to run each contender. */
export interface MeasureOptions {
  readonly iterations: number;
  readonly timeMs: number;
}

interface CompletedResult {
  readonly state: string;
  readonly latency?: { readonly p50: number; readonly min: number; readonly max: number; readonly samplesCount: number };
  readonly error?: unknown;
}

/** Runs the contenders side by side and returns their latency statistics. */
export async function measure(contenders: Record<string, () => unknown>, options: MeasureOptions): Promise<MeasuredRow[]> {
  const bench = new Bench({ iterations: options.iterations, time: options.timeMs, warmup: true } as ConstructorParameters<typeof Bench>[0]);
  for (const [name, fn] of Object.entries(contenders)) bench.add(name, fn as () => Promise<void>);
  await bench.run();
  return bench.tasks.map((task) => {
    const result = task.result as unknown as CompletedResult;
    if (result.latency === undefined) throw new Error(`benchmark "${task.name}" did not complete: ${String(result.error ?? result.state)}`);
    return {
      name: task.name,
      medianMs: result.latency.p50,
      minMs: result.latency.min,
      maxMs: result.latency.max,
      samples: result.latency.samplesCount,
    };
  });
}

/**
 * Times a contender that takes seconds per call, outside tinybench (whose warm-up alone would
 * run it many times): `runs` plain timed calls.
 */
export async function measureSlow(name: string, fn: () => unknown, runs: number): Promise<MeasuredRow> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return rowOf(name, times);
}

/** The row of `times` (milliseconds, any order). */
function rowOf(name: string, times: number[]): MeasuredRow {
  times.sort((a, b) => a - b);
  const median =
    times.length % 2 === 1
      ? (times[(times.length - 1) / 2] as number)
      : ((times[times.length / 2 - 1] as number) + (times[times.length / 2] as number)) / 2;
  return { name, medianMs: median, minMs: times[0] as number, maxMs: times[times.length - 1] as number, samples: times.length };
}

/** One contender of {@link measureInterleaved}: its timed call, and untimed work before each (emptying a cache). */
export interface InterleavedContender {
  readonly name: string;
  readonly run: () => unknown;
  readonly before?: () => unknown;
}

/**
 * Times each contender once per round, round after round, so that a machine whose speed drifts during the run (a
 * shared host) slows every contender alike and their ratios hold.
 */
export async function measureInterleaved(contenders: readonly InterleavedContender[], rounds: number): Promise<MeasuredRow[]> {
  const times = contenders.map(() => [] as number[]);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, contender] of contenders.entries()) {
      await contender.before?.();
      const start = performance.now();
      await contender.run();
      times[index]?.push(performance.now() - start);
    }
  }
  return contenders.map((contender, index) => rowOf(contender.name, times[index] ?? []));
}

/** A markdown table of rows, each with its ratio to `baseline`. */
export function markdownTable(rows: readonly MeasuredRow[], baseline: string): string {
  const base = rows.find((row) => row.name === baseline);
  const lines = ['| contender | median ms | min–max ms | runs | ratio to ' + baseline + ' |', '|---|---:|---:|---:|---:|'];
  for (const row of rows) {
    const ratio = base === undefined ? 'n/a' : (row.medianMs / base.medianMs).toFixed(2);
    lines.push(
      `| ${row.name} | ${row.medianMs.toFixed(2)} | ${row.minMs.toFixed(2)}–${row.maxMs.toFixed(2)} | ${row.samples} | ${ratio} |`,
    );
  }
  return lines.join('\n');
}

/** One line naming the machine the figures were taken on. */
export function machineLine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  return `${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

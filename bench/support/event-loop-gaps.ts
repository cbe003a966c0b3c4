/**
 * The main thread's event-loop gaps while a piece of work runs (`perf_hooks.monitorEventLoopDelay`, 1 ms resolution),
 * and the machine's floor for that figure: this thread idle while another thread spins. Shared by the search and
 * main-thread budget benchmarks, whose targets are "the floor + a few ms".
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

/** How long the work ran, and the worst and 99th-percentile event-loop gap meanwhile. */
export interface GapFigures {
  readonly ms: number;
  readonly maxStallMs: number;
  readonly p99StallMs: number;
}

/** Runs `work` while sampling this thread's event-loop delay. */
export async function withGaps(work: () => Promise<unknown>): Promise<GapFigures> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  histogram.disable();
  return { ms, maxStallMs: histogram.max / 1e6, p99StallMs: histogram.percentile(99) / 1e6 };
}

/** The floor: this thread idle while another thread spins for `ms`. */
export function busyWorkerFloor(ms: number): Promise<GapFigures> {
  return withGaps(
    () =>
      new Promise<void>((resolve, reject) => {
        const worker = new Worker(`const end = Date.now() + ${ms}; while (Date.now() < end) {}`, { eval: true });
        worker.once('exit', () => resolve());
        worker.once('error', reject);
      }),
  );
}

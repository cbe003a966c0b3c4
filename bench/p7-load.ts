/**
 * P7 (BENCHMARKS.md): 500 concurrent `prepare()` calls over 50 sessions (25 on disk, 25 live) with a
 * pool of 2 threads: every call must succeed; throughput and latency percentiles, with the in-thread
 * renderer under the same load side by side, and the main thread's longest stall during the load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTextSources } from './support/reference-corpus.js';
import {
  BENCH_CONTENT,
  BENCH_TARGET,
  inThreadService,
  liveSources,
  percentile,
  poolEngine,
  referencesTo,
  sourceCacheLine,
} from './p3-pool-support.js';

const CALLS = 500;
const MESSAGES = 200;

interface LoadFigures {
  readonly ok: number;
  readonly wallMs: number;
  readonly latencies: number[];
  readonly maxStallMs: number;
}

/** Starts every call at once and waits for all of them. */
async function load(
  prepare: (references: ReturnType<typeof referencesTo>) => Promise<unknown>,
  ids: readonly string[],
): Promise<LoadFigures> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const start = performance.now();
  const latencies: number[] = [];
  const outcomes = await Promise.allSettled(
    Array.from({ length: CALLS }, async (_, call) => {
      const picked = [ids[call % ids.length], ids[(call * 7 + 17) % ids.length], ids[(call * 13 + 31) % ids.length]] as string[];
      const began = performance.now();
      await prepare(referencesTo([...new Set(picked)]));
      latencies.push(performance.now() - began);
    }),
  );
  const wallMs = performance.now() - start;
  histogram.disable();
  return { ok: outcomes.filter((outcome) => outcome.status === 'fulfilled').length, wallMs, latencies, maxStallMs: histogram.max / 1e6 };
}

function line(name: string, figures: LoadFigures): string {
  return `| ${name} | ${figures.ok}/${CALLS} | ${(figures.wallMs / 1000).toFixed(2)} | ${((CALLS * 1000) / figures.wallMs).toFixed(1)} | ${percentile(figures.latencies, 50).toFixed(0)} | ${percentile(figures.latencies, 99).toFixed(0)} | ${Math.max(...figures.latencies).toFixed(0)} | ${figures.maxStallMs.toFixed(1)} |`;
}

/** Runs P7 and returns its markdown report. */
export async function runP7(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-p7-'));
  try {
    const root = join(dir, 'root');
    const disk = await writeTextSources(root, 'p7disk', 25, MESSAGES, 1024);
    const live = liveSources('p7live', 25, MESSAGES);
    const ids = [...disk.map((source) => source.id), ...live.map((session) => session.id)];
    const engine = await poolEngine(root, 2, live);
    const baseline = await inThreadService(root, live);
    try {
      await engine.prepare(BENCH_TARGET, BENCH_CONTENT, referencesTo(ids.slice(0, 3)));
      const pooled = await load((references) => engine.prepare(BENCH_TARGET, BENCH_CONTENT, references), ids);
      const inThread = await load((references) => baseline.prepare(BENCH_TARGET, BENCH_CONTENT, references), ids);
      return [
        '### P7 — 500 concurrent prepare() calls over 50 sessions, 2 pool threads',
        '',
        `Sessions: 25 on disk (raw JSONL) and 25 live, ${MESSAGES} text messages of 1 KiB each (~${((MESSAGES * 1.1) / 1024).toFixed(2)} MiB per log); each call cites 3 of them (fewer when the picks coincide). All calls start at once.`,
        '',
        '| renderer | succeeded | wall s | prepares/s | p50 ms | p99 ms | max ms | max main-thread stall ms |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        line('pool (2 threads)', pooled),
        line('in-thread (baseline)', inThread),
        '',
        sourceCacheLine(engine),
        '',
        `Throughput pool / in-thread: ${(inThread.wallMs / pooled.wallMs).toFixed(2)}; p99 pool / in-thread: ${(percentile(pooled.latencies, 99) / percentile(inThread.latencies, 99)).toFixed(2)}.`,
      ].join('\n');
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * P5 (BENCHMARKS.md): cancellation during a 3 × 16 MB `prepare()` on the pool. Measures how long the
 * caller waits after `abort()` (target < 5 ms), how long until the pool is free again (the workers stop
 * at their next poll; measured as the latency of a tiny preparation queued right after the abort), and
 * whether any thread was respawned (thread ids before and after every run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPoolSize } from '../src/main/engine/pool/pool-config.js';
import { writeTextSources } from './support/reference-corpus.js';
import { BENCH_CONTENT, BENCH_TARGET, liveSources, poolEngine, poolThreadIds, referencesTo, spread } from './p3-pool-support.js';
import type { LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';

/** Text messages per source: about 16 MiB of raw JSONL. */
const MESSAGES = 11_600;
const RUNS = 12;

interface CancelFigures {
  readonly settleMs: number[];
  readonly freeMs: number[];
  readonly codes: Set<unknown>;
  readonly respawns: number;
  readonly fullMs: number;
}

async function cancelRuns(
  engine: LocalSessionEngine,
  references: ReturnType<typeof referencesTo>,
  tiny: ReturnType<typeof referencesTo>,
): Promise<CancelFigures> {
  const fullStart = performance.now();
  await engine.prepare(BENCH_TARGET, BENCH_CONTENT, references);
  const fullMs = performance.now() - fullStart;
  const settleMs: number[] = [];
  const freeMs: number[] = [];
  const codes = new Set<unknown>();
  let respawns = 0;
  for (let run = 0; run < RUNS; run++) {
    const before = poolThreadIds(engine).join(',');
    const controller = new AbortController();
    const preparing = engine.prepare(BENCH_TARGET, BENCH_CONTENT, references, controller.signal).then(
      () => 'completed',
      (error: unknown) => (error as { code?: unknown }).code,
    );
    // Abort somewhere inside the work: 10 %–70 % of a full preparation.
    await new Promise((resolve) => setTimeout(resolve, fullMs * (0.1 + (0.6 * run) / RUNS)));
    const abortAt = performance.now();
    controller.abort(new Error('turn cancelled'));
    codes.add(await preparing);
    settleMs.push(performance.now() - abortAt);
    await engine.prepare(BENCH_TARGET, BENCH_CONTENT, tiny);
    freeMs.push(performance.now() - abortAt);
    if (poolThreadIds(engine).join(',') !== before) respawns += 1;
  }
  return { settleMs, freeMs, codes, respawns, fullMs };
}

function line(name: string, figures: CancelFigures): string {
  return `| ${name} | ${spread(figures.settleMs)} | ${Math.max(...figures.settleMs).toFixed(2)} | ${spread(figures.freeMs)} | ${figures.fullMs.toFixed(0)} | ${figures.respawns} | ${[...figures.codes].join(', ')} |`;
}

/** Runs P5 and returns its markdown report. */
export async function runP5(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-p5-'));
  try {
    const root = join(dir, 'root');
    const disk = await writeTextSources(root, 'p5disk', 3, MESSAGES, 1024);
    const live = liveSources('p5live', 3, MESSAGES);
    const tinySession = liveSources('p5tiny', 1, 2);
    const size = defaultPoolSize();
    const engine = await poolEngine(root, size, [...live, ...tinySession]);
    try {
      const tiny = referencesTo(tinySession.map((session) => session.id));
      await engine.prepare(BENCH_TARGET, BENCH_CONTENT, tiny);
      const threadsAtStart = poolThreadIds(engine).join(',');
      const diskFigures = await cancelRuns(engine, referencesTo(disk.map((source) => source.id)), tiny);
      const liveFigures = await cancelRuns(engine, referencesTo(live.map((session) => session.id)), tiny);
      const sameThreads = poolThreadIds(engine).join(',') === threadsAtStart;
      return [
        '### P5 — cancellation during a 3 × 16 MB prepare()',
        '',
        `Sources: 3 × ${MESSAGES.toLocaleString('en-US')} × 1 KiB text messages, on disk (raw) and live. Pool: ${size} threads. ${RUNS} aborts per kind at 10 %–70 % of a full preparation. "Pool free" = abort → a tiny preparation queued right after it has completed (the workers stopped at their next poll and took the next task).`,
        '',
        '| sources | caller settles after abort, ms median (min–max) | max ms | pool free again, ms median (min–max) | full prepare ms | respawns | outcome |',
        '|---|---:|---:|---:|---:|---:|---|',
        line('disk', diskFigures),
        line('live', liveFigures),
        '',
        `1-minute load average of the machine when the suite ended: ${loadavg()[0]?.toFixed(2)} (on ${availableParallelism()} cores).`,
        '',
        `Same worker threads at the end as at the start: **${sameThreads ? 'yes' : 'NO'}** (${threadsAtStart}). Target: the caller settles within 5 ms; no respawn.`,
      ].join('\n');
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

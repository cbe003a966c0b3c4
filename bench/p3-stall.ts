/**
 * P3 (BENCHMARKS.md): the main thread's longest event-loop stall while `prepare()` reads three 16 MB
 * sources, on disk and live, with the stages on the worker pool — side by side with the in-thread
 * renderer, which runs every stage on the caller's thread. Target: max stall under 5 ms.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPoolSize } from '../src/main/engine/pool/pool-config.js';
import { writeTextSources } from './support/reference-corpus.js';
import {
  BENCH_CONTENT,
  BENCH_TARGET,
  inThreadService,
  liveSources,
  measureStall,
  poolEngine,
  referencesTo,
  sourceCacheLine,
} from './p3-pool-support.js';
import type { StallFigures } from './p3-pool-support.js';

/** Text messages per source: about 16 MiB of raw JSONL. */
const MESSAGES = 11_600;

function row(name: string, figures: StallFigures): string {
  return `| ${name} | ${figures.maxMs.toFixed(2)} | ${figures.p99Ms.toFixed(2)} | ${figures.meanMs.toFixed(2)} | ${(figures.wallMs / figures.runs).toFixed(0)} | ${figures.runs} |`;
}

function promptOf(prepared: { additionalContext?: { content: ReadonlyArray<unknown> } }): string {
  return (prepared.additionalContext?.content[0] as { text: string }).text;
}

/** Runs P3 and returns its markdown report. */
export async function runP3(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-p3-'));
  try {
    const root = join(dir, 'root');
    const disk = await writeTextSources(root, 'p3disk', 3, MESSAGES, 1024);
    const live = liveSources('p3live', 3, MESSAGES);
    const diskRefs = referencesTo(disk.map((source) => source.id));
    const liveRefs = referencesTo(live.map((session) => session.id));
    const size = defaultPoolSize();
    const engine = await poolEngine(root, size, live);
    const baseline = await inThreadService(root, live);
    try {
      // Warm-up (threads start, code is compiled) and the equality check against the in-thread output.
      const [poolDisk, poolLive] = [
        await engine.prepare(BENCH_TARGET, BENCH_CONTENT, diskRefs),
        await engine.prepare(BENCH_TARGET, BENCH_CONTENT, liveRefs),
      ];
      const [threadDisk, threadLive] = [
        await baseline.prepare(BENCH_TARGET, BENCH_CONTENT, diskRefs),
        await baseline.prepare(BENCH_TARGET, BENCH_CONTENT, liveRefs),
      ];
      const identical = promptOf(poolDisk) === promptOf(threadDisk) && promptOf(poolLive) === promptOf(threadLive);

      const poolDiskStall = await measureStall(() => engine.prepare(BENCH_TARGET, BENCH_CONTENT, diskRefs), 8);
      const poolLiveStall = await measureStall(() => engine.prepare(BENCH_TARGET, BENCH_CONTENT, liveRefs), 8);
      // The machine's own noise: the same idle main thread, nothing of ours running, for as long.
      const idleStall = await measureStall(
        () => new Promise((resolve) => setTimeout(resolve, poolDiskStall.wallMs / poolDiskStall.runs)),
        8,
      );
      const single = await poolEngine(root, 1, live);
      await single.prepare(BENCH_TARGET, BENCH_CONTENT, diskRefs);
      const singleDiskStall = await measureStall(() => single.prepare(BENCH_TARGET, BENCH_CONTENT, diskRefs), 8);
      const singleLiveStall = await measureStall(() => single.prepare(BENCH_TARGET, BENCH_CONTENT, liveRefs), 8);
      await single.close();
      const threadDiskStall = await measureStall(() => baseline.prepare(BENCH_TARGET, BENCH_CONTENT, diskRefs), 3);
      const threadLiveStall = await measureStall(() => baseline.prepare(BENCH_TARGET, BENCH_CONTENT, liveRefs), 3);
      const megabytes = statSync(disk[0]?.path as string).size / 2 ** 20;
      return [
        '### P3 — main-thread stall during prepare() of 3 × 16 MB sources',
        '',
        `Sources: 3 × ${MESSAGES.toLocaleString('en-US')} text messages of 1 KiB (${megabytes.toFixed(1)} MiB each on disk, raw JSONL), and the same logs as live host sessions (byte logs kept at attach time). Pool: ${size} threads. Stall = \`perf_hooks.monitorEventLoopDelay\` (1 ms resolution) over all runs. Pool output identical to the in-thread output: **${identical ? 'yes' : 'NO'}**.`,
        '',
        '| contender | max stall ms | p99 ms | mean ms | ms per prepare | runs |',
        '|---|---:|---:|---:|---:|---:|',
        row(`pool (${size} threads), disk`, poolDiskStall),
        row(`pool (${size} threads), live`, poolLiveStall),
        row('pool (1 thread), disk', singleDiskStall),
        row('pool (1 thread), live', singleLiveStall),
        row('idle main thread, nothing running (noise floor of this machine)', idleStall),
        row('in-thread, disk (baseline)', threadDiskStall),
        row('in-thread, live (baseline)', threadLiveStall),
        '',
        sourceCacheLine(engine),
        '',
        `1-minute load average of the machine when the suite ended: ${loadavg()[0]?.toFixed(2)} (on ${availableParallelism()} cores).`,
        '',
        `Max stall pool/in-thread: disk ${(poolDiskStall.maxMs / threadDiskStall.maxMs).toFixed(3)}, live ${(poolLiveStall.maxMs / threadLiveStall.maxMs).toFixed(3)}. Target: max stall < 5 ms (pool rows); compare with the idle row, which measures the machine rather than the code.`,
      ].join('\n');
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

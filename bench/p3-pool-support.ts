/**
 * Shared setup of the pool benchmarks (P1-through-the-pool, P3, P5, P7): text sources on disk and as
 * live host sessions, engines with and without workers, event-loop stall measurement and percentiles.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Session } from '../src/main/stand-in/host/session.js';
import { createEngine } from '../src/main/engine/assembly/create-engine.js';
import type { LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';
import { InMemoryLiveRegistry } from '../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../src/main/engine/corpus/session-query.js';
import { SessionReferenceService } from '../src/main/engine/reference/session-reference-service.js';
import { JsonlSessionStore } from '../src/main/engine/store/jsonl-store.js';
import type { ContentBlock } from '../src/protocol/events.js';
import { textOnlySession } from './support/reference-corpus.js';

/** The target agent of every benchmark preparation. */
export const BENCH_TARGET = { id: 'bench-target', session: { header: { cwd: '/bench/target' } } };

/** The message content of every benchmark preparation. */
export const BENCH_CONTENT: ContentBlock[] = [{ type: 'text', text: 'bench' }];

/** References to `ids`, labelled with their ids. */
export function referencesTo(ids: readonly string[]): Array<{ sessionId: string; label: string }> {
  return ids.map((sessionId) => ({ sessionId, label: sessionId }));
}

/** `count` live host sessions of `messages` text messages of 1 KiB each, seeded like a reopened log. */
export function liveSources(prefix: string, count: number, messages: number): Session[] {
  return Array.from({ length: count }, (_, index) => {
    const { header, events } = textOnlySession(`${prefix}-${index}`, messages, 1024);
    return Session.create(header.id, { header, seed: events });
  });
}

/**
 * A pool engine over a raw root with `poolSize` threads and the given live sessions attached, with the engine's
 * defaults otherwise (the source cache on; its files beside the root, not in the user's cache directory).
 */
export async function poolEngine(root: string, poolSize: number, live: readonly Session[] = []): Promise<LocalSessionEngine> {
  const engine = await createEngine({ root, compression: 'none', poolSize, store: { cacheDirectory: `${root}.cache` } });
  for (const session of live) engine.attachLive(session);
  return engine;
}

/**
 * What the engine's source cache holds and how it served the run, as one report line.
 * @param engine - an engine built by {@link poolEngine}
 * @returns the line, or a note that the cache is off
 */
export function sourceCacheLine(engine: LocalSessionEngine): string {
  const cache = engine.sourceCache;
  if (cache === undefined) return 'Source cache: off.';
  const { entries, bytes, warm, appended, cold, evicted } = cache.stats;
  const mib = (value: number): string => (value / 2 ** 20).toFixed(1);
  return `Source cache (on, the engine default): ${entries} entries, ${mib(bytes)} MiB of memory held (bound ${mib(cache.config.maxBytes)} MiB); disk sources served warm ${warm}, appended ${appended}, cold ${cold}; ${evicted} evicted.`;
}

/** The in-thread reference service (the baseline: every stage on the caller's thread). */
export async function inThreadService(root: string, live: readonly Session[] = []): Promise<SessionReferenceService> {
  const registry = new InMemoryLiveRegistry();
  for (const session of live) registry.attach(session);
  const store = await JsonlSessionStore.open({ root, compression: 'none' });
  return new SessionReferenceService({ sessionQuery: new SessionQuery({ registry, storage: store }) });
}

/** Event-loop stall figures of one measured run. */
export interface StallFigures {
  readonly maxMs: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly runs: number;
  readonly wallMs: number;
}

/**
 * Runs `work` `runs` times under `perf_hooks.monitorEventLoopDelay` (1 ms resolution) and reports the
 * longest stall, the 99th percentile and the mean delay of the main thread's event loop. A short pause
 * after each run lets the histogram's timer fire, so a run that never yields is still recorded.
 */
export async function measureStall(work: () => Promise<unknown>, runs: number): Promise<StallFigures> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const start = performance.now();
  histogram.enable();
  for (let run = 0; run < runs; run++) {
    await work();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  histogram.disable();
  return {
    maxMs: histogram.max / 1e6,
    p99Ms: histogram.percentile(99) / 1e6,
    meanMs: histogram.mean / 1e6,
    runs,
    wallMs: performance.now() - start,
  };
}

/** The `p`-th percentile (0–100) of `values` (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Median, min and max of `values`, formatted `median (min–max)` with two decimals. */
export function spread(values: readonly number[]): string {
  return `${percentile(values, 50).toFixed(2)} (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
}

/** The thread ids of an engine's pool, sorted. */
export function poolThreadIds(engine: LocalSessionEngine): number[] {
  const runner = (engine.runner as { built?: { threads?: ReadonlyArray<{ threadId: number }> } }).built ?? {};
  return (runner.threads ?? []).map((thread) => thread.threadId).sort((a, b) => a - b);
}

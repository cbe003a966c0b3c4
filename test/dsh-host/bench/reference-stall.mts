/**
 * Benchmark R1 (issue 24): the dsh host's event loop while the resolver prepares three multi-megabyte sources.
 * One run, side by side: dsh 0.1.0-rc.8's resolver, `sessionctx/dsh` with its worker pool, and `sessionctx/dsh` with
 * `workers: false` — each on a fresh copy of the same dsh-written root (the fixtures plus three ~8 MB sessions a dsh
 * host wrote), rounds interleaved. Per round a new host cites the three sources in one turn (the cold preparation)
 * and then again in a second turn (the warm one). Measured: the largest gap of the host's event loop during the
 * turn (`monitorEventLoopDelay`, 1 ms resolution), its p99, and the turn's wall time; the floor is the same
 * histogram over an idle second. Prints a markdown report for bench/RESULTS.md.
 *
 * Run: `npm run bench -- dsh` at the repository root (it installs the packed package here first), or
 * `node_modules/node/bin/node bench/reference-stall.mts` in test/dsh-host after the tests installed it.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Plugin } from '@deepseek-ai/cordis';
import { SessionId } from '@deepseek-ai/dsh-session';
import DshResolver, { formatSessionReferenceMention } from '@deepseek-ai/dsh-session-reference';
import { bootDshHost } from '../harness/dsh-host.mts';
import { DSH_SMALL } from '../harness/fixture-root.mts';
import { writeLongSessions } from '../support/long-sessions.mts';
import { installPackedSessionctx } from '../support/packed-sessionctx.mts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CWD = '/home/dev/projects/ml-pipeline';
const LONG = [
  'session-8a000000-0000-4000-8000-00000000000a',
  'session-8b000000-0000-4000-8000-00000000000b',
  'session-8c000000-0000-4000-8000-00000000000c',
];

interface Sample {
  readonly maxMs: number;
  readonly p99Ms: number;
  readonly wallMs: number;
}

async function measured(work: () => Promise<unknown>): Promise<Sample> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  histogram.disable();
  return { maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, wallMs };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  // What is measured is what ships: the repository's `npm pack`, installed here.
  rmSync(installPackedSessionctx(), { recursive: true, force: true });
  const cache = mkdtempSync(join(tmpdir(), 'bench-cache-'));
  process.env.XDG_CACHE_HOME = cache;
  const { default: SessionctxResolver } = await import('sessionctx/dsh');
  const all: ReadonlyArray<{ name: string; resolver: Plugin; config: object }> = [
    { name: "dsh's resolver", resolver: DshResolver as unknown as Plugin, config: {} },
    { name: 'sessionctx/dsh (pool)', resolver: SessionctxResolver as unknown as Plugin, config: {} },
    { name: 'sessionctx/dsh (workers: false)', resolver: SessionctxResolver as unknown as Plugin, config: { workers: false } },
  ];
  // BENCH_ONLY=<substring> keeps the matching variants (dsh's always stays: every ratio is against it).
  const only = process.env.BENCH_ONLY;
  const variants = all.filter((variant, index) => index === 0 || only === undefined || variant.name.includes(only));
  const template = mkdtempSync(join(tmpdir(), 'bench-root-'));
  cpSync(join(DSH_SMALL, 'raw'), template, { recursive: true });
  await writeLongSessions(template, { ids: LONG, cwd: CWD, bytesPerSession: 8 * 1024 * 1024, replyBytes: 64 * 1024 });
  const text = `Summarise ${LONG.map((id) => formatSessionReferenceMention({ sessionId: SessionId(id) })).join(', ')}.`;
  const floor = await measured(() => new Promise((resolve) => setTimeout(resolve, 1000)));
  const results = new Map<string, { cold: Sample[]; warm: Sample[] }>(variants.map((variant) => [variant.name, { cold: [], warm: [] }]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const variant of variants) {
      const root = mkdtempSync(join(tmpdir(), 'bench-run-'));
      cpSync(template, root, { recursive: true });
      // A fresh source cache per round, so the first turn is cold for sessionctx as it is for dsh.
      rmSync(join(cache, 'sessionctx'), { recursive: true, force: true });
      const host = await bootDshHost({
        root,
        resolver: variant.resolver,
        resolverConfig: variant.config,
        replies: [
          { kind: 'text', text: 'Summary one.' },
          { kind: 'text', text: 'Summary two.' },
        ],
      });
      try {
        const target = await host.createSession({ id: `session-bench-${round}`, cwd: CWD });
        const entry = results.get(variant.name) as { cold: Sample[]; warm: Sample[] };
        entry.cold.push(await measured(() => host.runTurn(target, text)));
        entry.warm.push(await measured(() => host.runTurn(target, text)));
      } finally {
        await host.dispose();
        rmSync(root, { recursive: true, force: true });
      }
    }
  }
  rmSync(template, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });

  const dsh = results.get("dsh's resolver") as { cold: Sample[]; warm: Sample[] };
  const lines = [
    `### R1 — the dsh host's event loop while the resolver prepares 3 × ~8 MB sources (${ROUNDS} rounds, medians)`,
    '',
    `Idle floor (1 s, nothing running): max ${floor.maxMs.toFixed(1)} ms, p99 ${floor.p99Ms.toFixed(1)} ms.`,
    '',
    '| resolver | cold turn: worst gap | p99 | wall | ÷ dsh worst gap | warm turn: worst gap | wall |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [name, { cold, warm }] of results) {
    const worst = median(cold.map((sample) => sample.maxMs));
    lines.push(
      `| ${name} | ${worst.toFixed(1)} ms | ${median(cold.map((s) => s.p99Ms)).toFixed(1)} ms | ${median(cold.map((s) => s.wallMs)).toFixed(0)} ms | ${(worst / median(dsh.cold.map((s) => s.maxMs))).toFixed(2)} | ${median(warm.map((s) => s.maxMs)).toFixed(1)} ms | ${median(warm.map((s) => s.wallMs)).toFixed(0)} ms |`,
    );
  }
  console.log(lines.join('\n'));
}

await main();

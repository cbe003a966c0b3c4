/**
 * Benchmark D1-dsh (issue 25): `sessionctx/dsh-dcp` in a real dsh 0.1.0-rc.8 host against the same host with no DCP
 * at all, on sessions seeded with the DCP corpus of DCP.md §19 (`bench/support/dcp-corpus.ts`, compiled) at 1k, 10k
 * and 50k events. Per (variant, size) a fresh child process boots the host (`support/dcp-host.mts`, dsh's own
 * plugins, scripted model; dsh's diagnostics invariants off unless `BENCH_INVARIANTS=1`), creates the agent with the seeded log and runs plain turns:
 *
 * - pre-step: the whole `agent/pre-step` waterfall of a turn, timed by an outermost listener around `next()` (DCP's
 *   listener runs inside it; with no DCP the waterfall is dsh's default); the first turn's pre-step (the view built
 *   and the index replayed from the seeded log) is reported apart, with the host's largest event-loop gap during
 *   that first turn (the view folds a long log in slices);
 * - turn: the wall time of one plain turn, prompt to idle — also with `compress.enabled: false` (no tool, no markers), which
 *   shows what of the difference is dsh's own per-message work for the boundary marker each step adds to the history;
 * - memory: the heap plus the array buffers after two forced collections once every turn ran, DCP's minus no DCP's for
 *   the same size (the view, the index, the byte log of `/dcp stats` and everything else the plugin keeps);
 * - for scale, the same host with a plugin whose pre-step listener only passes the decision on (what the host's own
 *   waterfall and its cache state cost any listener);
 * - `/dcp stats` at the largest size: wall time and the host's largest event-loop gap while the ledger is folded on
 *   the plugin's worker thread.
 *
 * Rounds alternate the variants; medians over the measured turns (after the warm-up turns) of every round. Prints a
 * markdown report for bench/RESULTS.md.
 *
 * Run: `npm run bench -- dshdcp` at the repository root (it installs the packed package here first), or
 * `node_modules/node/bin/node bench/dcp-pre-step.mts` in test/dsh-host after the tests installed it.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { generateDcpCorpus } from '../support/dcp-dist.mts';
import { bootDcpHost } from '../support/dcp-host.mts';
import { rc8Kit } from '../support/dcp-kit-rc8.mts';
import { installPackedSessionctx } from '../support/packed-sessionctx.mts';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,50000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 20);
const MEASURED = Number(process.env.BENCH_TURNS ?? 60);
const VARIANTS = ['dsh, no DCP', 'sessionctx/dsh-dcp', 'sessionctx/dsh-dcp, compress off', 'an empty pre-step listener'] as const;
type Variant = (typeof VARIANTS)[number];

/** What one child run measured. */
interface ChildReport {
  readonly seeded: number;
  readonly firstPreStepMs: number;
  /** The host's largest event-loop gap during the first turn (the view's first fold of the seeded log included). */
  readonly firstTurnGapMs: number;
  readonly preStepMs: number[];
  readonly turnMs: number[];
  /** The host's largest event-loop gap during one more plain turn after the measured ones (not in `turnMs`). */
  readonly plainTurnGapMs: number;
  readonly heapBytes: number;
  readonly stats?: { readonly wallMs: number; readonly maxGapMs: number; readonly pool: number };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/**
 * The largest gap between two turns of the event loop from now until `stop()`, the stretch up to `stop()` included:
 * a histogram of `monitorEventLoopDelay` records nothing for a stretch the loop never turned in.
 */
function gapMeter(): { stop(): number } {
  let last = performance.now();
  let max = 0;
  let running = true;
  const tick = (): void => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      running = false;
      return Math.max(max, performance.now() - last);
    },
  };
}

const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run the child with --expose-gc');
  gc();
  gc();
};

/** One (variant, size) run in this process. */
async function child(variant: Variant, size: number, withStats: boolean): Promise<ChildReport> {
  const dcp = variant === 'sessionctx/dsh-dcp' || variant === 'sessionctx/dsh-dcp, compress off';
  // A plugin whose pre-step listener only passes the decision on: what the host's own machinery costs a listener.
  const empty = {
    name: 'bench-empty-pre-step',
    apply(ctx: { on(name: string, listener: (...args: never[]) => unknown): () => void }) {
      ctx.on('agent/pre-step', (async (_payload: unknown, next: () => Promise<unknown>) => next()) as (...args: never[]) => unknown);
    },
  };
  const compress = variant === 'sessionctx/dsh-dcp';
  const turns = 1 + WARM_UP + MEASURED;
  const host = await bootDcpHost({
    kit: rc8Kit,
    dcp: dcp ? { compress: { enabled: compress, retainRecentTurns: 1, minNetSavingsTokens: 1 } } : null,
    replies: Array.from({ length: turns + 5 }, (_, index) => ({ text: `Answer ${index}: the cache salt rotates weekly.` })),
    seed: `bench-${size}`,
    ...(variant === 'an empty pre-step listener' ? { after: [empty] } : {}),
    // What a deployment runs: no per-request test checks, no diagnostics invariants (each refolds the log per request).
    checks: false,
    record: false,
    deterministic: false,
    invariants: process.env.BENCH_INVARIANTS === '1',
  });
  try {
    const seed = generateDcpCorpus(size);
    const agent = await host.createAgent(`bench-${size}`, { seed });
    const preSteps: number[] = [];
    host.ctx.on(
      'agent/pre-step',
      (async (_payload: unknown, next: () => Promise<unknown>) => {
        const started = performance.now();
        const decision = await next();
        preSteps.push(performance.now() - started);
        return decision;
      }) as (...args: never[]) => unknown,
      { prepend: true },
    );
    const turnTimes: number[] = [];
    let firstTurnGapMs = 0;
    let heapBytes = 0;
    for (let turn = 0; turn < turns; turn += 1) {
      const gaps = turn === 0 ? gapMeter() : undefined;
      const started = performance.now();
      await host.prompt(agent, `Question ${turn}: why does the cache miss after a deploy?`);
      turnTimes.push(performance.now() - started);
      if (gaps !== undefined) firstTurnGapMs = gaps.stop();
    }
    // One more plain turn, with the gap meter (its ticks would slow the measured turns).
    const plainGaps = gapMeter();
    await host.prompt(agent, 'One more question: what is the salt now?');
    const plainTurnGapMs = plainGaps.stop();
    // After every turn (the byte log `/dcp stats` captures from is complete by then): the heap and the array buffers
    // (the byte log lives outside the JavaScript heap).
    collect();
    const memory = process.memoryUsage();
    heapBytes = memory.heapUsed + memory.arrayBuffers;
    if (host.mismatches.length > 0 || host.agentErrors.length > 0) {
      throw new Error(`bench: ${host.mismatches.length} request mismatches, ${host.agentErrors.length} agent errors`);
    }
    let stats: ChildReport['stats'];
    if (withStats && compress) {
      const gaps = gapMeter();
      const started = performance.now();
      const execution = await host.command(agent, '/dcp stats');
      const wallMs = performance.now() - started;
      const maxGapMs = gaps.stop();
      if (execution?.result.kind !== 'success') throw new Error('bench: /dcp stats failed');
      const service = host.ctx.get('sessionctxDcp') as { runtime: { ledgers: { runs: { pool: number } } } };
      stats = { wallMs, maxGapMs, pool: service.runtime.ledgers.runs.pool };
    }
    return {
      seeded: seed.length,
      firstPreStepMs: preSteps[0] as number,
      firstTurnGapMs,
      preStepMs: preSteps.slice(1 + WARM_UP),
      turnMs: turnTimes.slice(1 + WARM_UP),
      plainTurnGapMs,
      heapBytes,
      ...(stats === undefined ? {} : { stats }),
    };
  } finally {
    await host.dispose();
  }
}

function runChild(variant: Variant, size: number, withStats: boolean): ChildReport {
  const run = spawnSync(
    process.execPath,
    ['--no-warnings', '--expose-gc', fileURLToPath(import.meta.url), '--child', variant, String(size), withStats ? 'stats' : ''],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`bench dshdcp: child ${variant} @ ${size} exited with ${String(run.status)}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as ChildReport;
}

const fixed = (value: number, digits = 2): string => value.toFixed(digits);

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    const report = await child(process.argv[3] as Variant, Number(process.argv[4]), process.argv[5] === 'stats');
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  // What is measured is what ships: the repository's `npm pack`, installed here.
  installPackedSessionctx();
  const reports = new Map<string, ChildReport[]>();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const size of SIZES) {
      for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const key = `${variant}@${size}`;
        const withStats = size === Math.max(...SIZES) && round === 0;
        reports.set(key, [...(reports.get(key) ?? []), runChild(variant, size, withStats)]);
      }
    }
  }
  const of = (variant: Variant, size: number): ChildReport[] => reports.get(`${variant}@${size}`) ?? [];
  const lines: string[] = [];
  lines.push(
    `Command: \`npm run bench -- dshdcp\` (\`test/dsh-host/bench/dcp-pre-step.mts\`, Node ${process.versions.node}, dsh 0.1.0-rc.8's own plugins,`,
    `invariants ${process.env.BENCH_INVARIANTS === '1' ? 'active' : 'off'}, scripted model). Seed: DCP.md §19's corpus. ${ROUNDS} rounds × (${WARM_UP} warm-up + ${MEASURED} measured) plain turns`,
    'per variant and size, each run in a fresh process; medians over every measured turn. "ours" is sessionctx/dsh-dcp.',
    '',
    '| size (seeded events) | pre-step, no DCP | pre-step, ours | first pre-step, ours | first turn: largest host gap, no DCP / ours | turn, no DCP | turn, ours | turn ÷ no DCP | ours with compress off: turn ÷ no DCP | memory overhead |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  const ours: Record<number, number> = {};
  for (const size of SIZES) {
    const none = of('dsh, no DCP', size);
    const dcp = of('sessionctx/dsh-dcp', size);
    const preNone = median(none.flatMap((report) => report.preStepMs));
    const preDcp = median(dcp.flatMap((report) => report.preStepMs));
    ours[size] = preDcp;
    const turnNone = median(none.flatMap((report) => report.turnMs));
    const turnDcp = median(dcp.flatMap((report) => report.turnMs));
    const turnOff = median(of('sessionctx/dsh-dcp, compress off', size).flatMap((report) => report.turnMs));
    const first = median(dcp.map((report) => report.firstPreStepMs));
    const firstGap = (reports: readonly ChildReport[]): string => fixed(median(reports.map((report) => report.firstTurnGapMs)), 1);
    const heap = median(dcp.map((report) => report.heapBytes)) - median(none.map((report) => report.heapBytes));
    lines.push(
      `| ${dcp[0]?.seeded ?? size} | ${fixed(preNone, 3)} ms | ${fixed(preDcp, 3)} ms | ${fixed(first, 1)} ms | ${firstGap(none)} / ${firstGap(dcp)} ms | ${fixed(turnNone)} ms | ${fixed(turnDcp)} ms | ${fixed(turnDcp / turnNone)} | ${fixed(turnOff / turnNone)} | ${fixed(heap / 2 ** 20, 1)} MiB |`,
    );
  }
  const smallest = Math.min(...SIZES);
  const largest = Math.max(...SIZES);
  const emptyAt = (size: number): number => median(of('an empty pre-step listener', size).flatMap((report) => report.preStepMs));
  lines.push(
    '',
    `Pre-step flatness (sessionctx/dsh-dcp): ${largest} ÷ ${smallest} = ${fixed((ours[largest] as number) / (ours[smallest] as number))}.`,
    `For scale, an empty pre-step listener (\`async (payload, next) => next()\`) in the same host: ${SIZES.map((size) => `${fixed(emptyAt(size), 4)} ms at ${size}`).join(', ')} (${largest} ÷ ${smallest} = ${fixed(emptyAt(largest) / emptyAt(smallest))}).`,
  );
  const stats = of('sessionctx/dsh-dcp', largest).find((report) => report.stats !== undefined)?.stats;
  if (stats !== undefined) {
    const turnGap = median(of('dsh, no DCP', largest).map((report) => report.plainTurnGapMs));
    lines.push(
      `\`/dcp stats\` at ${largest} events: ${fixed(stats.wallMs, 1)} ms wall, largest event-loop gap of the host ${fixed(stats.maxGapMs, 1)} ms (ledger folds on the worker pool: ${stats.pool}); for scale, the median largest gap of one plain turn of dsh with no DCP at that size: ${fixed(turnGap, 1)} ms.`,
    );
  }
  console.log(lines.join('\n'));
}

await main();

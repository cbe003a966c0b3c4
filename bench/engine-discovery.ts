/**
 * Issue 11, item 2: discovery through `createEngine`'s default. Before, `createEngine({ root })`
 * observed titles with `titles: 'pool'` (every query re-inspects every log on the workers); now it
 * detects the encoding and reads titles from the persistent title index. Measured side by side in
 * one process over four long dsh-shaped zstd sessions: the old default, the new default (its cold
 * first query, repeated queries, and a restart over the persisted index), and a floor — one
 * `listSessions` of the same engine — with and without workers.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEngine } from '../src/main/engine/assembly/create-engine.js';
import type { LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';
import { JsonlSessionStore } from '../src/main/engine/store/jsonl-store.js';
import { measureStall } from './p3-pool-support.js';
import { measureInterleaved, rowOf, timeOnce } from './support/interleaved.js';
import type { MeasuredRow } from './support/measure.js';
import { syntheticSession } from './support/synthetic-session.js';

/** Turns per generated session: 34 events a turn gives 22k–31k events, the range of the dsh logs the issue measured. */
const TURNS = [650, 750, 850, 920] as const;
const TEXT_BYTES = 2560;
const TOOL_CALLS = 2;
const CHUNKS = 24;
/** Events per durable append, as P8 writes (dsh appends a batch per step). */
const BATCH = 64;
const ROUNDS = 9;
const CWD = '/bench/engine';
const TARGET = { id: 'bench-engine-target', session: { header: { cwd: CWD } } };
const QUERY = 'a';

interface WrittenSession {
  readonly events: number;
  readonly zstdBytes: number;
}

/** Writes the four sessions into a zstd root, in durable batches. */
async function writeLongSessions(root: string): Promise<WrittenSession[]> {
  const store = await JsonlSessionStore.open({ root, compression: 'zstd', titleIndex: false });
  const written: WrittenSession[] = [];
  for (const [index, turns] of TURNS.entries()) {
    // "shaped" puts an `a` in every id, so the query matches all four and every title is observed and returned.
    const { header, events } = syntheticSession({
      id: `dsh-shaped-long-${index}`,
      cwd: CWD,
      createdAt: 1_767_225_600_000 + index * 3_600_000,
      turns,
      textBytes: TEXT_BYTES,
      toolCallsPerTurn: TOOL_CALLS,
      chunksPerAnswer: CHUNKS,
    });
    const path = await store.create(header, events.slice(0, BATCH));
    for (let at = BATCH; at < events.length; at += BATCH) await store.append(header, events.slice(at, at + BATCH));
    written.push({ events: events.length, zstdBytes: statSync(path).size });
  }
  return written;
}

/** Every file under `dir` (the title index file, once written). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Times one call and the longest event-loop stall during it (1 ms resolution, as P3 measures). */
async function timeWithStall(fn: () => unknown): Promise<{ ms: number; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const ms = await timeOnce(fn);
  // One more turn, so a stall that ended the call is sampled before the histogram stops.
  await new Promise((resolve) => setTimeout(resolve, 5));
  histogram.disable();
  return { ms, stallMs: histogram.max / 1e6 };
}

/** Max event-loop stall, ms, per kind of call. */
interface Stalls {
  readonly oldFirst: number;
  readonly newCold: number;
  readonly oldRepeated: number;
  readonly newRepeated: number;
  readonly idle: number;
}

interface ModeResult {
  readonly rows: MeasuredRow[];
  readonly stalls: Stalls;
  readonly identical: boolean;
  readonly candidates: number;
  readonly indexFiles: number;
}

const OLD = "old default: titles 'pool', repeated";
const NEW = 'new default (index), repeated';
const NEW_ALONE = 'new default (index), repeated, without the old default between';
const FLOOR_ALONE = 'floor, without the old default between';
const FLOOR = 'floor: one listSessions (same engine)';

/** Measures one mode (workers on or off) over `root`, with the caches in fresh directories under `dir`. */
async function measureMode(dir: string, root: string, workers: boolean): Promise<ModeResult> {
  const tag = workers ? 'workers' : 'no-workers';
  const poolCache = mkdtempSync(join(dir, `cache-pool-${tag}-`));
  const indexCache = mkdtempSync(join(dir, `cache-index-${tag}-`));
  const engines: LocalSessionEngine[] = [];
  try {
    // Both engines get a temp cache: the old one must not warm the new one's index, and neither may touch the user's cache.
    const oldEngine = await createEngine({ root, titles: 'pool', workers, store: { cacheDirectory: poolCache } });
    engines.push(oldEngine);
    const newEngine = await createEngine({ root, workers, store: { cacheDirectory: indexCache } });
    engines.push(newEngine);
    if (newEngine.compression !== 'zstd') throw new Error(`createEngine detected ${newEngine.compression}, expected zstd`);
    const { ms: oldFirst, stallMs: oldFirstStall } = await timeWithStall(() => oldEngine.listCandidates(TARGET, QUERY));
    const { ms: newCold, stallMs: newColdStall } = await timeWithStall(() => newEngine.listCandidates(TARGET, QUERY));
    // The index file is written after a quiet moment, off the query; waiting for it here times that write and
    // makes every restart round below read a persisted index.
    const indexWrite = await timeOnce(() => newEngine.store?.flushTitleIndex());
    const indexFiles = filesUnder(indexCache).length;
    const expected = JSON.stringify(await oldEngine.listCandidates(TARGET, QUERY));
    const got = await newEngine.listCandidates(TARGET, QUERY);
    let restartsIdentical = true;
    const rows = await measureInterleaved(
      {
        [OLD]: () => oldEngine.listCandidates(TARGET, QUERY),
        [NEW]: () => newEngine.listCandidates(TARGET, QUERY),
        [FLOOR]: () => newEngine.listSessions(),
        'restart: createEngine + first query over the persisted index': async () => {
          const fresh = await createEngine({ root, workers, store: { cacheDirectory: indexCache } });
          try {
            if (JSON.stringify(await fresh.listCandidates(TARGET, QUERY)) !== expected) restartsIdentical = false;
          } finally {
            await fresh.close();
          }
        },
      },
      ROUNDS,
    );
    // The interleaved new-default rows sit right after the old default's calls and (most likely) pay for collecting
    // their garbage; the query and the floor timed without that neighbour show the index's own cost.
    const alone = await measureInterleaved(
      { [NEW_ALONE]: () => newEngine.listCandidates(TARGET, QUERY), [FLOOR_ALONE]: () => newEngine.listSessions() },
      ROUNDS,
    );
    // Whether a call blocks the host's event loop, not how long it takes: three calls each, and the idle floor.
    const oldStall = await measureStall(() => oldEngine.listCandidates(TARGET, QUERY), 3);
    const newStall = await measureStall(() => newEngine.listCandidates(TARGET, QUERY), 3);
    const idleStall = await measureStall(() => new Promise((resolve) => setTimeout(resolve, oldStall.wallMs / 3)), 3);
    return {
      stalls: {
        oldFirst: oldFirstStall,
        newCold: newColdStall,
        oldRepeated: oldStall.maxMs,
        newRepeated: newStall.maxMs,
        idle: idleStall.maxMs,
      },
      rows: [
        rowOf("old default: titles 'pool', first query", [oldFirst]),
        ...rows.slice(0, 1),
        rowOf('new default (index), cold first query (builds the index)', [newCold]),
        rowOf('new default (index), the deferred index write after it (`flushTitleIndex`)', [indexWrite]),
        ...rows.slice(1),
        ...alone,
      ],
      identical: JSON.stringify(got) === expected && restartsIdentical,
      candidates: got.length,
      indexFiles,
    };
  } finally {
    for (const engine of engines) await engine.close();
    rmSync(poolCache, { recursive: true, force: true });
    rmSync(indexCache, { recursive: true, force: true });
  }
}

/** Like `markdownTable`, with ratios to three significant digits: the index rows are far below 0.01. */
function ratioTable(rows: readonly MeasuredRow[], baseline: string): string {
  const base = median(rows, baseline);
  const lines = ['| contender | median ms | min–max ms | runs | ratio to old default (repeated) |', '|---|---:|---:|---:|---:|'];
  for (const row of rows) {
    const spread = row.samples === 1 ? 'one run' : `${row.minMs.toFixed(2)}–${row.maxMs.toFixed(2)}`;
    lines.push(`| ${row.name} | ${row.medianMs.toFixed(2)} | ${spread} | ${row.samples} | ${(row.medianMs / base).toPrecision(3)} |`);
  }
  return lines.join('\n');
}

function median(rows: readonly MeasuredRow[], name: string): number {
  const row = rows.find((candidate) => candidate.name === name);
  if (row === undefined) throw new Error(`no row "${name}"`);
  return row.medianMs;
}

/** Runs the suite and returns its markdown report. */
export async function runEngineDiscovery(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-engine-'));
  try {
    const root = join(dir, 'root');
    const written = await writeLongSessions(root);
    const loadBefore = loadavg()[0] ?? 0;
    const modes = [
      { label: 'workers (default pool)', result: await measureMode(dir, root, true) },
      { label: '`workers: false` (the `--no-workers` equivalent)', result: await measureMode(dir, root, false) },
    ];
    const loadAfter = loadavg()[0] ?? 0;
    const lines = [
      "### Discovery through createEngine's default",
      '',
      `Corpus: ${written.length} generated dsh-format sessions in one zstd root (bench/support/synthetic-session.ts: per turn a user prompt, ${CHUNKS} streamed chunks, reasoning + answer, ${TOOL_CALLS} tool calls with ${TEXT_BYTES / 1024} KiB prompts, answers and results; ${BATCH} events per durable append): ` +
        written
          .map((session) => `${session.events.toLocaleString('en-US')} events / ${(session.zstdBytes / 2 ** 20).toFixed(1)} MiB`)
          .join(', ') +
        `. Query: \`listCandidates(target, '${QUERY}')\` (all ${written.length} match). Repeated rows: ${ROUNDS} interleaved rounds (old, new, floor, restart in turn), then ${ROUNDS} rounds of new and floor alone; first-query rows: one run. Load average (1 min) ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after.`,
    ];
    for (const { label, result } of modes) {
      const { rows } = result;
      const oldMs = median(rows, OLD);
      const newMs = median(rows, NEW);
      const floorMs = median(rows, FLOOR);
      const aloneMs = median(rows, NEW_ALONE);
      const floorAloneMs = median(rows, FLOOR_ALONE);
      lines.push(
        '',
        `#### ${label}`,
        '',
        ratioTable(rows, OLD),
        '',
        `New / old (repeated medians): **${(newMs / oldMs).toFixed(4)}** interleaved, **${(aloneMs / oldMs).toFixed(4)}** without the old default between; new / floor: ${(newMs / floorMs).toFixed(2)} interleaved, **${(aloneMs / floorAloneMs).toFixed(2)}** on their own. Results identical to the old default (including every restart): **${result.identical ? 'yes' : 'NO'}** (${result.candidates} candidates); title index files in the temp cache: ${result.indexFiles}.`,
        '',
        `Max event-loop stall (\`monitorEventLoopDelay\`, 1 ms): old first query ${result.stalls.oldFirst.toFixed(1)} ms, new cold query ${result.stalls.newCold.toFixed(1)} ms; over 3 repeated calls old ${result.stalls.oldRepeated.toFixed(1)} ms, new ${result.stalls.newRepeated.toFixed(1)} ms; idle floor ${result.stalls.idle.toFixed(1)} ms.`,
      );
    }
    return lines.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

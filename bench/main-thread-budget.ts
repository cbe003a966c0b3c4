/**
 * Main-thread budget (issue 27 item 6): the host thread's worst event-loop gap during each background job an engine
 * runs — the title index's first build (a cold listing with its titles), the warm corpus view's refresh after 1% of the
 * logs grew, the source cache's entries written after a cold `prepare`, the search index's build — beside the idle
 * floor measured in the same run (an idle main thread while another thread spins: what the machine alone costs).
 * Target: each job's worst gap ≤ the floor + 2 ms.
 */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createEngine, type LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';
import { dshCorpusSession, writeDshCorpus, type DshCorpusOptions } from './support/dsh-corpus.js';
import { artifactBytes, artifactPathOf, longSession } from './support/long-session.js';
import { busyWorkerFloor, type GapFigures, withGaps } from './support/event-loop-gaps.js';

/** Sessions of the generated corpus (dsh-shaped, plain JSONL so appends are one line). */
const SESSIONS = 5_000;
/** The share of the logs that grow before the corpus view's refresh is measured. */
const GROWN = SESSIONS / 100;
const CORPUS: DshCorpusOptions = { sessions: SESSIONS, seed: 27 };
const TARGET = { id: 'bench-target', session: { header: { cwd: '/bench/target' } } };

/** Settles at the warm view's next change report, or after `ms`. */
function nextCorpusChange(engine: LocalSessionEngine, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const stop = engine.onCorpusChange(done);
    function done(): void {
      clearTimeout(timer);
      stop?.();
      resolve();
    }
  });
}

/** Appends a user rename (valid after a finished turn) to the first `count` logs of the corpus. */
async function growLogs(root: string, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const session = dshCorpusSession(index, CORPUS);
    const last = session.events[session.events.length - 1];
    const seq = (last?.seq ?? 0) + 1;
    const time = (last?.time ?? session.header.createdAt) + 1000;
    const event = { type: 'session/title', seq, time, data: { title: `grown ${index}`, messageSeqs: [], source: { kind: 'user' } } };
    await appendFile(artifactPathOf(root, session.header, 'none'), `${JSON.stringify(event)}\n`);
  }
}

function row(job: string, figures: GapFigures, floor: GapFigures): string {
  const verdict = figures.maxStallMs <= floor.maxStallMs + 2 ? 'met' : 'not met';
  return `| ${job} | ${(figures.ms / 1000).toFixed(2)} | ${figures.maxStallMs.toFixed(1)} | ${figures.p99StallMs.toFixed(1)} | ${(figures.maxStallMs - floor.maxStallMs).toFixed(1)} | ${verdict} |`;
}

/** Runs the budget benchmark and returns its markdown report. */
export async function runMainThreadBudget(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sessionctx-budget-'));
  const previousCache = process.env.XDG_CACHE_HOME;
  // Every cache (title index, source cache, search index) under the run's directory.
  process.env.XDG_CACHE_HOME = join(dir, 'cache');
  try {
    const root = join(dir, 'root');
    await writeDshCorpus(root, CORPUS, 'none');
    const sources = [1, 2, 3].map((seed) =>
      longSession({
        id: `session-00000000-0000-4000-8000-0000000b00${seed}0`,
        cwd: '/bench/source',
        seed,
        minEvents: 20_000,
        textBytes: 260,
        toolCallsPerTurn: 2,
        chunksPerAnswer: 8,
        compactAfterTurn: 600,
      }),
    );
    for (const source of sources) {
      const path = artifactPathOf(root, source.header, 'none');
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, artifactBytes(source.header, source.events, 'none', 64));
    }
    const floor = await busyWorkerFloor(2000);
    const engine = await createEngine({ root, compression: 'none', poolSize: 2, corpus: { watch: true } });
    try {
      const titles = await withGaps(async () => {
        const listed = await engine.listSessions();
        await engine.readTitleSnapshots(listed.map((record) => record.header.id));
      });
      const refresh = await withGaps(async () => {
        const changed = nextCorpusChange(engine, 10_000);
        await growLogs(root, GROWN);
        await changed;
        const listed = await engine.listSessions();
        // The warm view's titles (what a host's listing reads after a change), not the exact reads, which list the
        // store again by design (engine-types.ts: exact reads always read their artifact).
        await engine.readListedTitleSnapshots(listed.slice(0, GROWN).map((record) => record.header.id));
      });
      const prepare = await withGaps(async () => {
        await engine.prepare(
          TARGET,
          [{ type: 'text', text: 'continue' }],
          sources.map((source) => ({ sessionId: source.header.id, label: source.header.id })),
        );
        // The entries are written after the answer; the flush waits for those writes.
        await engine.sourceCache?.flush();
      });
      const search = await withGaps(() => engine.buildSearchIndex());
      const after = await busyWorkerFloor(2000);
      const worstFloor = floor.maxStallMs >= after.maxStallMs ? floor : after;
      return [
        `### Main-thread budget — worst event-loop gap during each background job (${SESSIONS.toLocaleString('en-US')} sessions, 2 workers)`,
        '',
        `Idle floor (this thread idle while another spins 2 s), before / after the jobs: max ${floor.maxStallMs.toFixed(1)} / ${after.maxStallMs.toFixed(1)} ms, p99 ${floor.p99StallMs.toFixed(1)} / ${after.p99StallMs.toFixed(1)} ms. Target: each job's max ≤ the worse floor + 2 ms.`,
        '',
        '| job | s | max gap ms | p99 ms | max − floor ms | ≤ floor + 2 ms |',
        '|---|---|---|---|---|---|',
        row(`title index, first build (listing + ${SESSIONS.toLocaleString('en-US')} titles)`, titles, worstFloor),
        row(`corpus view refresh after ${GROWN} logs grew (+ their titles)`, refresh, worstFloor),
        row('cold prepare of 3 × 20k-event sources + source-cache writes', prepare, worstFloor),
        row('search index build', search, worstFloor),
      ].join('\n');
    } finally {
      await engine.close();
    }
  } finally {
    if (previousCache === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = previousCache;
    await rm(dir, { recursive: true, force: true });
  }
}

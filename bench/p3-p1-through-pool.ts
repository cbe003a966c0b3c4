/**
 * P1 re-measured through the pool (BENCHMARKS.md P1): `prepare()` of 3 × 4,000 × 1 KB sources from disk
 * with the stages on worker threads, against the in-thread renderer, the single-thread read + parse
 * floor of the same files, and the quadratic definition of retention (run once), all in one process.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryLiveRegistry } from '../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../src/main/engine/corpus/session-query.js';
import { defaultPoolSize } from '../src/main/engine/pool/pool-config.js';
import { JsonlSessionStore } from '../src/main/engine/store/jsonl-store.js';
import { projectSurface } from '../src/workers/reference/project-surface.js';
import { assembleReferencePrompt } from '../src/workers/reference/reference-prompt.js';
import { retainByDefinition } from '../test/support/reference-definition.js';
import { markdownTable, measure, measureSlow } from './support/measure.js';
import type { MeasuredRow } from './support/measure.js';
import { writeTextSources } from './support/reference-corpus.js';
import type { WrittenSource } from './support/reference-corpus.js';
import { BENCH_CONTENT, BENCH_TARGET, inThreadService, poolEngine, referencesTo } from './p3-pool-support.js';

const MAX_BYTES = 65536;

async function floor(sources: readonly WrittenSource[]): Promise<number> {
  let lines = 0;
  for (const source of sources) {
    for (const line of (await readFile(source.path, 'utf8')).split('\n')) {
      if (line === '') continue;
      JSON.parse(line);
      lines += 1;
    }
  }
  return lines;
}

async function byDefinition(query: SessionQuery, sources: readonly WrittenSource[]): Promise<string> {
  const snapshots = await Promise.all(sources.map((source) => query.readSurface(source.id)));
  return assembleReferencePrompt(
    snapshots.map((snapshot) => {
      const outcome = retainByDefinition(
        {
          sessionId: snapshot.session.id,
          label: snapshot.session.id,
          cwd: snapshot.session.cwd ?? null,
          capturedThroughSeq: snapshot.capturedThroughSeq,
          items: projectSurface(snapshot.events),
        },
        MAX_BYTES,
      );
      if (!outcome.fits) throw new Error('benchmark source does not fit');
      return outcome.json;
    }),
  );
}

function text(prepared: { additionalContext?: { content: ReadonlyArray<unknown> } }): string {
  return (prepared.additionalContext?.content[0] as { text: string }).text;
}

/** Runs P1 through the pool and returns its markdown report. */
export async function runP1Pool(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-p1pool-'));
  try {
    const root = join(dir, 'root');
    const sources = await writeTextSources(root, 'p1pool', 3, 4000, 1024);
    const references = referencesTo(sources.map((source) => source.id));
    const size = defaultPoolSize();
    const engine = await poolEngine(root, size);
    const baseline = await inThreadService(root);
    const query = new SessionQuery({
      registry: new InMemoryLiveRegistry(),
      storage: await JsonlSessionStore.open({ root, compression: 'none' }),
    });
    try {
      const pooled = text(await engine.prepare(BENCH_TARGET, BENCH_CONTENT, references));
      const identicalToInThread = pooled === text(await baseline.prepare(BENCH_TARGET, BENCH_CONTENT, references));
      const identicalToDefinition = pooled === (await byDefinition(query, sources));
      const fast = await measure(
        {
          'floor: read + JSON.parse (3 files, one thread)': () => floor(sources),
          'prepare() on the pool': () => engine.prepare(BENCH_TARGET, BENCH_CONTENT, references),
          'prepare() in-thread': () => baseline.prepare(BENCH_TARGET, BENCH_CONTENT, references),
        },
        { iterations: 10, timeMs: 3000 },
      );
      const definition = await measureSlow('quadratic definition (same reads + projection)', () => byDefinition(query, sources), 1);
      const rows: MeasuredRow[] = [...fast, definition];
      const pool = rows.find((row) => row.name === 'prepare() on the pool') as MeasuredRow;
      const floorRow = rows.find((row) => row.name.startsWith('floor')) as MeasuredRow;
      return [
        '### P1 through the pool — prepare() of 3 × 4,000 × 1 KB sources from disk (raw JSONL)',
        '',
        `Sources: 3 × 4,000 text messages of 1 KiB (${(statSync(sources[0]?.path as string).size / 2 ** 20).toFixed(1)} MiB each). Pool: ${size} threads. Output identical to the in-thread renderer: **${identicalToInThread ? 'yes' : 'NO'}**; to the quadratic definition: **${identicalToDefinition ? 'yes' : 'NO'}**.`,
        '',
        markdownTable(rows, 'prepare() on the pool'),
        '',
        `Definition / pool: **${(definition.medianMs / pool.medianMs).toFixed(0)}×** (target ≥ 300×). Pool / floor: **${(pool.medianMs / floorRow.medianMs).toFixed(2)}** (target ≤ 2).`,
      ].join('\n');
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

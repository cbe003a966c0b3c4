/**
 * P1 and P2 (BENCHMARKS.md): `prepare()` of three large text sources from disk, against the
 * quadratic definition of retention run in the same process and against the read + parse floor;
 * and how prepare scales from 1 MB to 4 MB to 16 MB per source.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryLiveRegistry } from '../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../src/main/engine/corpus/session-query.js';
import { SessionReferenceService } from '../src/main/engine/reference/session-reference-service.js';
import { JsonlSessionStore } from '../src/main/engine/store/jsonl-store.js';
import { projectSurface } from '../src/workers/reference/project-surface.js';
import { assembleReferencePrompt } from '../src/workers/reference/reference-prompt.js';
import { retainByDefinition } from '../test/support/reference-definition.js';
import { markdownTable, measure, measureSlow } from './support/measure.js';
import type { MeasuredRow } from './support/measure.js';
import { writeTextSources } from './support/reference-corpus.js';
import type { WrittenSource } from './support/reference-corpus.js';

const TARGET = { id: 'bench-target', session: { header: { cwd: '/bench/target' } } };
const MAX_BYTES = 65536;

async function openService(root: string): Promise<{ service: SessionReferenceService; query: SessionQuery }> {
  const store = await JsonlSessionStore.open({ root, compression: 'none' });
  const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
  return { service: new SessionReferenceService({ sessionQuery: query }), query };
}

function references(sources: readonly WrittenSource[]): Array<{ sessionId: string; label: string }> {
  return sources.map((source) => ({ sessionId: source.id, label: source.id }));
}

async function floor(sources: readonly WrittenSource[]): Promise<number> {
  let lines = 0;
  await Promise.all(
    sources.map(async (source) => {
      for (const line of (await readFile(source.path, 'utf8')).split('\n')) {
        if (line !== '') {
          JSON.parse(line);
          lines += 1;
        }
      }
    }),
  );
  return lines;
}

/** The same pipeline with the quadratic definition of retention in place of ours. */
async function byDefinition(query: SessionQuery, sources: readonly WrittenSource[]): Promise<string> {
  const snapshots = await Promise.all(sources.map((source) => query.readSurface(source.id)));
  const jsons = snapshots.map((snapshot) => {
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
  });
  return assembleReferencePrompt(jsons);
}

/** Runs P1 and P2 and returns their markdown report. */
export async function runP1(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-p1-'));
  try {
    const root = join(dir, 'root');
    const sizes = [1000, 4000, 16000];
    const bySize = new Map<number, WrittenSource[]>();
    for (const messages of sizes) bySize.set(messages, await writeTextSources(root, `src${messages}`, 3, messages, 1024));
    const { service, query } = await openService(root);
    const p1Sources = bySize.get(4000) as WrittenSource[];
    const ours = await service.prepare(TARGET, [{ type: 'text', text: 'bench' }], references(p1Sources));
    const definitionStart = performance.now();
    const definition = await byDefinition(query, p1Sources);
    console.error(`quadratic definition: ${((performance.now() - definitionStart) / 1000).toFixed(1)} s`);
    const identical =
      ours.additionalContext?.content[0] !== undefined && (ours.additionalContext.content[0] as { text: string }).text === definition;

    const fast = await measure(
      {
        'floor: read + JSON.parse (3 files)': () => floor(p1Sources),
        'prepare() (ours)': () => service.prepare(TARGET, [{ type: 'text', text: 'bench' }], references(p1Sources)),
      },
      { iterations: 10, timeMs: 3000 },
    );
    const slowRow = await measureSlow('quadratic definition (same reads + projection)', () => byDefinition(query, p1Sources), 1);
    const p1Rows: MeasuredRow[] = [...fast, slowRow];

    const scaling = await measure(
      Object.fromEntries(
        sizes.map((messages) => [
          `prepare() 3 × ${messages} × 1 KB`,
          () => service.prepare(TARGET, [{ type: 'text', text: 'bench' }], references(bySize.get(messages) as WrittenSource[])),
        ]),
      ),
      { iterations: 8, timeMs: 3000 },
    );
    const megabytes = sizes.map((messages) => statSync((bySize.get(messages) as WrittenSource[])[0]?.path as string).size / 2 ** 20);
    const ratio = (a: number, b: number): string => ((scaling[b]?.medianMs ?? 0) / (scaling[a]?.medianMs ?? 1)).toFixed(2);
    const oursRow = p1Rows.find((row) => row.name === 'prepare() (ours)') as MeasuredRow;
    const floorRow = p1Rows.find((row) => row.name.startsWith('floor')) as MeasuredRow;
    return [
      '### P1 — prepare() of 3 × 4,000 × 1 KB sources from disk (raw JSONL)',
      '',
      `Sources: 3 sessions of 4,000 text messages of 1 KiB (${megabytes[1]?.toFixed(1)} MiB each on disk); maxReferenceBytes 65,536. Output byte-identical to the definition: **${identical ? 'yes' : 'NO'}**.`,
      '',
      markdownTable(p1Rows, 'prepare() (ours)'),
      '',
      `Definition / ours: **${(slowRow.medianMs / oursRow.medianMs).toFixed(0)}×** (target ≥ 300×). Ours / floor: **${(oursRow.medianMs / floorRow.medianMs).toFixed(2)}** (target ≤ 2). The quadratic definition runs once (it takes seconds).`,
      '',
      '### P2 — scaling of prepare() with source size',
      '',
      `Per-source sizes on disk: ${megabytes.map((mb) => `${mb.toFixed(1)} MiB`).join(' → ')}.`,
      '',
      markdownTable(scaling, scaling[0]?.name ?? ''),
      '',
      `time(4S)/time(S): ${ratio(0, 1)} (1→4 MB), ${ratio(1, 2)} (4→16 MB); target ≤ 4.5.`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

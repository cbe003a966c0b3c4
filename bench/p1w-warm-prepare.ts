/**
 * P1w and P1r (issue 15): `prepare()` citing three long dsh-shaped sessions (≥ 20k events each, tool calls,
 * reasoning, one native compaction; Zstandard), measured side by side in one run:
 *
 * - P1w: warm (unchanged sources, answered by the source cache) vs cold; after appending 1% to one source;
 *   the whole-process CLI `prepare` repeated vs its first run (fresh cache directory).
 * - P1r: cold `prepare()` on 2 workers — cache off, and cache on but empty (a miss) — vs the
 *   single-thread read + zstd decode + `JSON.parse` floor of the same files.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, type LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';
import type { SourceServedReport } from '../src/main/engine/pool/pool-source-renderer.js';
import { formatSessionReferenceMention } from '../src/protocol/uri/mention-formatter.js';
import { decodeArtifact } from '../src/workers/decode/decode-artifact.js';
import { initZstd } from '../src/workers/decode/zstd-codec.js';
import { markdownTable, measureInterleaved, measureSlow, type MeasuredRow } from './support/measure.js';
import { artifactBytes, artifactPathOf, eventBytes, longSession, type LongSession } from './support/long-session.js';

const TARGET = { id: 'bench-target', session: { header: { cwd: '/bench/target' } } };
const EVENTS = 22_000;
const CLI_BIN = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main', 'faces', 'cli', 'bin.js');

function sessions(): LongSession[] {
  return [1, 2, 3].map((seed) =>
    longSession({
      id: `session-00000000-0000-4000-8000-00000000000${seed}`,
      cwd: '/bench/source',
      seed,
      minEvents: EVENTS,
      textBytes: 260,
      toolCallsPerTurn: 2,
      chunksPerAnswer: 8,
      compactAfterTurn: 600,
    }),
  );
}

function references(all: readonly LongSession[]): Array<{ sessionId: string; label: string }> {
  return all.map((session) => ({ sessionId: session.header.id, label: session.header.id }));
}

async function prepare(engine: LocalSessionEngine, all: readonly LongSession[]): Promise<string> {
  const result = await engine.prepare(TARGET, [{ type: 'text', text: 'continue' }], references(all));
  const text = result.additionalContext?.content[0] as { type?: unknown; text?: unknown } | undefined;
  if (typeof text?.text !== 'string') throw new Error('no context');
  return text.text;
}

/** The single-thread floor: read, decode every frame and parse every line of the three files, one after another. */
async function floor(paths: readonly string[]): Promise<number> {
  let events = 0;
  for (const path of paths) events += decodeArtifact(await readFile(path), 'zstd', path).events.length;
  return events;
}

function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`CLI exited ${code}: ${stderr}`))));
  });
}

/** Runs the suite and returns its markdown section. */
export async function runP1w(): Promise<string> {
  await initZstd();
  const dir = await mkdtemp(join(tmpdir(), 'sessionctx-p1w-'));
  try {
    const root = join(dir, 'root');
    const all = sessions();
    const paths = all.map((session) => artifactPathOf(root, session.header, 'zstd'));
    let totalBytes = 0;
    for (const [index, session] of all.entries()) {
      const path = paths[index] as string;
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, artifactBytes(session.header, session.events, 'zstd', 64));
      totalBytes += (await stat(path)).size;
    }
    const reports: SourceServedReport[] = [];
    const cold = await createEngine({ root, compression: 'zstd', poolSize: 2, sourceCache: false });
    const scanCold = await createEngine({ root, compression: 'zstd', poolSize: 2, sourceCache: { directory: null } });
    const warm = await createEngine({
      root,
      compression: 'zstd',
      poolSize: 2,
      sourceCache: { directory: join(dir, 'cache') },
      onSourceServed: (report) => reports.push(report),
    });
    const rows: MeasuredRow[] = [];
    const p1r: MeasuredRow[] = [];
    try {
      // Warm-up: threads started and JIT warm on every engine; answers equal.
      const expected = await prepare(cold, all);
      if ((await prepare(scanCold, all)) !== expected || (await prepare(warm, all)) !== expected)
        throw new Error('cached answer differs from cold');
      await floor(paths);

      // Interleaved (one run of each per round): the ratios hold on a machine whose speed drifts during the run. With
      // the cache on, each timed call is a miss: the entry writes are drained and the memory emptied before it, untimed.
      const [floorRow, coldRow, missRow] = await measureInterleaved(
        [
          { name: 'floor: read + decode + parse, 1 thread', run: () => floor(paths) },
          { name: 'cold prepare(), 2 workers, cache off', run: () => prepare(cold, all) },
          {
            name: 'cold prepare(), 2 workers, cache on and empty (miss)',
            run: () => prepare(scanCold, all),
            before: async () => {
              await scanCold.sourceCache?.flush();
              scanCold.sourceCache?.clearMemory();
            },
          },
        ],
        9,
      );
      if (floorRow === undefined || coldRow === undefined || missRow === undefined) throw new Error('a contender was not measured');
      p1r.push(floorRow, coldRow, missRow);
      await scanCold.sourceCache?.flush();
      // Issue 27: the preparation issued right after a miss, before its entry files are written (nothing drained).
      const nextTimes: number[] = [];
      for (let run = 0; run < 7; run += 1) {
        await scanCold.sourceCache?.flush();
        scanCold.sourceCache?.clearMemory();
        await prepare(scanCold, all);
        const start = performance.now();
        await prepare(scanCold, all);
        nextTimes.push(performance.now() - start);
      }
      await scanCold.sourceCache?.flush();
      nextTimes.sort((a, b) => a - b);
      p1r.push({
        name: 'the prepare() right after a miss (nothing drained)',
        medianMs: nextTimes[3] as number,
        minMs: nextTimes[0] as number,
        maxMs: nextTimes[6] as number,
        samples: 7,
      });

      rows.push(coldRow);
      reports.length = 0;
      rows.push(await measureSlow('warm prepare(), unchanged', () => prepare(warm, all), 21));
      const warmServed = new Set(reports.map((report) => report.served));

      // 1% of one source appended before each timed call (the cold engine reads the same grown file).
      const grow = async (): Promise<void> => {
        const handle = await open(paths[0] as string, 'a');
        try {
          await handle.write(eventBytes((all[0] as LongSession).more(EVENTS / 100), 'zstd', 64));
        } finally {
          await handle.close();
        }
      };
      const appendedTimes: number[] = [];
      reports.length = 0;
      for (let run = 0; run < 7; run += 1) {
        await grow();
        const start = performance.now();
        const answer = await prepare(warm, all);
        appendedTimes.push(performance.now() - start);
        if (run === 6 && answer !== (await prepare(cold, all))) throw new Error('appended answer differs from cold');
      }
      const appendedServed = reports.filter((report) => report.sessionId === all[0]?.header.id).map((report) => report.served);
      appendedTimes.sort((a, b) => a - b);
      rows.push({
        name: 'warm prepare(), 1% appended to one source',
        medianMs: appendedTimes[3] as number,
        minMs: appendedTimes[0] as number,
        maxMs: appendedTimes[6] as number,
        samples: 7,
      });
      const coldAfter = await measureSlow('cold prepare(), after the appends', () => prepare(cold, all), 5);
      rows.push(coldAfter);

      console.error(markdownTable([...rows, ...p1r], coldRow.name));
      // The whole CLI process: first run with an empty cache directory, then repeated.
      const cacheHome = join(dir, 'cli-cache');
      const env = { ...process.env, XDG_CACHE_HOME: cacheHome };
      const message = all.map((session) => formatSessionReferenceMention({ sessionId: session.header.id, label: 'source' })).join(' ');
      const cliArgs = ['prepare', '--root', root, '--target', TARGET.id, message];
      const cli: MeasuredRow[] = [];
      cli.push(
        await measureSlow(
          'CLI prepare, first run (empty cache)',
          async () => {
            await rm(cacheHome, { recursive: true, force: true });
            await runCli(cliArgs, env);
          },
          3,
        ),
      );
      await runCli(cliArgs, env);
      cli.push(await measureSlow('CLI prepare, repeated', () => runCli(cliArgs, env), 5));

      const stats = warm.sourceCache?.stats;
      return [
        `## P1w / P1r: warm and cold prepare() of 3 long dsh-shaped sessions (issue 15)`,
        '',
        `3 sessions of ${EVENTS.toLocaleString('en-US')}+ events each (tool calls, reasoning, one native compaction), zstd, ${(totalBytes / 2 ** 20).toFixed(1)} MiB together; pool of 2 workers.`,
        '',
        '### P1w: warm vs cold',
        '',
        markdownTable(rows, coldRow.name),
        '',
        `Served: unchanged calls ${[...warmServed].join('/')}, appended source ${[...new Set(appendedServed)].join('/')}. Cache memory after the run: ${stats === undefined ? 'n/a' : `${stats.entries} entries, ${(stats.bytes / 2 ** 20).toFixed(1)} MiB estimated`}.`,
        '',
        markdownTable(cli, cli[0]?.name ?? ''),
        '',
        '### P1r: cold vs the single-thread floor',
        '',
        markdownTable(p1r, p1r[0]?.name ?? ''),
      ].join('\n');
    } finally {
      await Promise.all([cold.close(), scanCold.close(), warm.close()]);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

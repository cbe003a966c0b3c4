/**
 * A citation in a large root (issue 27, "fast at every scale"): `prepare()` of one session at a time in a root of
 * `PREPARE_SCALE_SESSIONS` generated dsh-shaped zstd sessions (default 25,000), by a long-lived engine with its warm
 * corpus view (which says whether a cited id is listed) beside the same engine without one (which lists the root per
 * citation, as dsh does), interleaved in one run; the source cache off, so each citation reads its source. Also an id
 * no artifact has (the lookup answers "not found" without a listing when the view does not list it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';
import { dshCorpusSession, writeDshCorpus } from './support/dsh-corpus.js';

const SESSIONS = Number(process.env['PREPARE_SCALE_SESSIONS'] ?? 25_000);
const ROUNDS = 3;
const reader = { id: 'bench-reader', session: { header: {} } };

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Milliseconds of one citation of `sessionId` (a failure is timed too: "not found" is an answer). */
async function cite(engine: LocalSessionEngine, sessionId: string): Promise<number> {
  const started = performance.now();
  await engine.prepareSized(reader, [{ type: 'text', text: 'see this' }], [{ sessionId, label: 'cited' }]).catch(() => undefined);
  return performance.now() - started;
}

/** Runs the suite and returns its markdown report. */
export async function runPrepareScale(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-prepare-scale-'));
  const engines: LocalSessionEngine[] = [];
  try {
    const root = join(dir, 'root');
    const corpus = { sessions: SESSIONS, seed: 27 };
    await writeDshCorpus(root, corpus, 'zstd');
    const open = async (watch: boolean): Promise<LocalSessionEngine> => {
      const engine = await createEngine({
        root,
        compression: 'zstd',
        corpus: { watch },
        sourceCache: false,
        store: { cacheDirectory: join(dir, `cache-${watch}`) },
      });
      engines.push(engine);
      await engine.listSessions(); // the listing, the view and the title index built once
      await cite(engine, dshCorpusSession(0, corpus).header.id);
      return engine;
    };
    const warm = await open(true);
    const cold = await open(false);
    const kinds = {
      short: (at: number) => dshCorpusSession(1 + at * 50, corpus).header.id,
      long: (at: number) => dshCorpusSession(49 + at * 50, corpus).header.id,
      absent: (at: number) => `no-such-session-${at}`,
    };
    const rows: string[] = [];
    for (const [kind, idOf] of Object.entries(kinds)) {
      const times = { warm: [] as number[], cold: [] as number[] };
      for (let at = 0; at < ROUNDS * 2; at += 1) {
        times.warm.push(await cite(warm, idOf(at)));
        times.cold.push(await cite(cold, idOf(at)));
      }
      const [w, c] = [median(times.warm), median(times.cold)];
      rows.push(`| ${kind} | ${w.toFixed(1)} | ${c.toFixed(1)} | ${(w / c).toFixed(3)} |`);
    }
    return [
      `### Citing one session in a root of ${SESSIONS.toLocaleString('en-US')} sessions (zstd, source cache off), medians of ${ROUNDS * 2}`,
      '',
      '| cited | with the warm view (ms) | listing per citation (ms) | ratio |',
      '|---|---:|---:|---:|',
      ...rows,
    ].join('\n');
  } finally {
    await Promise.all(engines.map((engine) => engine.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * P8 (BENCHMARKS.md): decoding a dsh log, raw and zstd, through the store's full inspection
 * (read → decode → validate → fold), against the physical floor (read + JSON.parse every line).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { asSessionId } from '../src/protocol/events.js';
import { foldSurface } from '../src/protocol/surface-fold.js';
import { JsonlSessionStore } from '../src/main/engine/store/jsonl-store.js';
import { markdownTable, measure } from './support/measure.js';
import { syntheticSession } from './support/synthetic-session.js';

async function floorReadParse(path: string): Promise<number> {
  const text = await readFile(path, 'utf8');
  let count = 0;
  for (const line of text.split('\n')) {
    if (line !== '') {
      JSON.parse(line);
      count += 1;
    }
  }
  return count;
}

/** Writes the same synthetic session into a raw and a zstd root. */
async function writeBoth(
  dir: string,
  turns: number,
): Promise<{ raw: JsonlSessionStore; zstd: JsonlSessionStore; id: string; rawPath: string; zstdPath: string }> {
  const { header, events } = syntheticSession({
    id: 'bench-p8',
    cwd: '/bench/p8',
    turns,
    textBytes: 1024,
    toolCallsPerTurn: 2,
    chunksPerAnswer: 24,
  });
  const raw = await JsonlSessionStore.open({ root: join(dir, 'raw'), compression: 'none' });
  const zstd = await JsonlSessionStore.open({ root: join(dir, 'zstd'), compression: 'zstd' });
  const batch = 64;
  const rawPath = await raw.create(header, events.slice(0, batch));
  const zstdPath = await zstd.create(header, events.slice(0, batch));
  for (let at = batch; at < events.length; at += batch) {
    await raw.append(header, events.slice(at, at + batch));
    await zstd.append(header, events.slice(at, at + batch));
  }
  return { raw, zstd, id: header.id, rawPath, zstdPath };
}

/** Runs P8 and returns its markdown report. */
export async function runP8(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-p8-'));
  try {
    const { raw, zstd, id, rawPath, zstdPath } = await writeBoth(dir, 1500);
    const sessionId = asSessionId(id);
    const rawBytes = readFileSync(rawPath).byteLength;
    const zstdBytes = readFileSync(zstdPath).byteLength;
    const rows = await measure(
      {
        'floor: read + JSON.parse (raw)': () => floorReadParse(rawPath),
        'inspect + fold (raw)': async () => foldSurface((await raw.inspect(sessionId)).events),
        'inspect + fold (zstd)': async () => foldSurface((await zstd.inspect(sessionId)).events),
      },
      { iterations: 12, timeMs: 3000 },
    );
    return [
      `### P8 — decode + fold of one large log, raw vs zstd vs floor`,
      '',
      `Input: a generated dsh-format session, 1,500 turns (user prompt, 24 streamed chunks packed into rows, reasoning + answer, 2 tool calls with 1 KiB results), ${(rawBytes / 2 ** 20).toFixed(1)} MiB raw, ${(zstdBytes / 2 ** 20).toFixed(1)} MiB zstd (64 events per durable batch).`,
      '',
      markdownTable(rows, 'floor: read + JSON.parse (raw)'),
      '',
      `zstd / raw inspect ratio: ${((rows[2]?.medianMs ?? 0) / (rows[1]?.medianMs ?? 1)).toFixed(2)} (target ≤ 2).`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

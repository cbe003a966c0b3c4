// Issue 15 item 2: the source cache's answers equal a cold preparation's, byte for byte, whatever happens to the
// sources between calls — appends (whole and torn), in-place rewrites (with the mtime put back, so only the tail
// digest can notice), truncations and replacements — raw and zstd, persisted entries reloaded by a fresh engine,
// and a live session cited beside them. Also: an append racing a preparation yields one of the two cold answers.
// Seeded; SESSIONCTX_SOAK_RUNS raises the run count for local soak runs.
import { mkdir, mkdtemp, open, rename, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { SourceServedReport } from '../../../../src/main/engine/pool/pool-source-renderer.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { initZstd } from '../../../../src/workers/decode/zstd-codec.js';
import { artifactBytes, artifactPathOf, eventBytes, longSession, type LongSession } from '../../../../bench/support/long-session.js';

const RUNS = Number(process.env['SESSIONCTX_SOAK_RUNS'] ?? 12);
const TARGET = { id: 'target-session', session: { header: { cwd: '/work/p' } } };
const IDS = ['source-a', 'source-b'] as const;

type Action =
  | { readonly kind: 'append'; readonly source: number; readonly events: number }
  | { readonly kind: 'torn'; readonly source: number; readonly keep: number }
  | { readonly kind: 'rewrite'; readonly source: number; readonly at: number; readonly restoreMtime: boolean }
  | { readonly kind: 'truncate'; readonly source: number; readonly keep: number }
  | { readonly kind: 'replace'; readonly source: number; readonly seed: number }
  | { readonly kind: 'reload' }
  | { readonly kind: 'race'; readonly source: number; readonly events: number };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('append' as const), source: fc.nat(1), events: fc.integer({ min: 1, max: 40 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('torn' as const), source: fc.nat(1), keep: fc.double({ min: 0.05, max: 0.95, noNaN: true }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rewrite' as const),
      source: fc.nat(1),
      at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      restoreMtime: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('truncate' as const),
      source: fc.nat(1),
      keep: fc.double({ min: 0.3, max: 0.99, noNaN: true }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('replace' as const), source: fc.nat(1), seed: fc.integer({ min: 2, max: 1000 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reload' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('race' as const), source: fc.nat(1), events: fc.integer({ min: 1, max: 30 }) }) },
);

/** One preparation's answer or its failure, as comparable plain data. */
async function prepared(engine: LocalSessionEngine, ids: readonly string[], withMessage: boolean): Promise<unknown> {
  try {
    const result = await engine.prepare(
      TARGET,
      [{ type: 'text', text: 'see these' }],
      ids.map((sessionId) => ({ sessionId, label: `L-${sessionId}` })),
    );
    // The context message's id is fresh per call; everything else must be equal.
    const plain = JSON.parse(JSON.stringify(result)) as { additionalContext?: { id?: unknown } };
    if (plain.additionalContext !== undefined) delete plain.additionalContext.id;
    return plain;
  } catch (error) {
    const failure = error as Error & { code?: unknown; cause?: { message?: unknown; code?: unknown } };
    // With two failing sources the first failure in time wins (SESSION-REFERENCE.md §8 step 5), so only a single
    // source's failure has a deterministic text.
    return withMessage
      ? {
          error: {
            name: failure.name,
            code: failure.code,
            message: failure.message,
            cause: failure.cause?.message,
            causeCode: failure.cause?.code,
          },
        }
      : { error: { name: failure.name, code: failure.code } };
  }
}

/** Each source alone, then both together. */
async function answer(engine: LocalSessionEngine): Promise<unknown> {
  const single: unknown[] = [];
  for (const id of IDS) single.push(await prepared(engine, [id], true));
  return { single, both: await prepared(engine, IDS, false) };
}

function sessionOf(id: string, seed: number): LongSession {
  return longSession({
    id,
    cwd: '/work/p',
    seed,
    minEvents: 30 + (seed % 20),
    textBytes: 60,
    toolCallsPerTurn: 1,
    chunksPerAnswer: 2,
    compactAfterTurn: 2,
  });
}

describe("source cache: every prepared answer equals a cold engine's", () => {
  let dir: string;
  beforeAll(async () => {
    await initZstd();
    dir = await mkdtemp(join(tmpdir(), 'sessionctx-source-cache-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const compression of ['none', 'zstd'] as const satisfies readonly Compression[]) {
    it(`random histories of appends, torn tails, rewrites, truncations and replacements (${compression})`, async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(actionArb, { minLength: 3, maxLength: 9 }), fc.constantFrom(65536, 1500), async (actions, maxBytes) => {
          run += 1;
          const root = join(dir, `${compression}-${run}`, 'root');
          const cacheDir = join(dir, `${compression}-${run}`, 'cache');
          const sessions = IDS.map((id, index) => sessionOf(id, index + 1));
          const paths = sessions.map((session) => artifactPathOf(root, session.header, compression));
          for (const [index, session] of sessions.entries()) {
            const path = paths[index] as string;
            await mkdir(dirname(path), { recursive: true });
            await writeFile(path, artifactBytes(session.header, session.events, compression, 16));
          }
          const reports: SourceServedReport[] = [];
          const reference = { maxReferenceBytes: maxBytes };
          const open_ = (): Promise<LocalSessionEngine> =>
            createEngine({
              root,
              compression,
              workers: false,
              reference,
              sourceCache: { directory: cacheDir },
              onSourceServed: (report) => reports.push(report),
            });
          const cold = await createEngine({ root, compression, workers: false, reference, sourceCache: false });
          let warm = await open_();
          try {
            expect(await answer(warm)).toEqual(await answer(cold));
            expect(await answer(warm)).toEqual(await answer(cold));
            for (const action of actions) {
              if (action.kind === 'reload') {
                await warm.close();
                warm = await open_();
              } else if (action.kind === 'race') {
                const before = await answer(cold);
                const racing = answer(warm);
                await appendTo(paths[action.source] as string, (sessions[action.source] as LongSession).more(action.events), compression);
                const raced = await racing;
                const after = await answer(cold);
                expect([before, after]).toContainEqual(raced);
              } else {
                await mutate(action, paths[action.source] as string, sessions, compression);
              }
              expect(await answer(warm)).toEqual(await answer(cold));
            }
          } finally {
            await warm.close();
            await cold.close();
          }
          // Warm answers were served: the property exercised the cache, not only its fallback.
          expect(reports.some((report) => report.served !== 'cold')).toBe(true);
        }),
        { seed: compression === 'none' ? 1501 : 1502, numRuns: RUNS },
      );
    }, 120_000);
  }

  it('an unchanged source is served warm and an appended one appended, with the answers of a cold engine', async () => {
    const root = join(dir, 'served', 'root');
    const session = sessionOf('source-a', 1);
    const other = sessionOf('source-b', 2);
    const paths = [artifactPathOf(root, session.header, 'zstd'), artifactPathOf(root, other.header, 'zstd')];
    for (const [index, item] of [session, other].entries()) {
      await mkdir(dirname(paths[index] as string), { recursive: true });
      await writeFile(paths[index] as string, artifactBytes(item.header, item.events, 'zstd', 16));
    }
    const reports: SourceServedReport[] = [];
    const warm = await createEngine({
      root,
      compression: 'zstd',
      workers: false,
      sourceCache: { directory: join(dir, 'served', 'cache') },
      onSourceServed: (report) => reports.push(report),
    });
    const cold = await createEngine({ root, compression: 'zstd', workers: false, sourceCache: false });
    try {
      expect(await answer(warm)).toEqual(await answer(cold));
      // Each source alone (cold the first time), then both (warm).
      expect(reports.map((report) => report.served)).toEqual(['cold', 'cold', 'warm', 'warm']);
      reports.length = 0;
      expect(await answer(warm)).toEqual(await answer(cold));
      expect(reports.map((report) => report.served)).toEqual(['warm', 'warm', 'warm', 'warm']);
      reports.length = 0;
      await appendTo(paths[0] as string, session.more(20), 'zstd');
      expect(await answer(warm)).toEqual(await answer(cold));
      const served = reports.map((report) => `${report.sessionId}:${report.served}`);
      // Each source alone, in order; then both in one prepare, whose two reads finish in either order.
      expect(served.slice(0, 2)).toEqual(['source-a:appended', 'source-b:warm']);
      expect(served.slice(2).sort()).toEqual(['source-a:warm', 'source-b:warm']);
    } finally {
      await warm.close();
      await cold.close();
    }
  });
});

async function appendTo(
  path: string,
  events: readonly import('../../../../src/protocol/events.js').SessionEvent[],
  compression: Compression,
): Promise<void> {
  const handle = await open(path, 'a');
  try {
    await handle.write(eventBytes(events, compression, 8));
  } finally {
    await handle.close();
  }
}

async function mutate(
  action: Exclude<Action, { kind: 'reload' | 'race' }>,
  path: string,
  sessions: LongSession[],
  compression: Compression,
): Promise<void> {
  const { size, atime, mtime } = await stat(path);
  switch (action.kind) {
    case 'append':
      await appendTo(path, (sessions[action.source] as LongSession).more(action.events), compression);
      return;
    case 'torn': {
      // Half of a further batch: a torn tail (raw: a line without LF; zstd: a partial frame).
      const bytes = eventBytes((sessions[action.source] as LongSession).more(3), compression, 8);
      const handle = await open(path, 'a');
      try {
        await handle.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length * action.keep))));
      } finally {
        await handle.close();
      }
      return;
    }
    case 'rewrite': {
      // One byte changed in place; with the mtime put back only a content check can see it, so it lands in the tail.
      const at = action.restoreMtime ? Math.max(0, size - 1 - Math.floor(action.at * Math.min(size, 4000))) : Math.floor(action.at * size);
      const handle = await open(path, 'r+');
      try {
        const byte = new Uint8Array(1);
        await handle.read(byte, 0, 1, at);
        byte[0] = byte[0] === 0x61 ? 0x62 : 0x61;
        await handle.write(byte, 0, 1, at);
      } finally {
        await handle.close();
      }
      if (action.restoreMtime) await utimes(path, atime, mtime);
      return;
    }
    case 'truncate':
      await truncate(path, Math.floor(size * action.keep));
      return;
    case 'replace': {
      const fresh = sessionOf((sessions[action.source] as LongSession).header.id, action.seed);
      sessions[action.source] = fresh;
      await writeFile(`${path}.new`, artifactBytes(fresh.header, fresh.events, compression, 16));
      await rename(`${path}.new`, path);
      return;
    }
    default:
      action satisfies never;
  }
}

// The warm corpus view (issue 15, item 1) answers discovery exactly as a cold observation does: after random
// histories of creations, appends, title changes, deletions, renames, damage, flat files, moved projects, live
// attachments and a vanished root — raw and zstd — every listing (records and problems) and every candidate list
// of the warm side equals a cold side's that lists and fully inspects every log (no title index, dsh's definition).
// Three ways the view learns of changes are checked: notifications (through createEngine), the stat sweep alone
// (notifications dropped, revalidateMs 0), and the recursive watch strategy.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import {
  answers,
  manualSide,
  operationArbitrary,
  RandomRoot,
  type DiscoverySide,
  type LiveSink,
  type Operation,
} from './warm-view-harness.js';

function engineSide(engine: LocalSessionEngine): DiscoverySide & LiveSink {
  return {
    listSessionsReport: () => engine.listSessionsReport(),
    listCandidates: (agent, query, limit) => engine.listCandidates(agent, query, limit),
    attach: (session) => engine.attachLive(session),
    detach: (id) => {
      engine.detachLive(asSessionId(id));
    },
  };
}

async function withTemp<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'sessionctx-warm-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

const histories = fc.tuple(fc.array(operationArbitrary, { minLength: 1, maxLength: 12 }), fc.constantFrom<Compression>('none', 'zstd'));

/** Applies `operations` one by one, comparing both sides before the first and after each (with `settle` between). */
async function compareHistory(
  random: RandomRoot,
  warm: DiscoverySide,
  cold: DiscoverySide,
  sinks: readonly LiveSink[],
  operations: readonly Operation[],
  settle?: () => Promise<void>,
): Promise<void> {
  expect(await answers(warm)).toEqual(await answers(cold));
  for (const [step, operation] of operations.entries()) {
    await random.apply(operation, sinks);
    if (settle !== undefined) await settle();
    const expected = await answers(cold);
    expect(await answers(warm), `after step ${step}: ${JSON.stringify(operation)}`).toEqual(expected);
  }
}

describe('warm corpus view: equal to a cold observation after random histories', () => {
  it('through createEngine, kept current by notifications (staleness bound far away)', async () => {
    await fc.assert(
      fc.asyncProperty(histories, async ([operations, compression]) => {
        await withTemp(async (dir) => {
          const root = join(dir, 'root');
          const random = await RandomRoot.open(root, compression);
          const warm = await createEngine({
            root,
            compression,
            workers: false,
            store: { cacheDirectory: join(dir, 'cache') },
            corpus: { revalidateMs: 600_000 },
          });
          const cold = await createEngine({ root, compression, workers: false, store: { titleIndex: false }, corpus: { watch: false } });
          try {
            expect(warm.corpusViewStats()).toBeDefined();
            expect(cold.corpusViewStats()).toBeUndefined();
            await compareHistory(random, engineSide(warm), engineSide(cold), [engineSide(warm), engineSide(cold)], operations);
          } finally {
            await warm.close();
            await cold.close();
          }
        });
      }),
      { seed: 1515, numRuns: 30 },
    );
  }, 120_000);

  it('by the stat sweep alone (every notification dropped, revalidateMs 0)', async () => {
    await fc.assert(
      fc.asyncProperty(histories, async ([operations, compression]) => {
        await withTemp(async (dir) => {
          const root = join(dir, 'root');
          const random = await RandomRoot.open(root, compression);
          const warm = await manualSide(root, compression, join(dir, 'cache'), { revalidateMs: 0, ignoreNotifications: true });
          const cold = await manualSide(root, compression, join(dir, 'cache'));
          try {
            await compareHistory(random, warm, cold, [warm, cold], operations);
            expect(warm.view?.stats.notifications).toBe(0);
          } finally {
            await warm.close();
          }
        });
      }),
      { seed: 1516, numRuns: 25 },
    );
  }, 120_000);

  it('with the recursive watch strategy (Node 20 emulates it on Linux)', async () => {
    await fc.assert(
      fc.asyncProperty(histories, async ([operations, compression]) => {
        await withTemp(async (dir) => {
          const root = join(dir, 'root');
          const random = await RandomRoot.open(root, compression);
          const warm = await manualSide(root, compression, join(dir, 'cache'), { revalidateMs: 600_000, watchStrategy: 'recursive' });
          const cold = await manualSide(root, compression, join(dir, 'cache'));
          try {
            // The emulation re-stats synchronously inside its own watch callbacks; give them a moment.
            await compareHistory(random, warm, cold, [warm, cold], operations, () => new Promise((resolve) => setTimeout(resolve, 30)));
          } finally {
            await warm.close();
          }
        });
      }),
      { seed: 1517, numRuns: 10 },
    );
  }, 120_000);
});

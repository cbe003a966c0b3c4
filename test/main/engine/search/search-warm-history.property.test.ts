// Issue 27 item 2: a long-lived engine's search, which hands its index only the sessions the warm corpus view
// reports changed, answers exactly as an engine without a view (whole listing on every search, its own index) after
// random root histories — creations, appends, title changes, deletions, renames, damage, copies, flat files, moved
// projects, live attachments, a vanished root — raw and zstd.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { operationArbitrary, RandomRoot, type LiveSink } from '../corpus/warm-view-harness.js';

/** Phrases the harness's sessions say (prompts, appended turns, ids). */
const QUERIES = ['question', 'about topic', 'more about alpha', 's-1'];

function sink(engine: LocalSessionEngine): LiveSink {
  return {
    attach: (session) => engine.attachLive(session),
    detach: (id) => {
      engine.detachLive(asSessionId(id));
    },
  };
}

/** Every query's sessions with their labels and hits, or the rejection. */
async function searchAnswers(engine: LocalSessionEngine): Promise<string> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    try {
      const page = await engine.searchSessions({ query, limit: 100 });
      out.push(
        page.results.map((result) => ({
          id: result.sessionId,
          label: result.label,
          hits: result.hits.map((hit) => [hit.seq, hit.snippet]),
        })),
      );
    } catch (error) {
      out.push({ rejected: (error as { code?: unknown }).code ?? String(error) });
    }
  }
  return JSON.stringify(out);
}

const histories = fc.tuple(fc.array(operationArbitrary, { minLength: 1, maxLength: 10 }), fc.constantFrom<Compression>('none', 'zstd'));

describe('search over a warm corpus view after random histories', () => {
  it('answers as an engine that syncs the whole listing every time', async () => {
    await fc.assert(
      fc.asyncProperty(histories, async ([operations, compression]) => {
        const dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-history-'));
        const root = join(dir, 'root');
        const random = await RandomRoot.open(root, compression);
        const warm = await createEngine({
          root,
          compression,
          workers: false,
          store: { cacheDirectory: join(dir, 'warm-cache') },
          search: { directory: join(dir, 'warm-search') },
          corpus: { revalidateMs: 600_000 },
        });
        const cold = await createEngine({
          root,
          compression,
          workers: false,
          store: { cacheDirectory: join(dir, 'cold-cache'), titleIndex: false },
          search: { directory: join(dir, 'cold-search') },
          corpus: { watch: false },
        });
        try {
          expect(await searchAnswers(warm)).toEqual(await searchAnswers(cold));
          for (const [step, operation] of operations.entries()) {
            await random.apply(operation, [sink(warm), sink(cold)]);
            // Notifications reach the view within a moment (a background refresh may run first, or the search's own).
            await new Promise((resolve) => setTimeout(resolve, 30));
            const expected = await searchAnswers(cold);
            expect(await searchAnswers(warm), `after step ${step}: ${JSON.stringify(operation)}`).toEqual(expected);
          }
        } finally {
          await warm.close();
          await cold.close();
          await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
        }
      }),
      { seed: 2727, numRuns: 20 },
    );
  }, 180_000);
});

/**
 * The shared corpus index as the engine reaches it (issue 29): the configured backend decides; `sqlite` opens no
 * shared index, `postgres` publishes the engine's root and answers discovery over it; failures are typed.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { resolveCorpusIndexConfig } from '../../../../src/main/engine/fleet/corpus-index-config.js';
import { isFleetError } from '../../../../src/main/engine/fleet/fleet-error.js';
import { openSharedCorpusIndex } from '../../../../src/main/engine/fleet/shared-corpus-index.js';
import { ZSTD_ROOT, readExpected } from '../../../support/fixtures.js';
import { useFleetFixture } from './fleet-test-fixture.js';

const fleet = useFleetFixture('shared-index');

describe('openSharedCorpusIndex', () => {
  it('opens nothing for the embedded sqlite default', async () => {
    const engine = await createEngine({ root: ZSTD_ROOT, compression: 'zstd', workers: false });
    try {
      const index = await openSharedCorpusIndex(resolveCorpusIndexConfig(undefined, {}), {
        source: engine,
        layout: { root: ZSTD_ROOT, compression: 'zstd' },
      });
      expect(index).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('publishes the engine root under host:root and answers a dsh discovery case over it', async () => {
    const name = await fleet.cluster.createDatabase();
    const config = resolveCorpusIndexConfig({ backend: 'postgres', host: 'box-1' }, { SESSIONCTX_DATABASE_URL: fleet.cluster.url(name) });
    const engine = await createEngine({ root: ZSTD_ROOT, compression: 'zstd', workers: false });
    const index = await openSharedCorpusIndex(config, { source: engine, layout: { root: ZSTD_ROOT, compression: 'zstd' } });
    try {
      if (index === undefined) throw new Error('expected a shared index');
      expect(index.corpusId).toBe(`box-1:${ZSTD_ROOT}`);
      const summary = await index.publish();
      expect(summary.published).toBeGreaterThan(0);
      const [first] =
        readExpected<Array<{ target: { id: string; cwd?: string }; query: string; limit: number; result: unknown }>>('candidates.json');
      if (first === undefined) throw new Error('no case');
      const target = { id: first.target.id, session: { header: first.target.cwd === undefined ? {} : { cwd: first.target.cwd } } };
      expect(await index.listCandidates(target, first.query, first.limit)).toEqual(first.result);
    } finally {
      await index?.close();
      await engine.close();
    }
  });

  it('fails typed for an unreachable server', async () => {
    const config = resolveCorpusIndexConfig({ backend: 'postgres' }, { SESSIONCTX_DATABASE_URL: 'postgresql://u:p@127.0.0.1:1/x' });
    const outcome = await openSharedCorpusIndex(config, {
      source: { listSessions: async () => [], readTitleSnapshots: async () => [] },
      layout: { root: '/nonexistent', compression: 'zstd' },
      connectTimeoutMs: 2000,
    }).catch((error: unknown) => error);
    expect(isFleetError(outcome, 'FLEET_UNREACHABLE')).toBe(true);
    expect(isFleetError(outcome, 'FLEET_AUTH_FAILED')).toBe(false);
  });
});

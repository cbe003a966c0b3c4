/**
 * The dsh-written fixture corpus, read through the JSONL store and the query layer, must give
 * exactly what dsh's own services returned (expected/*.json), for raw and zstd roots alike.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import type { SessionTitleObservation } from '../../../../src/main/engine/corpus/session-query.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { RAW_ROOT, ZSTD_ROOT, readExpected } from '../../../support/fixtures.js';
import { makeTempDir, removeTempDir } from './store-test-builders.js';

// The fixture roots are ground truth and must stay untouched, so the title index lives in a temporary directory.
let indexDir: string;
beforeAll(async () => {
  indexDir = await makeTempDir();
});
afterAll(async () => {
  await removeTempDir(indexDir);
});

interface ExpectedSurface {
  session: { id: string };
  capturedThroughSeq: number | null;
  events: unknown[];
}

/** Title observations as the fixtures record them: rejection reasons reduced to name, code, message. */
function observationJson(observations: readonly SessionTitleObservation[]): unknown {
  return observations.map((observation) => {
    if (observation.status === 'fulfilled') return observation;
    const reason = observation.reason as { name: string; code: string; message: string };
    return {
      sessionId: observation.sessionId,
      status: 'rejected',
      reason: { name: reason.name, code: reason.code, message: reason.message },
    };
  });
}

const roots = [
  { name: 'raw', root: RAW_ROOT, compression: 'none' as const },
  { name: 'zstd', root: ZSTD_ROOT, compression: 'zstd' as const },
];

describe.each(roots)('fixture corpus ($name)', ({ root, compression }) => {
  async function open(): Promise<{ store: JsonlSessionStore; query: SessionQuery }> {
    const store = await JsonlSessionStore.open({ root, compression, titleIndexPath: join(indexDir, `titles-${compression}.v1`) });
    return { store, query: new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store }) };
  }

  it('listSessions equals expected/listing.json byte for byte', async () => {
    const { query } = await open();
    const records = await query.listSessions();
    expect(JSON.stringify(records)).toBe(JSON.stringify(readExpected('listing.json')));
  });

  it('readSurface equals expected/surfaces.json for every session (events, capture seq, key order)', async () => {
    const { query } = await open();
    const expected = readExpected<ExpectedSurface[]>('surfaces.json');
    expect(expected).toHaveLength(14);
    for (const surface of expected) {
      const snapshot = await query.readSurface(asSessionId(surface.session.id));
      expect(JSON.stringify(snapshot), surface.session.id).toBe(JSON.stringify(surface));
    }
  });

  it('the crashed session is captured through the synthetic closers (418 while 415 is stored last)', async () => {
    const { query, store } = await open();
    const id = asSessionId('session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f');
    const snapshot = await query.readSurface(id);
    expect(snapshot.capturedThroughSeq).toBe(418);
    const inspection = await store.inspectArtifact(id);
    expect(inspection.decoded.events.length).toBe(416);
    expect(inspection.events.map((event) => event.type).slice(416)).toEqual(['tool/result', 'step/end', 'turn/end']);
  });

  it('readTitleSnapshots equals expected/titles.json', async () => {
    const { query } = await open();
    const records = await query.listSessions();
    const observations = await query.readTitleSnapshots(records.map((record) => record.header.id));
    expect(JSON.stringify(observationJson(observations))).toBe(JSON.stringify(readExpected('titles.json')));
  });

  it('readTitleSnapshots equals expected/titles-extra.json (duplicates, unknown ids, empty id)', async () => {
    const { query } = await open();
    const cases = readExpected<Array<{ ids: string[]; result: unknown }>>('titles-extra.json');
    for (const testCase of cases) {
      const observations = await query.readTitleSnapshots(testCase.ids.map(asSessionId));
      expect(JSON.stringify(observationJson(observations))).toBe(JSON.stringify(testCase.result));
    }
  });
});

// The engine facade (ARCHITECTURE.md §2 "comlink", §5): createEngine (pool or in-thread fallback) and
// createEngineThread pass the same tests — dsh's expected listing, surfaces, candidates and references,
// typed errors with their classes, signal semantics, progress callbacks, configuration errors, close.
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { createEngineThread } from '../../../../src/main/engine/assembly/engine-thread.js';
import type { EngineProgress, SessionEngine, SessionEngineOptions } from '../../../../src/main/engine/assembly/engine-types.js';
import { SessionQueryError } from '../../../../src/protocol/errors.js';
import type { ContentBlock } from '../../../../src/protocol/events.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { SessionReferenceError } from '../../../../src/protocol/reference-errors.js';
import { SessionPoolError } from '../../../../src/protocol/wire/pool-errors.js';
import { RAW_ROOT, ZSTD_ROOT, readExpected } from '../../../support/fixtures.js';
import { within } from '../reference/reference-builders.js';

interface ReferenceCase {
  name: string;
  target: { id: string; cwd?: string };
  references: unknown[];
  config: Record<string, number>;
  content: ContentBlock[];
  result: {
    content?: unknown;
    additionalContext?: { source: unknown; content: unknown; role: string };
    error?: { name: string; code: string; message: string };
  };
}

interface CandidateCase {
  kind: string;
  target: { id: string; cwd?: string };
  query: string;
  limit: number | null;
  result: unknown[] | { error: { name: string; code: string; message: string } };
  mentions?: string[];
}

/** As in test/main/engine/reference/fixture-references.test.ts: D3 keeps a notice dsh dropped. */
const D3_DIVERGENT_CASES = new Set([
  'budget-512:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
  'budget-300:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
  'budget-400-compacted:session-547c4005-0b6e-49a0-9497-6be9b6b464cd',
]);

const FACTORIES: ReadonlyArray<[string, (options: SessionEngineOptions) => Promise<SessionEngine>]> = [
  ['createEngine (pool)', (options) => createEngine(options)],
  ['createEngine (no workers)', (options) => createEngine({ ...options, workers: false })],
  ['createEngineThread', (options) => createEngineThread(options)],
];

function targetOf(target: { id: string; cwd?: string }): { id: string; session: { header: { cwd?: string } } } {
  return { id: target.id, session: { header: target.cwd === undefined ? {} : { cwd: target.cwd } } };
}

async function failure(promise: Promise<unknown>): Promise<Error & { code?: unknown; cause?: unknown }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as Error & { code?: unknown },
  );
}

describe.each(FACTORIES)('%s', (_name, make) => {
  let raw: SessionEngine;
  let zstd: SessionEngine;
  beforeAll(async () => {
    [raw, zstd] = await Promise.all([
      make({ root: RAW_ROOT, compression: 'none', poolSize: 2 }),
      make({ root: ZSTD_ROOT, compression: 'zstd', poolSize: 2 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([raw.close(), zstd.close()]);
  });

  it('listSessions equals expected/listing.json byte for byte (both encodings)', async () => {
    expect(JSON.stringify(await raw.listSessions())).toBe(JSON.stringify(readExpected('listing.json')));
    expect(JSON.stringify(await zstd.listSessions())).toBe(JSON.stringify(readExpected('listing.json')));
  });

  it('readSurface equals expected/surfaces.json for every session; returned messages are frozen', async () => {
    const expected = readExpected<Array<{ session: { id: string } }>>('surfaces.json');
    for (const surface of expected) {
      const snapshot = await zstd.readSurface(asSessionId(surface.session.id));
      expect(JSON.stringify(snapshot), surface.session.id).toBe(JSON.stringify(surface));
      const first = snapshot.events[0];
      if (first !== undefined)
        expect(Object.isFrozen(first.type === 'user/message' ? first.data : (first.data as { message: unknown }).message)).toBe(true);
    }
  });

  it('expected/candidates.json: the first case of every kind and every error case, mentions included', async () => {
    // Each call fully inspects every listed log on the pool; all 114 cases run in-thread in
    // test/main/engine/reference/fixture-references.test.ts, and pool title reads equal SessionQuery's in pooled-storage.test.ts.
    const all = readExpected<CandidateCase[]>('candidates.json');
    const seen = new Set<string>();
    const cases = all.filter((testCase) => {
      const first = !seen.has(testCase.kind);
      seen.add(testCase.kind);
      return first || !Array.isArray(testCase.result);
    });
    expect(cases.length).toBeGreaterThanOrEqual(17);
    for (const testCase of cases) {
      const limit = testCase.limit ?? undefined;
      const outcome = await raw.listCandidates(targetOf(testCase.target), testCase.query, limit).then(
        (value) => ({ value }),
        (error: unknown) => ({ error: error as Error & { code: string } }),
      );
      if (!Array.isArray(testCase.result)) {
        const { error } = outcome as { error: Error & { code: string } };
        expect(error).toBeInstanceOf(SessionReferenceError);
        expect({ name: error.name, code: error.code, message: error.message }).toEqual(testCase.result.error);
        continue;
      }
      expect(JSON.stringify((outcome as { value: unknown }).value)).toBe(JSON.stringify(testCase.result));
      const withMentions = await raw.candidates(targetOf(testCase.target), testCase.query, limit);
      expect(withMentions.map((candidate) => candidate.mention)).toEqual(testCase.mentions);
    }
  });

  it('expected/references.json: all 68 cases (zstd), frozen contexts', async () => {
    const cases = readExpected<ReferenceCase[]>('references.json');
    const engines = new Map<string, SessionEngine>();
    try {
      for (const testCase of cases) {
        const key = JSON.stringify(testCase.config);
        if (!engines.has(key))
          engines.set(key, await make({ root: ZSTD_ROOT, compression: 'zstd', poolSize: 2, reference: testCase.config }));
        const engine = engines.get(key) as SessionEngine;
        const outcome = await engine.prepare(targetOf(testCase.target), testCase.content, testCase.references).then(
          (value) => ({ value }),
          (error: unknown) => ({ error: error as Error & { code: string } }),
        );
        if (testCase.result.error !== undefined) {
          const { error } = outcome as { error: Error & { code: string } };
          expect(error, testCase.name).toBeInstanceOf(SessionReferenceError);
          expect({ name: error.name, code: error.code, message: error.message }).toEqual(testCase.result.error);
          continue;
        }
        const { value } = outcome as { value: Awaited<ReturnType<SessionEngine['prepare']>> };
        expect(JSON.stringify(value.content), testCase.name).toBe(JSON.stringify(testCase.result.content));
        if (testCase.result.additionalContext === undefined) {
          expect(Object.keys(value)).toEqual(['content']);
          continue;
        }
        expect(Object.isFrozen(value.additionalContext)).toBe(true);
        const { id: _id, ...withoutId } = value.additionalContext as NonNullable<typeof value.additionalContext>;
        if (!D3_DIVERGENT_CASES.has(testCase.name))
          expect(JSON.stringify(withoutId), testCase.name).toBe(JSON.stringify(testCase.result.additionalContext));
      }
    } finally {
      await Promise.all([...engines.values()].map((engine) => engine.close()));
    }
  });

  it('typed errors keep their classes, codes and causes', async () => {
    const missing = await failure(raw.readSurface(asSessionId('missing')));
    expect(missing).toBeInstanceOf(SessionQueryError);
    expect({ code: missing.code, message: missing.message }).toEqual({
      code: 'SESSION_QUERY_SESSION_NOT_FOUND',
      message: 'session "missing" not found',
    });
    const readFailed = await failure(raw.prepare(targetOf({ id: 't' }), [], [{ sessionId: 'missing' }]));
    expect(readFailed).toBeInstanceOf(SessionReferenceError);
    expect(readFailed.code).toBe('SESSION_REFERENCE_READ_FAILED');
    expect(readFailed.cause).toBeInstanceOf(SessionQueryError);
    const self = await failure(raw.prepare(targetOf({ id: 't' }), [], [{ sessionId: 't' }]));
    expect({ code: self.code, message: self.message }).toEqual({
      code: 'SESSION_REFERENCE_SELF_REFERENCE',
      message: 'session "t" cannot reference itself',
    });
  });

  it('signals: a pre-aborted query rejects with exactly the reason; prepare → CANCELLED with the reason as cause, at once', async () => {
    const controller = new AbortController();
    const reason = new Error('turn cancelled');
    controller.abort(reason);
    expect(await failure(raw.readSurface(asSessionId('session-24445f64-0c0f-4d8f-8925-279091e56cc1'), controller.signal))).toBe(reason);
    expect(await failure(raw.listSessions(controller.signal))).toBe(reason);
    const ids = (await raw.listSessions()).map((record) => ({ sessionId: record.header.id })).slice(0, 3);
    const cancelled = await failure(raw.prepare(targetOf({ id: 't' }), [], ids, controller.signal));
    expect({ name: cancelled.name, code: cancelled.code, message: cancelled.message }).toEqual({
      name: 'SessionReferenceError',
      code: 'SESSION_REFERENCE_CANCELLED',
      message: 'session reference preparation was cancelled',
    });
    expect(cancelled.cause).toBe(reason);
    // Without references the signal is not consulted (§8 step 3).
    expect(Object.keys(await raw.prepare(targetOf({ id: 't' }), [], [], controller.signal))).toEqual(['content']);

    const running = new AbortController();
    const preparing = failure(zstd.prepare(targetOf({ id: 't' }), [], ids, running.signal));
    running.abort(reason);
    const midway = await within(preparing, 200);
    expect(midway.code).toBe('SESSION_REFERENCE_CANCELLED');
    expect(midway.cause).toBe(reason);
  });

  it('observeAllTitles reports progress through the callback and counts titles', async () => {
    const progress: EngineProgress[] = [];
    const summary = await raw.observeAllTitles({ onProgress: (step) => progress.push(step) });
    expect(summary).toEqual({ sessions: 14, titled: 14, failed: 0 });
    // Progress messages from another thread may arrive after the result; wait for the last one.
    for (let waited = 0; waited < 50 && progress.at(-1)?.done !== 14; waited++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(progress.at(-1)).toEqual({ done: 14, total: 14 });
  });

  it('configuration errors reject with the typed error; close is idempotent', async () => {
    const pool = await failure(make({ root: RAW_ROOT, compression: 'none', poolSize: 0 }));
    expect(pool).toBeInstanceOf(SessionPoolError);
    const cores = availableParallelism();
    expect(pool.message).toBe(
      `session-pool: size must be a positive safe integer no greater than ${4 * cores} (4 per core; this machine has ${cores})`,
    );
    // The bound is the machine's: one thread past four per core is refused.
    expect(await failure(make({ root: RAW_ROOT, compression: 'none', poolSize: 4 * cores + 1 }))).toBeInstanceOf(SessionPoolError);
    const reference = await failure(make({ root: RAW_ROOT, compression: 'none', reference: { maxReferences: 4 } }));
    expect(reference).toBeInstanceOf(SessionReferenceError);
    expect({ code: reference.code, message: reference.message }).toEqual({
      code: 'SESSION_REFERENCE_INVALID_CONFIG',
      message: 'session-reference: maxReferences must not exceed 3',
    });
    const engine = await make({ root: RAW_ROOT, compression: 'none', poolSize: 1 });
    await engine.close();
    await engine.close();
  });
});

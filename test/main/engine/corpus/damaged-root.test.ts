/**
 * The query layer over a damaged fixture root (issue 11 item 3; the damage is described in
 * test/main/engine/store/damaged-root-builders.ts): `listSessions` keeps its shape and lists every healthy session exactly as
 * dsh listed it, `listSessionsReport` adds the store's problems, `readSurface` and `readTitleSnapshots` of healthy
 * sessions give dsh's own answers from expected/, a damaged session is not found, `prepare` citing a healthy
 * session writes dsh's own prompt, and strict mode fails the listing as dsh does. Nothing blocks on the FIFO, so every test has a short timeout.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionSurfaceSnapshot } from '../../../../src/protocol/events.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import type { SessionRecord, SessionTitleObservation } from '../../../../src/main/engine/corpus/session-query.js';
import { InThreadTaskRunner } from '../../../../src/main/engine/pool/in-thread-runner.js';
import { PoolSourceRenderer } from '../../../../src/main/engine/pool/pool-source-renderer.js';
import { SessionReferenceService } from '../../../../src/main/engine/reference/session-reference-service.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { ListingMode } from '../../../../src/main/engine/store/store-config.js';
import { readExpected } from '../../../support/fixtures.js';
import { DAMAGED, HEALTHY_IDS, HIDDEN_IDS, makeDamagedRoot, type DamagedRoot } from '../store/damaged-root-builders.js';
import { EventSequence, decodeFrames, expectRejection, makeTempDir, removeTempDir, sessionHeader } from '../store/store-test-builders.js';

const QUICK = 15_000;
const healthy = new Set<string>(HEALTHY_IDS);

let damaged: DamagedRoot | undefined;
afterEach(async () => {
  await damaged?.cleanup();
  damaged = undefined;
});

async function damagedQuery(
  compression: 'none' | 'zstd',
  listing?: ListingMode,
): Promise<{ query: SessionQuery; store: JsonlSessionStore; root: DamagedRoot }> {
  damaged = await makeDamagedRoot(compression);
  const store = await JsonlSessionStore.open({ root: damaged.root, compression, ...(listing === undefined ? {} : { listing }) });
  return { query: new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store }), store, root: damaged };
}

describe.each(['none', 'zstd'] as const)('the query layer over a damaged fixture root (%s)', (compression) => {
  it(
    'listSessions lists the healthy sessions exactly as dsh listed them (expected/listing.json)',
    async () => {
      const { query } = await damagedQuery(compression);
      const expected = readExpected<SessionRecord[]>('listing.json').filter((record) => healthy.has(record.header.id));
      expect(expected).toHaveLength(HEALTHY_IDS.length);
      expect(JSON.stringify(await query.listSessions())).toBe(JSON.stringify(expected));
    },
    QUICK,
  );

  it(
    "listSessionsReport: the same records plus the store's problems, each damaged entry once",
    async () => {
      const { query, store, root } = await damagedQuery(compression);
      const report = await query.listSessionsReport();
      expect(JSON.stringify(report.records)).toBe(JSON.stringify(await query.listSessions()));
      expect(report.problems).toEqual((await store.listReport()).problems);
      const paths = report.problems.map((problem) => problem.path).sort();
      expect(paths).toEqual(
        [
          root.artifact(DAMAGED.corruptHeader),
          root.artifact(DAMAGED.fifo),
          root.artifact(DAMAGED.directory),
          root.artifact(DAMAGED.socket),
          root.artifact(DAMAGED.brokenLink),
          root.unreadableProject,
        ].sort(),
      );
    },
    QUICK,
  );

  it(
    "readSurface of every healthy session equals dsh's snapshot on the undamaged root (expected/surfaces.json)",
    async () => {
      const { query } = await damagedQuery(compression);
      const expected = readExpected<SessionSurfaceSnapshot[]>('surfaces.json').filter((surface) => healthy.has(surface.session.id));
      expect(expected).toHaveLength(HEALTHY_IDS.length);
      for (const surface of expected) {
        expect(JSON.stringify(await query.readSurface(asSessionId(surface.session.id))), surface.session.id).toBe(JSON.stringify(surface));
      }
    },
    QUICK,
  );

  it(
    'readSurface of a damaged or hidden session is not found (it is not listed); nothing blocks on the FIFO',
    async () => {
      const { query } = await damagedQuery(compression);
      for (const id of [...Object.values(DAMAGED).map((entry) => entry.id), ...HIDDEN_IDS]) {
        await expectRejection(query.readSurface(asSessionId(id)), {
          name: 'SessionQueryError',
          code: 'SESSION_QUERY_SESSION_NOT_FOUND',
          message: `session "${id}" not found`,
        });
      }
    },
    QUICK,
  );

  it(
    'readTitleSnapshots (the title index build) answers healthy ids as dsh did and rejects only the damaged ones',
    async () => {
      const { query } = await damagedQuery(compression);
      const expected = readExpected<SessionTitleObservation[]>('titles.json').filter((observation) => healthy.has(observation.sessionId));
      expect(expected).toHaveLength(HEALTHY_IDS.length);
      const observed = await query.readTitleSnapshots([
        ...expected.map((observation) => observation.sessionId),
        asSessionId(DAMAGED.fifo.id),
      ]);
      expect(JSON.stringify(observed.slice(0, -1))).toBe(JSON.stringify(expected));
      const last = observed.at(-1) as { status: string; reason: { code?: unknown } };
      expect([last.status, last.reason.code]).toEqual(['rejected', 'SESSION_QUERY_SESSION_NOT_FOUND']);
    },
    QUICK,
  );

  it(
    'strict: the listing fails as a whole, so listSessions and readSurface of a healthy session fail (dsh)',
    async () => {
      const { query, store } = await damagedQuery(compression, 'strict');
      const tolerant = await JsonlSessionStore.open({ root: store.config.root, compression });
      const texts = (await tolerant.listReport()).problems.map((problem) => `session persistence listing failed: ${problem.message}`);
      for (const attempt of [query.listSessions(), query.readSurface(asSessionId(HEALTHY_IDS[0])), query.listSessionsReport()]) {
        const error = await attempt.then(
          () => undefined,
          (reason: unknown) => reason as Error & { code?: unknown },
        );
        expect(error?.name).toBe('SessionQueryError');
        expect(error?.code).toBe('SESSION_QUERY_PERSISTENCE_FAILED');
        // Which damaged entry the walk meets first depends on directory order.
        expect(texts).toContain(error?.message);
      }
    },
    QUICK,
  );
});

describe.each(['none', 'zstd'] as const)('damage after the header is corruption at the query layer (%s)', (compression) => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await removeTempDir(dir);
    dir = undefined;
  });

  it(
    'readSurface and the title observation reject with SESSION_QUERY_CORRUPT_SESSION, the store error as cause',
    async () => {
      dir = await makeTempDir();
      const store = await JsonlSessionStore.open({ root: dir, compression });
      const path = await store.create(sessionHeader('broken', '/w'), new EventSequence().closedTurn(1, 'hello', ['a']));
      let storeText: string;
      if (compression === 'none') {
        // An unparsable committed line followed by a turn/end is fatal (SESSION-LOG.md §9.11). Lines are counted
        // after the header: the seven events of the closed turn are lines 1–7.
        await appendFile(path, '{not json\n{"type":"turn/end","seq":9,"time":1,"data":{"turn":2,"reason":{"kind":"completed"}}}\n');
        storeText = 'corrupt session log: unparsable committed event at line 8';
      } else {
        // The checksum of the (complete) batch frame: its top byte is the frame's last byte.
        const bytes = await readFile(path);
        const frames = await decodeFrames(bytes);
        const batch = frames[1] as { start: number; end: number };
        bytes[batch.end - 1] = (bytes[batch.end - 1] as number) ^ 0x01;
        await writeFile(path, bytes);
        storeText = `corrupt Zstandard session log: frame at byte ${batch.start} failed validation`;
      }
      const storeError = await expectRejection(store.inspect(asSessionId('broken')), { message: storeText, code: 'SESSION_LOG_CORRUPT' });
      const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
      const surfaceError = await expectRejection(query.readSurface(asSessionId('broken')), {
        name: 'SessionQueryError',
        code: 'SESSION_QUERY_CORRUPT_SESSION',
        message: `stored session "broken" is corrupt: ${storeText}`,
      });
      expect([(surfaceError.cause as Error).message, (surfaceError.cause as { code?: unknown }).code]).toEqual([
        storeError.message,
        'SESSION_LOG_CORRUPT',
      ]);
      const [title] = await query.readTitleSnapshots([asSessionId('broken')]);
      const reason = (title as { reason: Error & { code?: unknown } }).reason;
      expect([reason.code, reason.message]).toEqual(['SESSION_QUERY_CORRUPT_SESSION', `stored session "broken" is corrupt: ${storeText}`]);
    },
    QUICK,
  );
});

interface AloneCase {
  readonly name: string;
  readonly target: { id: string; cwd?: string };
  readonly references: Array<{ sessionId: string }>;
  readonly config: Record<string, number>;
  readonly content: unknown[];
  readonly result: { content: unknown; additionalContext: Record<string, unknown> };
}

describe.each(['none', 'zstd'] as const)('prepare citing a healthy session on a damaged root (%s)', (compression) => {
  // dsh's own reference prompts (expected/references.json) for each healthy session cited alone.
  const cases = readExpected<AloneCase[]>('references.json').filter(
    (testCase) => testCase.name.startsWith('alone:') && healthy.has(testCase.references[0]?.sessionId ?? ''),
  );

  it.each(['in-thread', 'pool renderer (in-thread runner)'] as const)(
    '%s: the same prompt dsh wrote on the undamaged root',
    async (kind) => {
      expect(cases.map((testCase) => testCase.references[0]?.sessionId).sort()).toEqual([...HEALTHY_IDS]);
      const { store, query } = await damagedQuery(compression);
      const renderer =
        kind === 'in-thread'
          ? undefined
          : new PoolSourceRenderer({ runner: new InThreadTaskRunner(), registry: new InMemoryLiveRegistry(), storage: store });
      const service = new SessionReferenceService({ sessionQuery: query, config: {}, ...(renderer === undefined ? {} : { renderer }) });
      for (const testCase of cases) {
        const target = {
          id: testCase.target.id,
          session: { header: testCase.target.cwd === undefined ? {} : { cwd: testCase.target.cwd } },
        };
        const value = await service.prepare(target as never, testCase.content as never, testCase.references as never);
        expect(JSON.stringify(value.content), testCase.name).toBe(JSON.stringify(testCase.result.content));
        const { id: _id, ...context } = value.additionalContext as unknown as Record<string, unknown>;
        expect(JSON.stringify(context), testCase.name).toBe(JSON.stringify(testCase.result.additionalContext));
      }
    },
    QUICK,
  );
});

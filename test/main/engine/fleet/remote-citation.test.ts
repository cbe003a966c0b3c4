/**
 * Citing a session another host published (issue 29, docs/FLEET.md §6): three engines, each over its own third of
 * the dsh fixture, publish into one real PostgreSQL, each artifact with its source-cache entry. For every fixture
 * session, each host that does not have it prepares a message citing it from the database, and the preparation is
 * byte for byte what its owner prepares from its log (with the source cache off, so the owner reads the log whole:
 * an independent path) — at the default budget and at a budget small enough to retain, truncate or refuse. A message
 * citing a remote and a local session together equals one local engine over the union; a session no host published
 * stays not found, as locally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { resolveCorpusIndexConfig } from '../../../../src/main/engine/fleet/corpus-index-config.js';
import { anonymousReader } from '../../../../src/main/engine/reference/reader.js';
import { fixtureSessions } from '../../../support/fixtures.js';
import { useFleetFixture } from './fleet-test-fixture.js';

const SESSIONS = fixtureSessions();
const HOSTS = 3;
/** The default budget (every source whole), one that makes sources retain, and one too small for some to fit. */
const BUDGETS = [
  [undefined, 'whole'],
  [1500, 'retained'],
  [250, 'refused'],
] as const;

const fleet = useFleetFixture('remote-citation');
const { rootOf } = fleet;

/**
 * What one preparation gave: the prepared value and sizes as JSON, or the error's name, code, message and budget. The
 * snapshot message's id is fresh per preparation (a random UUID, locally too), so it is checked and then set aside.
 */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    (value) => {
      const context = (value as { prepared: { additionalContext?: { id?: unknown } } }).prepared.additionalContext;
      if (context !== undefined) expect(context.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      return JSON.stringify(value, (key, field: unknown) => (key === 'id' && field === context?.id ? '<message id>' : field));
    },
    (error: { name: string; code: string; message: string; minimumBudgetBytes?: number; cause?: { code?: string } }) => ({
      name: error.name,
      code: error.code,
      message: error.message,
      minimumBudgetBytes: error.minimumBudgetBytes,
      cause: error.cause?.code,
    }),
  );
}

const cite = (engine: LocalSessionEngine, ids: readonly string[]) => () =>
  engine.prepareSized(
    anonymousReader(),
    [{ type: 'text', text: 'see these' }],
    ids.map((sessionId, at) => ({ sessionId, label: `source ${at}` })),
  );

describe.each(BUDGETS)('remote citation (maxReferenceBytes %s: some sources %s)', (maxReferenceBytes, reached) => {
  const reference = maxReferenceBytes === undefined ? {} : { reference: { maxReferenceBytes } };
  let hosts: LocalSessionEngine[] = [];
  let union: LocalSessionEngine;
  const ownerOf = new Map<string, number>();

  beforeAll(async () => {
    const database = await fleet.cluster.createDatabase();
    const url = fleet.cluster.url(database);
    const split = [...Array(HOSTS).keys()].map((host) => SESSIONS.map((_, index) => index).filter((index) => index % HOSTS === host));
    for (const [host, indexes] of split.entries()) for (const index of indexes) ownerOf.set(SESSIONS[index]?.id as string, host);
    hosts = await Promise.all(
      split.map((indexes, host) =>
        createEngine({
          root: rootOf(indexes),
          compression: 'zstd',
          workers: false,
          corpus: { watch: false },
          sourceCache: false,
          ...reference,
          corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host: `host-${host}` }, { SESSIONCTX_DATABASE_URL: url }),
        }),
      ),
    );
    for (const engine of hosts) await engine.publishToFleet();
    union = await createEngine({
      root: rootOf(SESSIONS.map((_, index) => index)),
      compression: 'zstd',
      workers: false,
      corpus: { watch: false },
      sourceCache: false,
      ...reference,
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...hosts, union].map((engine) => engine?.close()));
  });

  it('every fixture session, prepared on each other host from the database, equals its owner’s preparation byte for byte', async () => {
    let remote = 0;
    const kinds = new Set<string>();
    for (const session of SESSIONS) {
      const owner = hosts[ownerOf.get(session.id) as number] as LocalSessionEngine;
      const expected = await outcome(cite(owner, [session.id]));
      kinds.add(typeof expected !== 'string' ? 'refused' : expected.includes('"omittedMessages":0,') ? 'whole' : 'retained');
      for (const [host, engine] of hosts.entries()) {
        if (host === ownerOf.get(session.id)) continue;
        remote += 1;
        expect(await outcome(cite(engine, [session.id])), `${session.id} on host-${host}`).toEqual(expected);
      }
    }
    expect(remote).toBe(SESSIONS.length * (HOSTS - 1));
    // Each budget reaches what it is for: whole sources, retention, the budget refusal.
    expect(kinds.has(reached)).toBe(true);
  }, 120_000);

  it('a message citing a remote and a local session equals one local engine over the union; an unpublished id stays not found', async () => {
    const host = hosts[0] as LocalSessionEngine;
    const local = SESSIONS.find((session) => ownerOf.get(session.id) === 0);
    const remotes = SESSIONS.filter((session) => ownerOf.get(session.id) !== 0);
    if (local === undefined || remotes.length < 2) throw new Error('fixture too small');
    for (const ids of [
      [remotes[0]?.id as string, local.id],
      [local.id, remotes[1]?.id as string, remotes[0]?.id as string],
      ['session-no-host-has-this'],
    ]) {
      expect(await outcome(cite(host, ids)), ids.join(' ')).toEqual(await outcome(cite(union, ids)));
    }
  }, 60_000);
});

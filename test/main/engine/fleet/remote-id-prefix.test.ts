/**
 * Naming another host's session by an id prefix (issue 29: the fleet answers wherever the CLI's rules apply; the rule
 * is `protocol/session-id-match.ts`). Two engines, each over half of the dsh fixture, publish into one real
 * PostgreSQL. From one host, every session of the other is named by its shortest unambiguous prefix over the union of
 * both halves (computed here from the fixture's ids, with and without `session-`), a prefix shared by a local and a
 * remote session is ambiguous and lists both, LIKE's wildcards in a prefix match only themselves, and a prefix of no
 * session is not found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionCatalog } from '../../../../src/main/catalog/session-catalog.js';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { resolveCorpusIndexConfig } from '../../../../src/main/engine/fleet/corpus-index-config.js';
import { ambiguousPrefixMessage } from '../../../../src/protocol/session-id-match.js';
import { fixtureSessions } from '../../../support/fixtures.js';
import { useFleetFixture } from './fleet-test-fixture.js';

const IDS = fixtureSessions().map((session) => session.id);
/** Host 0 has the even fixture sessions, host 1 the odd ones. */
const HOSTS = [0, 1].map((host) => IDS.filter((_, index) => index % 2 === host));

const fleet = useFleetFixture('remote-id-prefix');
let hosts: LocalSessionEngine[] = [];
let catalogs: SessionCatalog[] = [];

beforeAll(async () => {
  const url = fleet.cluster.url(await fleet.cluster.createDatabase());
  hosts = await Promise.all(
    [0, 1].map((host) =>
      createEngine({
        root: fleet.rootOf(IDS.map((_, index) => index).filter((index) => index % 2 === host)),
        compression: 'zstd',
        workers: false,
        corpus: { watch: false },
        corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host: `host-${host}` }, { SESSIONCTX_DATABASE_URL: url }),
      }),
    ),
  );
  for (const engine of hosts) await engine.publishToFleet();
  catalogs = hosts.map((engine) => new SessionCatalog(engine, { pageSize: 20 }));
}, 120_000);

afterAll(async () => {
  await Promise.all(hosts.map((engine) => engine.close()));
});

/** The shortest prefix of `id`'s part after `session-` that no other fixture id shares. */
function shortestUniquePrefix(id: string): string {
  const tail = id.slice('session-'.length);
  for (let length = 1; length <= tail.length; length++) {
    const prefix = tail.slice(0, length);
    if (IDS.filter((other) => other.startsWith(`session-${prefix}`)).length === 1) return prefix;
  }
  return tail;
}

/** How a resolution ended: the id, or the refusal's kind and message. */
async function resolution(catalog: SessionCatalog, typed: string): Promise<unknown> {
  return catalog.resolve(typed).then(
    (id) => ({ id }),
    (error: { kind?: string; message: string }) => ({ kind: error.kind, message: error.message }),
  );
}

describe('naming a session another host published by an id prefix', () => {
  it.each([0, 1])('from host %i, every session of the other host by its shortest unambiguous prefix', async (host) => {
    const catalog = catalogs[host] as SessionCatalog;
    const remote = HOSTS[1 - host] as string[];
    expect(remote.length).toBeGreaterThan(0);
    for (const id of remote) {
      const prefix = shortestUniquePrefix(id);
      expect(await resolution(catalog, prefix), `${prefix} from host ${host}`).toEqual({ id });
      expect(await resolution(catalog, `session-${prefix}`), `session-${prefix} from host ${host}`).toEqual({ id });
      expect(await resolution(catalog, id)).toEqual({ id });
    }
  });

  it('a prefix shared by a local and a remote session is ambiguous, and lists both', async () => {
    // A first character of ids on both hosts (the fixture has several).
    const shared = [...new Set(IDS.map((id) => id.charAt('session-'.length)))].find((first) =>
      HOSTS.every((ids) => ids.some((id) => id.startsWith(`session-${first}`))),
    );
    expect(shared).toBeDefined();
    const matching = IDS.filter((id) => id.startsWith(`session-${shared}`));
    const outcome = (await resolution(catalogs[0] as SessionCatalog, shared as string)) as { kind: string; message: string };
    expect(outcome.kind).toBe('invalid-argument');
    expect(outcome.message).toContain(`matches ${matching.length} sessions`);
    for (const id of matching) expect(outcome.message).toContain(id);
  });

  it('LIKE wildcards in a prefix match only themselves; a prefix of no session is not found', async () => {
    for (const typed of ['%', '_', 'session-_', '\\', 'ffffffff']) {
      for (const catalog of catalogs) {
        expect(((await resolution(catalog, typed)) as { kind?: string }).kind, typed).toBe('not-found');
      }
    }
  });

  it('an ambiguity message counts the ids it does not list', () => {
    const listed = Array.from({ length: 11 }, (_, index) => `session-${String(index).padStart(2, '0')}`);
    expect(ambiguousPrefixMessage('s', listed, 500)).toBe(
      `session id prefix "s" matches 500 sessions: ${listed.slice(0, 10).join(', ')} and 490 more; type more of the id`,
    );
    expect(ambiguousPrefixMessage('s', listed.slice(0, 2))).toBe(
      `session id prefix "s" matches 2 sessions: ${listed.slice(0, 2).join(', ')}; type more of the id`,
    );
  });
});

/**
 * Fleet search equals the union of the hosts' local searches (issue 29 item 3, test (b) and (c)). Three simulated
 * hosts, each with its own root of dsh-written fixture logs copied under new ids (some cut to a prefix, then grown by
 * dsh's own next events and published again, so appended documents are in play), publish into one real PostgreSQL.
 * The oracle is each host's local SQLite search (`searchSessions` of an engine with the sqlite backend, paged through):
 * for many phrases — word runs drawn from the logs' own texts, their case and accent variants, CJK runs of the
 * Chinese log, hostile ones — with and without filters, the fleet's set of (corpus, session) hits is the union of the
 * hosts' answers, the engine face (an engine with the postgres backend) finds the same sessions, and every snippet is
 * an excerpt of its own session's event at its seq (read from that session's own file). Cursors page through
 * everything exactly once, in the order of one large page.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { CorpusPublisher, corpusIdOf } from '../../../../src/main/engine/fleet/corpus-publisher.js';
import { resolveCorpusIndexConfig } from '../../../../src/main/engine/fleet/corpus-index-config.js';
import { DatabaseUrl } from '../../../../src/main/engine/fleet/database-url.js';
import { FleetDatabase } from '../../../../src/main/engine/fleet/fleet-database.js';
import { fleetSearch } from '../../../../src/main/engine/fleet/fleet-search.js';
import { resolveSearchConfig } from '../../../../src/main/engine/search/search-config.js';
import { SearchService } from '../../../../src/main/engine/search/search-service.js';
import type { SearchQuery, SearchRole } from '../../../../src/protocol/search-types.js';
import { fixtureSessions } from '../../../support/fixtures.js';
import { mulberry32 } from '../../../support/seeded-random.js';
import { useFleetFixture } from './fleet-test-fixture.js';
import {
  appendLines,
  copySession,
  eventsOf,
  everyResult,
  hostEngine,
  type SessionCopy,
  searchSource,
  seededUuid,
  textsOf,
  toolTextOf,
} from './fleet-search-fixture.js';

const fleet = useFleetFixture('fleet-search-equality');
const HOSTS = 3;
const COPIES_PER_HOST = 5;
const RUNS = Number(process.env['SESSIONCTX_SOAK_RUNS'] ?? 60);
const CHINESE = fixtureSessions().findIndex((session) => session.id === 'session-ca7027f6-8fd2-48d1-b5ed-3c59f38e7cc7');

interface Host {
  readonly root: string;
  readonly corpusId: string;
  readonly engine: LocalSessionEngine;
  readonly copies: SessionCopy[];
  readonly includeTools: boolean;
}

let database: FleetDatabase;
let asking: LocalSessionEngine;
const hosts: Host[] = [];
const copyOf = new Map<string, SessionCopy>();
/** Texts of the copies' events (what phrases are drawn from), CJK runs apart. */
const texts: string[] = [];
const cjkTexts: string[] = [];
const cwds: string[] = [];
const times: number[] = [];
const planner = new SearchService({
  config: resolveSearchConfig({ directory: null }),
  index: undefined as never,
  store: undefined,
  readTitleSnapshots: async () => [],
});

beforeAll(async () => {
  const name = await fleet.cluster.createDatabase();
  database = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
  const next = mulberry32(3);
  const count = fixtureSessions().length;
  for (let host = 0; host < HOSTS; host++) {
    const root = join(fleet.scratch, `host-${host}`);
    const copies: SessionCopy[] = [];
    for (let copy = 0; copy < COPIES_PER_HOST; copy++) {
      // The Chinese log on every host; the others at random, half of them cut to a prefix.
      const index = copy === 0 ? CHINESE : Math.floor(next() * count);
      const lines = next() < 0.5 ? 20 + Math.floor(next() * 400) : undefined;
      copies.push(copySession(root, index, `session-${seededUuid(next)}`, lines));
    }
    // The last host indexes tool calls and results too (its own search.includeTools), as its local index does.
    const includeTools = host === HOSTS - 1;
    const engine = await hostEngine(root, join(fleet.scratch, `host-${host}-search`), includeTools);
    const entry = { root, corpusId: corpusIdOf({ host: `host-${host}`, root }), engine, copies, includeTools };
    hosts.push(entry);
    for (const copy of copies) copyOf.set(copy.id, copy);
  }
  const publish = async (host: Host): Promise<void> => {
    const publisher = new CorpusPublisher({
      database,
      identity: { host: `host-${hosts.indexOf(host)}`, root: host.root },
      layout: { root: host.root, compression: 'none' },
    });
    await publisher.publish(searchSource(host.engine, host.root, host.includeTools));
  };
  for (const host of hosts) await publish(host);
  // Grow the cut copies by dsh's own next events and publish again: appended documents.
  for (const host of hosts) {
    for (const copy of host.copies) if (copy.written < copy.lines.length && next() < 0.7) appendLines(copy, 50 + Math.floor(next() * 300));
    await publish(host);
  }
  for (const copy of copyOf.values()) {
    for (const [, data] of eventsOf(copy)) {
      for (const text of textsOf(data)) {
        if (/[\u4e00-\u9fff]{3}/.test(text)) cjkTexts.push(text);
        else if (/\s/.test(text) && text.length > 12) texts.push(text);
      }
    }
    const header = JSON.parse(copy.lines[0] as string) as { cwd?: string };
    if (header.cwd !== undefined) cwds.push(header.cwd);
    for (const line of copy.lines.slice(1, copy.written)) {
      const { time } = JSON.parse(line) as { time?: unknown };
      if (typeof time === 'number' && Number.isFinite(time)) times.push(time);
    }
  }
  mkdirSync(join(fleet.scratch, 'asking-root'), { recursive: true });
  asking = await createEngine({
    root: join(fleet.scratch, 'asking-root'),
    compression: 'none',
    workers: false,
    corpus: { watch: false },
    sourceCache: false,
    fleetPublish: false,
    corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host: 'asking' }, { SESSIONCTX_DATABASE_URL: fleet.cluster.url(name) }),
  });
}, 240_000);

afterAll(async () => {
  await asking?.close();
  for (const host of hosts) await host.engine.close();
  await database?.close();
});

/** Every (corpus, session) the fleet finds for `query`, with its hits, paged through. */
async function fleetHits(query: SearchQuery, limit = 100) {
  const out: {
    corpusId: string | null;
    sessionId: string;
    hits: readonly { seq: number; role: SearchRole; snippet: string; highlights: readonly (readonly [number, number])[] }[];
  }[] = [];
  let offset = 0;
  for (;;) {
    const { plan } = planner.plan({ ...query, limit });
    const page = await fleetSearch(database, { plan: { ...plan, offset } });
    out.push(...page.results);
    if (!page.more) return out;
    offset += limit;
  }
}

/** The union of the hosts' local answers: "corpus|session". */
async function localUnion(query: SearchQuery): Promise<{ found: string[]; snippets: Map<string, unknown> }> {
  const found: string[] = [];
  const snippets = new Map<string, unknown>();
  for (const host of hosts) {
    for (const result of await everyResult((asked) => host.engine.searchSessions(asked), query)) {
      found.push(`${host.corpusId}|${result.sessionId}`);
      for (const hit of result.hits) snippets.set(`${result.sessionId}/${hit.seq}/${hit.role}`, [hit.snippet, hit.highlights]);
    }
  }
  return { found: found.sort(), snippets };
}

/** Line breaks and tabs as a snippet shows them. */
const shown = (text: string): string => text.replace(/[\n\r\t]/g, ' ');

const pick = <T>(items: readonly T[], at: number): T => items[at % items.length] as T;

/** A phrase of 1 to 4 words of a text (from a word boundary), or a CJK run of 3 to 6 characters. */
function phraseOf(text: string, at: number, words: number): string {
  const parts = text.split(/\s+/).filter((part) => part !== '');
  const from = at % Math.max(1, parts.length);
  return parts.slice(from, from + words).join(' ');
}

const variantArb = fc.constantFrom(
  (s: string) => s,
  (s: string) => s.toUpperCase(),
  (s: string) => s.toLowerCase(),
  (s: string) => s.normalize('NFD'),
  (s: string) => s.normalize('NFD').replace(/\p{M}/gu, ''),
  (s: string) => s.replace(/e/g, 'é').replace(/a/g, 'à'),
);

const queryArb = fc
  .record({
    source: fc.constantFrom('text', 'text', 'text', 'cjk', 'hostile'),
    at: fc.nat(),
    offset: fc.nat(),
    words: fc.integer({ min: 1, max: 4 }),
    length: fc.integer({ min: 3, max: 6 }),
    variant: variantArb,
    hostile: fc.constantFrom('!!!', 'the', '"the"', 'NEAR(the a)', 'a*', 'café', 'CAFE', 'x1', '409', '四舍五入', '订单总价', '\u0000the'),
    roles: fc.option(fc.subarray(['user', 'assistant', 'checkpoint', 'tool'] as SearchRole[], { minLength: 1 }), { nil: undefined }),
    cwd: fc.option(fc.nat(), { nil: undefined }),
    since: fc.option(fc.nat(), { nil: undefined }),
    until: fc.option(fc.nat(), { nil: undefined }),
  })
  .map((drawn): SearchQuery => {
    let phrase: string;
    if (drawn.source === 'hostile') phrase = drawn.hostile;
    else if (drawn.source === 'cjk') {
      const text = pick(cjkTexts, drawn.at);
      const runs = text.match(/[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]{3,}/g) ?? ['订单总价'];
      const run = pick(runs, drawn.offset);
      const from = drawn.offset % Math.max(1, run.length - drawn.length + 1);
      phrase = run.slice(from, from + drawn.length);
    } else phrase = drawn.variant(phraseOf(pick(texts, drawn.at), drawn.offset, drawn.words));
    if (phrase.trim() === '' || [...phrase.trim()].length < 3) phrase = 'the';
    return {
      query: phrase,
      ...(drawn.roles === undefined ? {} : { roles: drawn.roles }),
      ...(drawn.cwd === undefined ? {} : { cwd: pick(cwds, drawn.cwd) }),
      // A window, when both ends are drawn (an empty one would find nothing and test little).
      ...(drawn.since === undefined ? {} : { since: Math.min(pick(times, drawn.since), pick(times, drawn.until ?? drawn.since)) }),
      ...(drawn.until === undefined ? {} : { until: Math.max(pick(times, drawn.until), pick(times, drawn.since ?? drawn.until)) + 1 }),
    };
  });

describe('fleet search over three hosts', () => {
  it('finds exactly the union of the hosts’ local answers, and every snippet comes from its own session', async () => {
    let matched = 0;
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(queryArb, async (query) => {
        const { found: expected, snippets } = await localUnion(query);
        const found = await fleetHits(query);
        expect(found.map((result) => `${result.corpusId}|${result.sessionId}`).sort(), JSON.stringify(query)).toEqual(expected);
        const viaEngine = await everyResult((asked) => asking.searchSessions(asked), query, 37);
        expect(viaEngine.map((result) => result.sessionId).sort()).toEqual(found.map((result) => result.sessionId).sort());
        if (found.length > 0) matched += 1;
        for (const result of found) {
          const copy = copyOf.get(result.sessionId);
          expect(copy, result.sessionId).toBeDefined();
          const events = eventsOf(copy as SessionCopy);
          expect(result.hits.length).toBeGreaterThan(0);
          for (const hit of result.hits) {
            expect(events.has(hit.seq), `${result.sessionId} has seq ${hit.seq}`).toBe(true);
            const core = hit.snippet.replace(/^…/, '').replace(/…$/, '');
            // A document both searches chose as a hit shows the same snippet and highlights (FTS5's highlight()).
            const local = snippets.get(`${result.sessionId}/${hit.seq}/${hit.role}`);
            if (local !== undefined) {
              expect([hit.snippet, hit.highlights], `${query.query}: ${result.sessionId} seq ${hit.seq}`).toEqual(local);
              compared += 1;
            }
            const data = events.get(hit.seq);
            const text = hit.role === 'tool' ? toolTextOf(data) : textsOf(data).join('\n');
            expect(shown(text), `${query.query}: ${result.sessionId} seq ${hit.seq}`).toContain(core);
          }
        }
      }),
      { numRuns: RUNS, seed: Number(process.env['SESSIONCTX_SEED'] ?? 29) },
    );
    // The phrases are drawn from the texts: most find something (the check is not vacuous).
    expect(matched).toBeGreaterThan(RUNS / 4);
    expect(compared).toBeGreaterThan(RUNS / 4);
  }, 600_000);

  it('pages through every session exactly once, in the order of one large page; a cursor is bound to its query', async () => {
    for (const phrase of ['the', 'and', 'is']) {
      const query = { query: phrase };
      const whole = await fleetHits(query);
      expect(whole.length).toBeGreaterThan(3);
      const paged = await everyResult((asked) => asking.searchSessions(asked), query, 3);
      expect(paged.map((result) => result.sessionId)).toEqual(whole.map((result) => result.sessionId));
      expect(new Set(paged.map((result) => result.sessionId)).size).toBe(paged.length);
      const first = await asking.searchSessions({ ...query, limit: 2 });
      expect(first.nextCursor).toBeDefined();
      await expect(asking.searchSessions({ query: 'another phrase', cursor: first.nextCursor as string })).rejects.toMatchObject({
        code: 'SEARCH_INVALID_CURSOR',
      });
    }
  }, 120_000);
});

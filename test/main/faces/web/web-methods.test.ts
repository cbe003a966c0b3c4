// Each remote method against the dsh-small fixtures, over HTTP: values checked against the fixture's own listing and
// table (sessions/list) or against the engine called directly with the same arguments (sessions/candidates).
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { startWebServer } from '../../../../src/main/faces/web/web-server.js';
import type { RunningWebServer } from '../../../../src/main/faces/web/web-server.js';
import { readExpected } from '../../../support/fixtures.js';
import { callApi, fixtureTable, signIn, serveFixture } from './web-test-support.js';
import type { TableRow, WebFixture } from './web-test-support.js';

const served = serveFixture();
let fixture: WebFixture;
let engine: LocalSessionEngine;
let server: RunningWebServer;
let cookie: string;
beforeAll(() => {
  ({ fixture, engine, server, cookie } = served());
});

describe('sessions/list', () => {
  it("lists every fixture session newest first (dsh's listing order) with its title, cwd, artifact size and live flag", async () => {
    const { status, reply } = await callApi(server.port, cookie, 'sessions/list', {});
    expect(status).toBe(200);
    expect(reply.ok).toBe(true);
    const listing = readExpected<Array<{ header: { id: string; createdAt: number; cwd?: string } }>>('listing.json');
    const table = new Map(fixtureTable().map((row) => [row.id, row]));
    expect(reply.value).toEqual({
      skipped: 0,
      // A fresh server's first listing: the event stream's first revision.
      revision: 0,
      sessions: listing.map(({ header }) => {
        const row = table.get(header.id) as TableRow;
        return {
          sessionId: header.id,
          label: row.title,
          ...(row.cwd === undefined ? {} : { cwd: row.cwd }),
          createdAt: header.createdAt,
          sizeBytes: row.fileBytes,
          live: false,
        };
      }),
    });
    const created = (reply.value.sessions as Array<{ createdAt: number }>).map((row) => row.createdAt);
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });
});

describe('sessions/candidates', () => {
  const table = fixtureTable();
  const webshop = table.find((row) => row.cwd === '/home/dev/projects/webshop') as TableRow;
  const cases: Array<{ name: string; args: { target?: string; query: string; limit?: number }; target: { id: string; cwd?: string } }> = [
    { name: 'no target, empty query', args: { query: '' }, target: { id: '' } },
    { name: 'no target, a query', args: { query: 'add' }, target: { id: '' } },
    {
      name: 'a target ranks its own project first and is left out',
      args: { target: webshop.id, query: '' },
      target: { id: webshop.id, cwd: webshop.cwd as string },
    },
    {
      name: 'a target, a query and a limit',
      args: { target: webshop.id, query: 'e', limit: 3 },
      target: { id: webshop.id, cwd: webshop.cwd as string },
    },
    { name: 'a target that names no session yet', args: { target: 'session-new', query: 'macOS' }, target: { id: 'session-new' } },
    { name: 'a query nothing matches', args: { query: 'no session has this text' }, target: { id: '' } },
  ];
  for (const { name, args, target } of cases) {
    it(`equals engine.candidates() for the same arguments: ${name}`, async () => {
      const expected = await engine.candidates(
        { id: target.id, session: { header: target.cwd === undefined ? {} : { cwd: target.cwd } } },
        args.query,
        args.limit,
      );
      const { status, reply } = await callApi(server.port, cookie, 'sessions/candidates', args);
      expect(status).toBe(200);
      expect(reply).toEqual({ ok: true, value: JSON.parse(JSON.stringify(expected)) });
      if (args.target !== undefined) expect(reply.value.map((c: { sessionId: string }) => c.sessionId)).not.toContain(args.target);
    });
  }

  it('a limit of 3 gives the first 3 of the unlimited answer', async () => {
    const all = await callApi(server.port, cookie, 'sessions/candidates', { query: '' });
    const three = await callApi(server.port, cookie, 'sessions/candidates', { query: '', limit: 3 });
    expect(three.reply.value).toEqual(all.reply.value.slice(0, 3));
  });
});

describe('search/sessions', () => {
  it('replies SEARCH_UNAVAILABLE when the server has no search function', async () => {
    const { reply } = await callApi(server.port, cookie, 'search/sessions', { query: 'billing' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'SEARCH_UNAVAILABLE' } });
  });

  it('hands the checked query and the request signal to the search function', async () => {
    const seen: unknown[] = [];
    const other = await startWebServer({
      engine,
      assetsDir: fixture.assetsDir,
      search: (query, signal) => {
        seen.push(query, signal instanceof AbortSignal);
        return Promise.resolve({ results: [], nextCursor: 'c1' });
      },
    });
    try {
      const otherCookie = await signIn(other.port, other.token);
      const { reply } = await callApi(other.port, otherCookie, 'search/sessions', { query: 'billing', roles: ['user'], limit: 2 });
      expect(reply).toEqual({ ok: true, value: { results: [], nextCursor: 'c1' } });
      expect(seen).toEqual([{ query: 'billing', roles: ['user'], limit: 2 }, true]);
      const bad = await callApi(other.port, otherCookie, 'search/sessions', { query: 'billing', roles: ['nobody'] });
      expect(bad.reply).toMatchObject({ ok: false, error: { code: 'WEB_INVALID_ARGUMENTS' } });
    } finally {
      await other.close();
    }
  });
});

// The first listing of a root whose titles were never read (issue 28, "first paint under 1.5 s" at 10,000 sessions):
// a `sessions/list` that would wait for every title is answered from the headers alone — each row labelled by its id
// and marked `titlePending`, at revision 0 — and the rows with their titles follow on the event stream as revision 1.
// A real server, engine and catalog over a copy of the dsh-small root; the catalog's title reads are held back by a
// gate so the test decides how long "reading every title" takes. Expected labels are dsh's titles (sessions.tsv).
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { SessionCatalog, type ListAgainOptions, type ListingMemo } from '../../../../src/main/catalog/session-catalog.js';
import { QUICK_LISTING_AFTER_MS } from '../../../../src/main/faces/web/corpus-events.js';
import { startWebServer, type RunningWebServer } from '../../../../src/main/faces/web/web-server.js';
import type { WebCorpusChange, WebSessionRow } from '../../../../src/protocol/web/web-api.js';
import { callApi, fixtureTable, makeWebFixture, signIn, testEngine, type WebFixture } from './web-test-support.js';

/** A catalog whose listings with titles wait for `release()`; listings from the headers alone do not. */
class GatedCatalog extends SessionCatalog {
  #open!: () => void;
  readonly gate = new Promise<void>((resolve) => {
    this.#open = resolve;
  });
  titledListings = 0;

  release(): void {
    this.#open();
  }

  override async listAgain(memo: ListingMemo | undefined, signal?: AbortSignal, options: ListAgainOptions = {}) {
    if (options.readTitles !== false) {
      this.titledListings += 1;
      await this.gate;
    }
    return super.listAgain(memo, signal, options);
  }
}

let fixture: WebFixture | undefined;
let engine: LocalSessionEngine | undefined;
let server: RunningWebServer | undefined;

afterEach(async () => {
  await server?.close();
  await engine?.close();
  await fixture?.cleanup();
  server = undefined;
  engine = undefined;
  fixture = undefined;
});

/** The `corpus` messages of an event stream, as they arrive. */
function followStream(port: number, cookie: string): { changes: WebCorpusChange[]; close: () => void } {
  const changes: WebCorpusChange[] = [];
  const req = request({ host: '127.0.0.1', port, path: '/api/events', headers: { host: `127.0.0.1:${port}`, cookie } }, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (!block.split('\n').includes('event: corpus')) continue;
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data !== undefined) changes.push(JSON.parse(data.slice(6)) as WebCorpusChange);
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { changes, close: () => req.destroy() };
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function serveGated(): Promise<{ port: number; cookie: string; catalog: GatedCatalog }> {
  fixture = await makeWebFixture();
  engine = await testEngine(fixture.root);
  const catalog = new GatedCatalog(engine, { pageSize: 50 });
  server = await startWebServer({ engine, catalog, assetsDir: fixture.assetsDir, quickListingMinPending: 1 });
  return { port: server.port, cookie: await signIn(server.port, server.token), catalog };
}

describe('the first listing of a root whose titles are still being read', () => {
  it('answers from the headers after a short wait, and sends the titles on the stream as revision 1', async () => {
    const { port, cookie, catalog } = await serveGated();
    const table = fixtureTable();
    const stream = followStream(port, cookie);
    const asked = performance.now();
    const { status, reply } = await callApi(port, cookie, 'sessions/list', {});
    const waited = performance.now() - asked;
    expect(status).toBe(200);
    expect(waited).toBeGreaterThanOrEqual(QUICK_LISTING_AFTER_MS - 5);
    const quick = reply.value as { sessions: WebSessionRow[]; revision: number; skipped: number };
    expect(quick.revision).toBe(0);
    expect(quick.sessions.map((row) => row.sessionId).sort()).toEqual(table.map((row) => row.id).sort());
    for (const row of quick.sessions) {
      expect(row.titlePending).toBe(true);
      expect(row.label).toBe(row.sessionId);
    }
    expect(stream.changes).toEqual([]);

    catalog.release();
    await until(() => stream.changes.length > 0, 'the titles on the stream');
    const [change] = stream.changes as [WebCorpusChange];
    expect(change.revision).toBe(1);
    expect(change.added).toEqual([]);
    expect(change.removed).toEqual([]);
    const titles = new Map(table.map((row) => [row.id, row.title]));
    expect(change.changed.map((row) => row.sessionId).sort()).toEqual([...titles.keys()].sort());
    for (const row of change.changed) {
      expect(row.titlePending).toBeUndefined();
      expect(row.label).toBe(titles.get(row.sessionId));
    }
    // The next `sessions/list` answers the titled rows at the revision that brought them.
    const again = (await callApi(port, cookie, 'sessions/list', {})).reply.value as { sessions: WebSessionRow[]; revision: number };
    expect(again.revision).toBe(1);
    expect(again.sessions.every((row) => row.titlePending === undefined && row.label === titles.get(row.sessionId))).toBe(true);
    stream.close();
  });

  it('waits for the titles of a root with fewer sessions without one than the bound', async () => {
    fixture = await makeWebFixture();
    engine = await testEngine(fixture.root);
    const catalog = new GatedCatalog(engine, { pageSize: 50 });
    // The default bound (1,000) is far above the fixture's 12 sessions.
    server = await startWebServer({ engine, catalog, assetsDir: fixture.assetsDir });
    const cookie = await signIn(server.port, server.token);
    setTimeout(() => catalog.release(), QUICK_LISTING_AFTER_MS * 3);
    const { reply } = await callApi(server.port, cookie, 'sessions/list', {});
    const titles = new Map(fixtureTable().map((row) => [row.id, row.title]));
    const value = reply.value as { sessions: WebSessionRow[]; revision: number };
    expect(value.revision).toBe(0);
    expect(value.sessions.every((row) => row.titlePending === undefined && row.label === titles.get(row.sessionId))).toBe(true);
  });

  it('answers with the titles when the first listing comes back within the wait, and sends no revision', async () => {
    const { port, cookie, catalog } = await serveGated();
    const stream = followStream(port, cookie);
    setTimeout(() => catalog.release(), 20);
    const { reply } = await callApi(port, cookie, 'sessions/list', {});
    const titles = new Map(fixtureTable().map((row) => [row.id, row.title]));
    const value = reply.value as { sessions: WebSessionRow[]; revision: number };
    expect(value.revision).toBe(0);
    expect(value.sessions.every((row) => row.titlePending === undefined && row.label === titles.get(row.sessionId))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.changes).toEqual([]);
    stream.close();
  });
});

describe('the catalog listing from the headers alone', () => {
  it('labels every row by its id, marked pending, and leaves every title to the next listing', async () => {
    fixture = await makeWebFixture();
    engine = await testEngine(fixture.root);
    const catalog = new SessionCatalog(engine, { pageSize: 50 });
    const quick = await catalog.listAgain(undefined, undefined, { readTitles: false });
    const table = new Map(fixtureTable().map((row) => [row.id, row]));
    expect(quick.listing.rows.length).toBe(table.size);
    for (const row of quick.listing.rows) {
      expect(row).toMatchObject({ label: row.sessionId, titlePending: true, sizeBytes: table.get(row.sessionId)?.fileBytes });
    }
    const next = await catalog.listAgain(quick.memo);
    for (const row of next.listing.rows) {
      expect(row.titlePending).toBeUndefined();
      expect(row.label).toBe(table.get(row.sessionId)?.title);
    }
  });
});

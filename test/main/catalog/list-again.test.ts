// `SessionCatalog.listAgain` (issue 28 item 2): a listing after a change reads again only the titles of sessions
// whose artifact changed. Proven with a memo whose label for an unchanged session is one no log holds: it must come
// back as it is (not read again), while the session the test appended a title to must show the new title.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionCatalog, type ListingMemo } from '../../../src/main/catalog/session-catalog.js';
import type { LocalSessionEngine } from '../../../src/main/engine/assembly/create-engine.js';
import type { SessionEvent } from '../../../src/protocol/events.js';
import { appendEvents, CorpusSession, writeSession } from '../engine/search/search-corpus.js';
import { makeWebFixture, testEngine, type WebFixture } from '../faces/web/web-test-support.js';

let fixture: WebFixture;
let engine: LocalSessionEngine;
let catalog: SessionCatalog;

beforeAll(async () => {
  fixture = await makeWebFixture();
  engine = await testEngine(fixture.root);
  catalog = new SessionCatalog(engine, { pageSize: 20 });
});
afterAll(async () => {
  await engine.close();
  await fixture.cleanup();
});

/** The memo with one row's label replaced. */
function withLabel(memo: ListingMemo, sessionId: string, label: string): ListingMemo {
  const rows = new Map(memo.rows);
  const entry = rows.get(sessionId)!;
  rows.set(sessionId, { ...entry, row: { ...entry.row, label } });
  return { rows };
}

describe('LocalSessionEngine.readListedTitleSnapshots', () => {
  it('observes what the exact readTitleSnapshots observes, for every listed session', async () => {
    const ids = (await engine.listSessionsReport()).records.map((record) => record.header.id);
    expect(ids.length).toBeGreaterThan(5);
    expect(await engine.readListedTitleSnapshots(ids)).toEqual(await engine.readTitleSnapshots(ids));
  });
});

describe('SessionCatalog.listAgain', () => {
  it('lists as list() does, reuses the titles of unchanged sessions and reads those of changed ones', async () => {
    const session = new CorpusSession('session-list-again-1', '/home/dev/projects/again', 1_800_000_000_000);
    session.turn('A question', 'An answer');
    await writeSession(fixture.root, session, 'none');
    const fresh = await catalog.listAgain(undefined);
    expect(fresh.listing).toEqual(await catalog.list());
    const other = fresh.listing.rows.find((row) => row.sessionId !== 'session-list-again-1')!;

    const planted = withLabel(withLabel(fresh.memo, other.sessionId, 'planted label'), 'session-list-again-1', 'planted too');
    const title = {
      type: 'session/title',
      seq: session.events.length,
      time: 1_800_000_100_000,
      data: { title: 'Appended title', messageSeqs: [], source: { kind: 'user' } },
    } as SessionEvent;
    session.events.push(title);
    await appendEvents(fixture.root, session, [title], 'none');

    const again = await catalog.listAgain(planted);
    const byId = new Map(again.listing.rows.map((row) => [row.sessionId, row]));
    // Unchanged: the memo's label, not read again.
    expect(byId.get(other.sessionId)?.label).toBe('planted label');
    // Changed (its artifact grew): read again.
    expect(byId.get('session-list-again-1')?.label).toBe('Appended title');
    expect(byId.get('session-list-again-1')?.sizeBytes).toBeGreaterThan(
      fresh.listing.rows.find((row) => row.sessionId === 'session-list-again-1')!.sizeBytes,
    );
    expect(again.listing.rows.map((row) => row.sessionId)).toEqual(fresh.listing.rows.map((row) => row.sessionId));
  });
});

/**
 * A long-lived engine's citations and surface reads and its warm corpus view (issue 27): whether a session is listed
 * (§10.4 step 2) is answered by the view, or — for a citation of an id the view does not list — by the lookup, so a
 * citation or a surface read no longer lists every session of the root (0.6 s at 25,000 sessions). What it prepares
 * and reads must be what the exact path gives (an engine without a view, which lists per read): for every fixture
 * session, an id no artifact has, a session written after the view was built and one removed after it.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { ZSTD_ROOT, fixtureSessions } from '../../../support/fixtures.js';
import { header, userEvent } from './reference-builders.js';

let dir: string;
let root: string;
let exact: LocalSessionEngine;
let kept: LocalSessionEngine;
let listings = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-kept-listing-'));
  root = join(dir, 'root');
  cpSync(ZSTD_ROOT, root, { recursive: true });
  const common = { root, compression: 'zstd' as const, sourceCache: false as const, workers: false };
  exact = await createEngine({ ...common, corpus: { watch: false }, store: { cacheDirectory: join(dir, 'cache-exact') } });
  kept = await createEngine({
    ...common,
    corpus: { watch: true },
    store: { cacheDirectory: join(dir, 'cache-kept'), onListingProgress: (progress) => void (progress.checked === 0 && (listings += 1)) },
  });
});

afterAll(async () => {
  await exact?.close();
  await kept?.close();
  rmSync(dir, { recursive: true, force: true });
});

const reader = { id: 'kept-listing-reader', session: { header: {} } };

/** One citation of `sessionId` as JSON with the context message's random id masked, or the error's name, code and text. */
async function cite(engine: LocalSessionEngine, sessionId: string): Promise<string> {
  try {
    const sized = await engine.prepareSized(reader, [{ type: 'text', text: 'see this' }], [{ sessionId, label: 'cited' }]);
    return JSON.stringify(sized, (key, value: unknown) => (key === 'id' && typeof value === 'string' ? '(message id)' : value));
  } catch (error) {
    const { name, message } = error as Error;
    return JSON.stringify({ name, code: (error as { code?: unknown }).code, message });
  }
}

describe('a citation in an engine with a warm corpus view', () => {
  it('prepares every fixture session and an unknown id as the exact path does, without listing the root', async () => {
    await kept.listSessions(); // the view's first build (a listing's walk, reported as one)
    listings = 0;
    const ids = [...fixtureSessions().map((session) => session.id), 'no-such-session'];
    for (const id of ids) expect(await cite(kept, id), id).toBe(await cite(exact, id));
    expect(JSON.parse(await cite(kept, 'no-such-session'))).toMatchObject({
      code: 'SESSION_REFERENCE_READ_FAILED',
      message: 'failed to read referenced session: session "no-such-session" not found',
    });
    expect(listings).toBe(0);
  });

  it("reads every fixture surface and title as the exact path does, without listing the root, an unknown id's too (the lookup decides)", async () => {
    await kept.listSessions();
    listings = 0;
    const surface = async (engine: LocalSessionEngine, id: string): Promise<string> =>
      engine.readSurface(asSessionId(id)).then(
        (snapshot) => JSON.stringify(snapshot),
        (error: unknown) => JSON.stringify({ code: (error as { code?: unknown }).code, message: (error as Error).message }),
      );
    // What `show` and the Web's conversation read: the surface and the session's title.
    const title = async (engine: LocalSessionEngine, id: string): Promise<string> =>
      JSON.stringify(await engine.readTitleSnapshots([asSessionId(id)]), (key, value: unknown) =>
        key === 'reason' ? { code: (value as { code?: unknown }).code, message: (value as Error).message } : value,
      );
    for (const { id } of fixtureSessions()) {
      expect(await surface(kept, id), id).toBe(await surface(exact, id));
      expect(await title(kept, id), id).toBe(await title(exact, id));
    }
    expect(listings).toBe(0);
    // An id no artifact has is decided by the lookup (a session another host owns is labelled so), without a listing.
    const unknownTitle = await title(kept, 'no-such-session');
    expect(listings).toBe(0);
    expect(unknownTitle).toContain('SESSION_QUERY_SESSION_NOT_FOUND');
    expect(unknownTitle).toBe(await title(exact, 'no-such-session'));
    listings = 0;
    const unknown = await surface(kept, 'no-such-session');
    expect(listings).toBe(0);
    expect(JSON.parse(unknown)).toEqual({ code: 'SESSION_QUERY_SESSION_NOT_FOUND', message: 'session "no-such-session" not found' });
    expect(unknown).toBe(await surface(exact, 'no-such-session'));
  });

  it('finds a session written after the view was built, at once, and not one removed after it', async () => {
    await kept.listSessions();
    const store = await JsonlSessionStore.open({ root, compression: 'zstd', titleIndex: false });
    await store.create(header('written-late', 1_767_225_600_000, '/late'), [userEvent(0, 'written after the view was built')]);
    const late = await cite(kept, 'written-late');
    expect(late).toContain('written after the view was built');
    expect(late).toBe(await cite(exact, 'written-late'));

    const [removed] = fixtureSessions();
    if (removed === undefined) throw new Error('no fixture session');
    rmSync(join(root, removed.projectDir, removed.id), { recursive: true, force: true });
    const gone = await cite(kept, removed.id);
    expect(JSON.parse(gone)).toMatchObject({
      code: 'SESSION_REFERENCE_READ_FAILED',
      message: `failed to read referenced session: session "${removed.id}" not found`,
    });
    expect(gone).toBe(await cite(exact, removed.id));
  });
});

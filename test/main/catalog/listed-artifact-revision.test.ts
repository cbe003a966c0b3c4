// The Web listing's sizes and revision stamps from the warm corpus view (issue 28: a listing of 10,000 sessions took a
// `stat` of each log after the view had just checked them all): `engine.listedArtifactRevision(id)` is the revision
// the view recorded for the log in the listing the latest call was answered from, so it equals the file's own `stat`
// after a listing, follows an append once a listing has seen it, and the catalog's rows carry the files' sizes.
import { stat } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../src/main/engine/assembly/create-engine.js';
import { SessionCatalog } from '../../../src/main/catalog/session-catalog.js';
import { appendEvents, CorpusSession, writeSession } from '../engine/search/search-corpus.js';
import { fixtureTable, makeWebFixture, type WebFixture } from '../faces/web/web-test-support.js';

let fixture: WebFixture | undefined;
let engine: LocalSessionEngine | undefined;

afterEach(async () => {
  await engine?.close();
  await fixture?.cleanup();
  engine = undefined;
  fixture = undefined;
});

/** `dev:ino:size:mtimeNs:ctimeNs` of a file, from its own `stat`. */
async function stampOf(path: string): Promise<string> {
  const info = await stat(path, { bigint: true });
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

describe('the listed artifact revision', () => {
  it('is the log’s own revision after a listing, and follows an append', async () => {
    fixture = await makeWebFixture();
    engine = await createEngine({ root: fixture.root, workers: false, sourceCache: false });
    const session = new CorpusSession('session-listed-revision-1', '/home/dev/projects/listed', 1_900_000_000_000);
    session.turn('A session whose log grows', 'It does.');
    const path = await writeSession(fixture.root, session, 'none');
    expect(engine.listedArtifactRevision(session.header.id)).toBeUndefined();
    const listed = await engine.listSessionsReport();
    expect(listed.records.length).toBe(fixtureTable().length + 1);
    const revision = engine.listedArtifactRevision(session.header.id);
    expect(revision === undefined ? undefined : Object.values(revision).join(':')).toBe(await stampOf(path));

    const catalog = new SessionCatalog(engine, { pageSize: 50 });
    const sizes = new Map(fixtureTable().map((row) => [row.id, row.fileBytes]));
    sizes.set(session.header.id, (await stat(path)).size);
    const rows = (await catalog.list()).rows;
    expect(new Map(rows.map((row) => [row.sessionId, row.sizeBytes]))).toEqual(sizes);

    const before = session.events.length;
    session.turn('And once more', 'Longer now.');
    await appendEvents(fixture.root, session, session.events.slice(before), 'none');
    const grown = (await stat(path)).size;
    // The view takes the append in through its notification (or its sweep); the next listings see it.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const row = (await catalog.list()).rows.find((candidate) => candidate.sessionId === session.header.id);
      if (row?.sizeBytes === grown) break;
      if (Date.now() > deadline) throw new Error(`the listing never showed the appended size ${grown}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const after = engine.listedArtifactRevision(session.header.id);
    expect(after === undefined ? undefined : Object.values(after).join(':')).toBe(await stampOf(path));
  });

  it('is undefined for an engine without a warm view (every size is a stat)', async () => {
    fixture = await makeWebFixture();
    engine = await createEngine({ root: fixture.root, workers: false, sourceCache: false, corpus: { watch: false } });
    const listed = await engine.listSessionsReport();
    expect(listed.records.length).toBeGreaterThan(0);
    for (const record of listed.records) expect(engine.listedArtifactRevision(record.header.id)).toBeUndefined();
    const sizes = new Map(fixtureTable().map((row) => [row.id, row.fileBytes]));
    const rows = (await new SessionCatalog(engine, { pageSize: 50 }).list()).rows;
    expect(new Map(rows.map((row) => [row.sessionId, row.sizeBytes]))).toEqual(sizes);
  });
});

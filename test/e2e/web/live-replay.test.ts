/**
 * Catching up after a dropped connection in a real Chromium (issue 28 item 2): the page's requests go through a
 * proxy (`cutting-proxy.ts`) that cuts the open event stream, as a network that drops a connection does, and holds
 * the browser's reconnection while a session is written into the root. Released, the reconnection carries the last
 * event id (`Last-Event-ID`), the server replays the revision the page missed, and the session appears — without a
 * reload and without the page listing the corpus again (a replay, not a reset).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorpusSession, writeSession } from '../../main/engine/search/search-corpus.js';
import { CuttingProxy } from './cutting-proxy.js';
import { useWebPageFixture } from './web-page-fixture.js';

let proxy: CuttingProxy | undefined;
// Registered before the fixture's hooks, so the proxy runs when the browser starts.
beforeAll(async () => {
  proxy = await CuttingProxy.start();
});
afterAll(async () => {
  await proxy?.close();
});
const web = useWebPageFixture({ proxy: () => proxy!.url });

const listings = (): number => proxy!.requests.filter((r) => r.path === '/api/sessions/list').length;
const streams = () => proxy!.requests.filter((r) => r.path.startsWith('/api/events'));

describe('a dropped event stream', () => {
  it('reconnects with its last event id and the server replays what it missed', async () => {
    const { page, problems } = await web.open('#/');
    await page.locator('.project-line').first().waitFor();
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('live');
    await page.evaluate('globalThis.replayTestMark = 1');
    const listedBefore = listings();
    const streamsBefore = streams().length;

    // The connection drops, and the browser's reconnection is held back while a session is written.
    proxy!.hold('/api/events');
    expect(proxy!.cut('/api/events')).toBe(1);
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('reconnecting');
    const session = new CorpusSession('session-replay-0001', '/home/dev/projects/replay', 1_800_000_000_000);
    session.turn('Written while the stream was down', 'Replayed after it.');
    await writeSession(web.fixture.root, session, 'none');
    await expect
      .poll(async () => (await web.fixture.engine.listSessionsReport()).records.some((r) => r.header.id === 'session-replay-0001'))
      .toBe(true);
    await expect.poll(() => streams().length).toBe(streamsBefore + 1);
    expect(await page.locator('.session-row[data-session-id="session-replay-0001"]').count()).toBe(0);

    proxy!.release();
    await page.locator('.session-row[data-session-id="session-replay-0001"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('live');
    // The reconnection named the last revision the page had; the page did not list again.
    const reconnect = streams().at(-1)!;
    expect(reconnect.headers['last-event-id']).toMatch(/^[0-9a-f]+-\d+$/);
    expect(listings()).toBe(listedBefore);
    expect(await page.evaluate('globalThis.replayTestMark')).toBe(1);
    // Chromium reports the cut stream on the console once: the only problem allowed.
    expect(problems.filter((problem) => /ERR_INCOMPLETE_CHUNKED_ENCODING/.test(problem))).toHaveLength(1);
    problems.splice(0, problems.length, ...problems.filter((problem) => !/ERR_INCOMPLETE_CHUNKED_ENCODING/.test(problem)));
  });
});

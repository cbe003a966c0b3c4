/**
 * Live updates in a real Chromium (issue 28 item 2): the page is open, and sessions are written into the root with
 * plain file writes — as another process (dsh) writes them, never through the server — in dsh's layout and framing.
 * The page must show a new session, a new title, the open conversation's appended messages and a removal without a
 * reload, and catch up after its stream was cut. What is expected comes from what the test wrote.
 */
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../src/protocol/events.js';
import { appendEvents, CorpusSession, writeSession } from '../../main/engine/search/search-corpus.js';
import { startWebServer } from '../../../src/main/faces/web/web-server.js';
import { useWebPageFixture } from './web-page-fixture.js';

const CWD = '/home/dev/projects/live-page';
/** Newer than every fixture session, so its project is the first group. */
const CREATED = 1_800_000_000_000;

const web = useWebPageFixture();

/** Marks the document, so the test can tell that no reload happened (a reload makes a new one). */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    (globalThis as { liveTestMark?: number }).liveTestMark = 1;
  });
}

async function stillSameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (globalThis as { liveTestMark?: number }).liveTestMark === 1);
}

function rowOf(page: Page, sessionId: string) {
  return page.locator(`.session-row[data-session-id="${sessionId}"]`);
}

/** A title event as dsh's `/title` writes it (a user rename outside any turn). */
function titleEvent(session: CorpusSession, title: string): SessionEvent {
  const event = {
    type: 'session/title',
    seq: session.events.length,
    time: CREATED + 10_000 + session.events.length,
    data: { title, messageSeqs: [], source: { kind: 'user' } },
  } as SessionEvent;
  session.events.push(event);
  return event;
}

describe('live updates', () => {
  it('shows a session written into the root within 2 s, then its new title, then its removal, without a reload', async () => {
    const { page } = await web.open('#/');
    await page.locator('.project-line').first().waitFor();
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('live');
    await markDocument(page);

    const session = new CorpusSession('session-live-page-0001', CWD, CREATED);
    session.turn('Does the page follow the root?', 'Yes, through the event stream.');
    const written = Date.now();
    const path = await writeSession(web.fixture.root, session, 'none');
    await rowOf(page, 'session-live-page-0001').waitFor({ timeout: 2000 });
    console.log(`live: a new session appeared ${Date.now() - written} ms after it was written`);
    // Its project is the newest, so it is the first group, with its count.
    expect(await page.locator('.project-line').first().getAttribute('data-cwd')).toBe(CWD);
    expect(await page.locator('.project-line').first().locator('.project-count').textContent()).toBe('1 session');
    expect(await rowOf(page, 'session-live-page-0001').locator('.session-title').textContent()).toBe('session-live-page-0001');

    await appendEvents(web.fixture.root, session, [titleEvent(session, 'Following the root live')], 'none');
    await expect.poll(() => rowOf(page, 'session-live-page-0001').locator('.session-title').textContent()).toBe('Following the root live');

    await rm(dirname(path), { recursive: true, force: true });
    await rowOf(page, 'session-live-page-0001').waitFor({ state: 'detached' });
    expect(await page.locator(`.project-line[data-cwd="${CWD}"]`).count()).toBe(0);
    expect(await stillSameDocument(page)).toBe(true);
  });

  it('appends the messages written to the open conversation, shows its new title, and says when it was removed', async () => {
    const session = new CorpusSession('session-live-page-0002', CWD, CREATED + 1);
    session.turn('First question of an open conversation', 'First answer.');
    const path = await writeSession(web.fixture.root, session, 'none');
    // The server has seen it once the Sessions view lists it.
    const { page } = await web.open('#/session/session-live-page-0002');
    await page.getByText('First answer.').waitFor();
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('live');
    await markDocument(page);

    await appendEvents(web.fixture.root, session, session.turn('A second question, written later', 'A **second** answer.'), 'none');
    await page.getByText('A second question, written later').waitFor({ timeout: 2000 });
    await page.locator('.bubble.assistant strong', { hasText: 'second' }).waitFor();
    const texts = await page.locator('.conversation-row .bubble-text').allTextContents();
    expect(texts.map((text) => text.trim())).toEqual([
      'First question of an open conversation',
      'First answer.',
      'A second question, written later',
      'A second answer.',
    ]);

    // A new title is the conversation's heading.
    await appendEvents(web.fixture.root, session, [titleEvent(session, 'An open conversation, retitled')], 'none');
    await page.getByRole('heading', { level: 1, name: 'An open conversation, retitled' }).waitFor();

    await rm(dirname(path), { recursive: true, force: true });
    await page.locator('.session-removed').waitFor();
    // What was read stays on the page.
    expect(await page.locator('.conversation-row .bubble-text').count()).toBe(4);
    expect(await stillSameDocument(page)).toBe(true);
  });

  it('offers a session written meanwhile in the Written-in chooser', async () => {
    const { page } = await web.open('#/compose');
    const chooser = page.getByRole('combobox', { name: 'Written in' });
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('live');
    // The chooser has its list (more than "a new conversation") before the session is written.
    const options = page.getByRole('listbox', { name: 'Sessions to write in' }).getByRole('option');
    await chooser.focus();
    await expect.poll(() => options.count()).toBeGreaterThan(5);
    await chooser.press('Escape');
    const session = new CorpusSession('session-live-page-0004', CWD, CREATED + 3);
    session.turn('Chosen to write in', 'Offered without a reload.');
    session.events.push(titleEvent(session, 'Offered in the chooser'));
    await writeSession(web.fixture.root, session, 'none');
    await chooser.focus();
    await chooser.fill('offered chooser');
    await expect.poll(() => options.allTextContents()).toEqual(['Offered in the chooser' + CWD]);
    await chooser.press('Enter');
    await expect.poll(() => page.url()).toContain('#/compose/session-live-page-0004');
  });

  // Last in the file: it replaces the fixture's server with a new run on the same port.
  it('catches up after its stream was cut: a session written while the server was away appears once it is back', async () => {
    const { page, problems } = await web.open('#/');
    await page.locator('.project-line').first().waitFor();
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('live');
    await markDocument(page);

    // The server goes away (its close ends the open stream): the page says it is reconnecting.
    const { engine, server } = web.fixture;
    await server.close();
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('reconnecting');
    expect(await page.locator('.live-status').textContent()).toBe('Reconnecting…');

    const session = new CorpusSession('session-live-page-0003', CWD, CREATED + 2);
    session.turn('Written while the server was away', 'Caught up later.');
    await writeSession(web.fixture.root, session, 'none');
    await expect
      .poll(async () => (await engine.listSessionsReport()).records.some((record) => record.header.id === 'session-live-page-0003'))
      .toBe(true);
    expect(await rowOf(page, 'session-live-page-0003').count()).toBe(0);

    // A new run on the same port and token; signing in again (another tab) gives the browser the new run's cookie.
    const again = await startWebServer({ engine, port: server.port, token: server.token });
    try {
      const signIn = await web.fixture.browser.context.newPage();
      await signIn.goto(again.url);
      await signIn.locator('main h1').first().waitFor();
      await signIn.close();
      await rowOf(page, 'session-live-page-0003').waitFor({ timeout: 20_000 });
      await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('live');
      expect(await stillSameDocument(page)).toBe(true);
    } finally {
      await again.close();
    }
    // Chromium reports each refused reconnection on the console (no server, then no cookie): the only problems allowed.
    const others = problems.filter(
      (problem) => !/ERR_CONNECTION_REFUSED|status of 401|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET/.test(problem),
    );
    problems.splice(0, problems.length, ...others);
  });
});

/**
 * The page on a 10,000-session root in a real Chromium (issue 28 item 5): a dsh-shaped corpus generated into the
 * root (`bench/support/dsh-corpus.ts`) beside the dsh-small fixture. The sessions list keeps fewer than 500 rows in
 * the DOM wherever it is scrolled, project groups fold away with their counts, "Written in" is a searchable
 * chooser that never lists 10,000 options, and at 390 px every title stays on one line. The expected groups, counts
 * and last row come from the generator's own headers and the fixture's listing, not from the page. First paint is
 * measured and logged (never asserted).
 */
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dshCorpusSession, writeDshCorpus } from '../../../bench/support/dsh-corpus.js';
import { readExpected } from '../../support/fixtures.js';
import { CorpusSession, writeSession } from '../../main/engine/search/search-corpus.js';
import { useWebPageFixture } from './web-page-fixture.js';

const SESSIONS = 10_000;
/** Small sessions only: the page's part is the listing, and the root is written in seconds. */
const CORPUS = { sessions: SESSIONS, longEvery: 0 } as const;
/** Rows the DOM may hold at most (the bound). */
const DOM_ROW_BOUND = 500;

interface Header {
  readonly id: string;
  readonly createdAt: number;
  readonly cwd?: string;
}

/** Every session of the root: the generated ones and the fixture's (dsh's listing). */
function allHeaders(): { header: Header; label: string }[] {
  const generated = Array.from({ length: SESSIONS }, (_, index) => {
    const session = dshCorpusSession(index, CORPUS);
    return { header: session.header as Header, label: session.title ?? session.header.id };
  });
  const fixture = readExpected<{ header: Header }[]>('listing.json').map(({ header }) => ({ header, label: '' }));
  return [...generated, ...fixture];
}

/** The label of a session by the generator's own title (else its id), or the fixture's title. */
function labelOf(id: string): string {
  const found = allHeaders().find(({ header }) => header.id === id);
  return found?.label === '' || found === undefined ? (fixtureTitles().get(id) ?? id) : found.label;
}

/** The dsh-small fixture's titles by id (dsh's `titles.json`). */
function fixtureTitles(): Map<string, string> {
  const titles = readExpected<{ sessionId: string; status: string; value?: { title?: { title: string } } }[]>('titles.json');
  return new Map(
    titles.flatMap((entry) => (entry.value?.title === undefined ? [] : [[entry.sessionId, entry.value.title.title] as const])),
  );
}

/** The expected groups by an independent definition: by cwd, newest first; groups by their newest session. */
function expectedGroups(): { cwd: string; ids: string[] }[] {
  const groups = new Map<string, Header[]>();
  for (const { header } of allHeaders()) {
    const cwd = header.cwd ?? '(no project)';
    groups.set(cwd, [...(groups.get(cwd) ?? []), header]);
  }
  const byTime = (a: Header, b: Header): number => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1);
  return [...groups]
    .map(([cwd, headers]) => ({ cwd, headers: [...headers].sort(byTime) }))
    .sort((a, b) => byTime(a.headers[0]!, b.headers[0]!))
    .map(({ cwd, headers }) => ({ cwd, ids: headers.map((h) => h.id) }));
}

const web = useWebPageFixture({
  prepareRoot: async (root) => {
    await writeDshCorpus(root, CORPUS, 'none');
  },
});

/** When the first session row and the first contentful paint came, after the navigation's start. */
async function paintTimes(page: Page): Promise<string> {
  const { row, paint, list } = (await page.evaluate(
    `({ row: performance.now(), paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
        list: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/sessions/list')).map((e) => [e.startTime, e.responseStart, e.responseEnd]) })`,
  )) as { row: number; paint?: number; list: number[][] };
  const listing = list
    .map(([start, first, end]) => `${start!.toFixed(0)}–${end!.toFixed(0)} ms (first byte ${first!.toFixed(0)} ms)`)
    .join(', ');
  return `first row ${row.toFixed(0)} ms, first contentful paint ${paint?.toFixed(0) ?? '?'} ms, sessions/list ${listing}`;
}

async function domRows(page: Page): Promise<number> {
  return page.locator('.session-groups > li').count();
}

describe('the page on 10,000 sessions', () => {
  it('paints the list with fewer than 500 rows in the DOM, at the top and at the bottom, in the expected order', async () => {
    const expected = expectedGroups();
    // Times count from the navigation's start (`performance.now()` of the new document).
    const { page } = await web.open('#/');
    {
      await page.locator('.session-row').first().waitFor();
      console.log(`scale: ${SESSIONS} sessions, first load (the server's first listing): ${await paintTimes(page)}`);
      // A root whose titles were never read paints from its headers; the titles follow on the stream (revision 1).
      const pendingAtFirstPaint = await page.locator('.title-pending').count();
      const titlesStarted = Date.now();
      await expect.poll(() => page.locator('.title-pending').count(), { timeout: 120_000, interval: 200 }).toBe(0);
      console.log(
        `scale: ${pendingAtFirstPaint} rows painted before their titles were read; every title shown ${Date.now() - titlesStarted} ms later`,
      );
      const firstTitle = await page.locator('.session-row .session-title').first().textContent();
      expect(firstTitle).toBe(labelOf(expected[0]!.ids[0]!));
      const total = expected.reduce((n, group) => n + group.ids.length, 0);
      expect(await page.locator('.sessions-view > p.hint[role=status]').textContent()).toBe(`${total} sessions`);
      expect(await page.locator('.project-tools .hint').textContent()).toBe(`${expected.length} projects`);
      expect(await domRows(page)).toBeLessThan(DOM_ROW_BOUND);
      // The first group and its first rows, as the generator and the fixture define them.
      const first = await page.locator('.project-line').first();
      expect(await first.getAttribute('data-cwd')).toBe(expected[0]!.cwd);
      expect(await first.locator('.project-count').textContent()).toBe(`${expected[0]!.ids.length} sessions`);
      const topIds = await page
        .locator('.session-row')
        .evaluateAll((rows) => rows.slice(0, 3).map((row) => row.getAttribute('data-session-id')));
      expect(topIds).toEqual(expected[0]!.ids.slice(0, 3));

      // The bottom: the oldest session of the group whose newest session is the oldest.
      await page.evaluate('scrollTo(0, document.documentElement.scrollHeight)');
      const lastId = expected.at(-1)!.ids.at(-1)!;
      await expect.poll(() => page.locator('.session-groups > li').last().getAttribute('data-session-id')).toBe(lastId);
      expect(await domRows(page)).toBeLessThan(DOM_ROW_BOUND);
      // And the middle, reached in one jump.
      await page.evaluate('scrollTo(0, document.documentElement.scrollHeight / 2)');
      await expect.poll(async () => (await page.locator('.session-row').first().getAttribute('data-session-id')) !== topIds[0]).toBe(true);
      expect(await domRows(page)).toBeLessThan(DOM_ROW_BOUND);
    }
    // Opened again on the warm server (its listing and titles in memory), as a person opening the page later.
    const again = await web.open('#/');
    await again.page.locator('.session-row').first().waitFor();
    console.log(`scale: ${SESSIONS} sessions, warm server: ${await paintTimes(again.page)}`);
  });

  it('shows a session written into the 10,000-session root without a reload', async () => {
    const { page } = await web.open('#/');
    await page.locator('.session-row').first().waitFor();
    await expect.poll(() => page.locator('.live-status').getAttribute('data-live')).toBe('live');
    await page.evaluate('globalThis.scaleTestMark = 1');
    const session = new CorpusSession('session-scale-live-1', '/home/dev/projects/scale-live', 1_900_000_000_000);
    session.turn('Written beside ten thousand others', 'Shown at the top.');
    const written = Date.now();
    const path = await writeSession(web.fixture.root, session, 'none');
    // Newest of all: its project is the first group.
    await page.locator('.session-row[data-session-id="session-scale-live-1"]').waitFor({ timeout: 10_000 });
    console.log(`scale: a session written into the ${SESSIONS}-session root appeared ${Date.now() - written} ms later`);
    expect(await page.locator('.project-line').first().getAttribute('data-cwd')).toBe('/home/dev/projects/scale-live');
    expect(await page.evaluate('globalThis.scaleTestMark')).toBe(1);
    expect(await domRows(page)).toBeLessThan(DOM_ROW_BOUND);
    await rm(dirname(path), { recursive: true, force: true });
    await page.locator('.session-row[data-session-id="session-scale-live-1"]').waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('folds a project group away and back, with its count', async () => {
    const expected = expectedGroups();
    const { page } = await web.open('#/');
    await page.locator('.project-line').first().waitFor();
    const toggle = page.locator('.project-line').first().getByRole('button');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const height = () => page.locator('.session-groups').evaluate((list) => list.getBoundingClientRect().height);
    const open = await height();
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    // None of its sessions is drawn; the next line is the next project's header.
    await expect.poll(() => page.locator(`.session-row[data-session-id="${expected[0]!.ids[0]}"]`).count()).toBe(0);
    expect(await page.locator('.session-groups > li').nth(1).getAttribute('data-cwd')).toBe(expected[1]!.cwd);
    expect(open - (await height())).toBe(expected[0]!.ids.length * 60);
    await toggle.press('Enter');
    await page.locator(`.session-row[data-session-id="${expected[0]!.ids[0]}"]`).waitFor();

    await page.getByRole('button', { name: 'Collapse all' }).click();
    expect(await page.locator('.session-row').count()).toBe(0);
    expect(await page.locator('.project-line').count()).toBeLessThan(DOM_ROW_BOUND);
    await page.getByRole('button', { name: 'Expand all' }).click();
    await page.locator(`.session-row[data-session-id="${expected[0]!.ids[0]}"]`).waitFor();
  });

  it('"Written in" is a searchable, labelled chooser: words filter, the keys move and pick, at most 50 options', async () => {
    const { page } = await web.open('#/compose');
    const chooser = page.getByRole('combobox', { name: 'Written in' });
    expect(await chooser.inputValue()).toBe('a new conversation');
    await chooser.focus();
    const options = page.getByRole('listbox', { name: 'Sessions to write in' }).getByRole('option');
    await options.first().waitFor();
    expect(await options.count()).toBeLessThanOrEqual(51);
    expect(await options.first().textContent()).toBe('a new conversation');
    // Two words of one generated title, in another order than the title's.
    const target = dshCorpusSession(4321, CORPUS);
    const title = target.title!;
    const words = title.split(' ');
    await chooser.fill(`${words.at(-1)} ${words[0]}`);
    const wanted = allHeaders().filter(({ label }) => {
      const text = label.toLocaleLowerCase();
      return text.includes(words.at(-1)!.toLocaleLowerCase()) && text.includes(words[0]!.toLocaleLowerCase());
    });
    await expect.poll(() => options.count()).toBe(Math.min(50, wanted.length));
    expect(await options.first().getAttribute('aria-selected')).toBe('true');
    const index = (await options.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-session-id')))).indexOf(target.header.id);
    expect(index).toBeGreaterThanOrEqual(0);
    for (let step = 0; step < index; step += 1) await chooser.press('ArrowDown');
    expect(await chooser.getAttribute('aria-activedescendant')).toBe(await options.nth(index).getAttribute('id'));
    await chooser.press('Enter');
    await expect.poll(() => page.url()).toContain(`#/compose/${target.header.id}`);
    await expect.poll(() => chooser.inputValue()).toBe(title);
    // Escape closes without changing the choice.
    await chooser.focus();
    await chooser.fill('checkout');
    await chooser.press('Escape');
    expect(await chooser.inputValue()).toBe(title);
    expect(await page.getByRole('listbox', { name: 'Sessions to write in' }).count()).toBe(0);
  });

  it('at 390 px wide nothing overflows and every title stays on one line, ellipsized when longer than the line', async () => {
    const { page } = await web.open('#/');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('.session-row').first().waitFor();
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(resolve))');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const titles = await page.locator('.session-row .session-title').evaluateAll((links) =>
      links.map((link) => {
        const style = (globalThis as any).getComputedStyle(link);
        return {
          lines: Math.round(
            link.getBoundingClientRect().height /
              Number.parseFloat(style.lineHeight === 'normal' ? `${1.2 * Number.parseFloat(style.fontSize)}` : style.lineHeight),
          ),
          ellipsis: style.textOverflow,
          right: link.getBoundingClientRect().right,
        };
      }),
    );
    expect(titles.length).toBeGreaterThan(5);
    for (const title of titles) {
      expect(title.lines).toBe(1);
      expect(title.ellipsis).toBe('ellipsis');
      expect(title.right).toBeLessThanOrEqual(390);
    }
    // The chooser fits too.
    await page.goto(`${web.fixture.server.origin}/#/compose`);
    const chooser = page.getByRole('combobox', { name: 'Written in' });
    await chooser.waitFor();
    expect(await chooser.evaluate((input) => input.getBoundingClientRect().right)).toBeLessThanOrEqual(390);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  });
});

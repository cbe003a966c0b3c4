/**
 * The Sessions view in a real Chromium (issue 18): sessions grouped by project (cwd), groups and sessions newest
 * first, the title filter, and the words the page says when the server has no full-text search. The expected order
 * is computed from dsh's listing (`expected/listing.json`) and titles (`sessions.tsv`), not from the page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DSH_SMALL, readExpected } from '../../support/fixtures.js';
import { expectOnlyRefusedCalls, useWebPageFixture } from './web-page-fixture.js';

interface ListingRecord {
  readonly header: { readonly id: string; readonly createdAt: number; readonly cwd?: string };
}

/** Titles from sessions.tsv (the fixture's own table), by id. */
function fixtureTitles(): Map<string, string> {
  const lines = readFileSync(join(DSH_SMALL, 'sessions.tsv'), 'utf8').trim().split('\n').slice(1);
  return new Map(lines.map((line) => line.split('\t')).map((cells) => [cells[0]!, JSON.parse(cells[4]!) as string]));
}

/** The expected groups: cwd, then session ids, newest first within a group; groups by their newest session. */
function expectedGroups(): { cwd: string; ids: string[] }[] {
  const groups = new Map<string, ListingRecord['header'][]>();
  for (const { header } of readExpected<ListingRecord[]>('listing.json')) {
    const cwd = header.cwd ?? '(no project)';
    groups.set(cwd, [...(groups.get(cwd) ?? []), header]);
  }
  return [...groups]
    .map(([cwd, headers]) => ({ cwd, headers: [...headers].sort((a, b) => b.createdAt - a.createdAt) }))
    .sort((a, b) => b.headers[0]!.createdAt - a.headers[0]!.createdAt)
    .map(({ cwd, headers }) => ({ cwd, ids: headers.map((h) => h.id) }));
}

const web = useWebPageFixture();
let page: Page;
let problems: string[];

/** The groups as drawn: each project line starts a group, the session rows after it (in DOM order) are its own. */
async function shownGroups(): Promise<{ cwd: string; ids: string[] }[]> {
  return page.locator('.session-groups').evaluate((list) => {
    const groups: { cwd: string; ids: string[] }[] = [];
    for (const line of list.children) {
      if (line.classList.contains('project-line')) groups.push({ cwd: line.querySelector('.project-cwd')?.textContent ?? '', ids: [] });
      else groups.at(-1)?.ids.push(line.getAttribute('data-session-id') ?? '');
    }
    return groups;
  });
}

describe('the Sessions view', () => {
  it('groups the sessions by project, newest first, each with its title, created time and size', async () => {
    ({ page, problems } = await web.open('#/'));
    await page.locator('.project-line').first().waitFor();
    expect(await shownGroups()).toEqual(expectedGroups());
    const titles = fixtureTitles();
    const rows = await page.locator('.session-row').evaluateAll((nodes) =>
      nodes.map((n) => ({
        id: n.getAttribute('data-session-id') ?? '',
        title: n.querySelector('.session-title')?.textContent ?? '',
        time: n.querySelector('time')?.getAttribute('datetime') ?? '',
        meta: n.querySelector('.session-meta')?.textContent ?? '',
      })),
    );
    const created = new Map(readExpected<ListingRecord[]>('listing.json').map(({ header }) => [header.id, header.createdAt]));
    for (const row of rows) {
      expect(row.title).toBe(titles.get(row.id));
      expect(row.time).toBe(new Date(created.get(row.id)!).toISOString());
      expect(row.meta).toMatch(/ · \d+(\.\d)? (B|KB|MB)$/);
    }
  });

  it('filters titles as you type and says in words that contents cannot be searched without full-text search', async () => {
    ({ page, problems } = await web.open('#/'));
    await page.locator('.project-line').first().waitFor();
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('macos');
    const titles = fixtureTitles();
    const expected = [...titles].filter(([, title]) => title.toLocaleLowerCase().includes('macos')).map(([id]) => id);
    await expect
      .poll(async () =>
        (await page.locator('.session-row').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-session-id')))).sort(),
      )
      .toEqual(expected.sort());
    const notice = page.locator('.search-unavailable');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^Full-text search is not available on this server \(.+\); only titles are filtered\.$/);
    expectOnlyRefusedCalls(problems, 1);
    // The page does not ask again once it knows.
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('macos file');
    await page.waitForTimeout(400);
    expectOnlyRefusedCalls(problems, 0);
  });

  it('opens a session from its title with the keyboard', async () => {
    ({ page, problems } = await web.open('#/'));
    await page.locator('.project-line').first().waitFor();
    const link = page.getByRole('link', { name: 'How does Raft leader election', exact: true });
    await link.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toContain('#/session/session-24445f64-0c0f-4d8f-8925-279091e56cc1');
    await page.getByRole('heading', { level: 1, name: 'How does Raft leader election' }).waitFor();
  });
});

describe('the Sessions view with full-text search', () => {
  const asked: unknown[] = [];
  const snippet = 'Write unit tests for CartService.removeItem. The relevant code';
  // A stand-in search function: the page's part is asking and showing, whatever engine answers.
  const searching = useWebPageFixture({
    search: async (query) => {
      asked.push(query);
      return {
        results: [
          {
            sessionId: 'session-9d029d81-e515-48ac-b168-fef7011f3491',
            label: 'Write unit tests CartService.removeItem',
            cwd: '/home/dev/projects/webshop',
            createdAt: 1772581543659,
            mention:
              '@[Write unit tests CartService.removeItem](dsh-session:InNlc3Npb24tOWQwMjlkODEtZTUxNS00OGFjLWIxNjgtZmVmNzAxMWYzNDkxIg)',
            score: 1,
            hits: [{ seq: 3, role: 'user', time: 1772581543700, snippet, highlights: [[33, 43]] }],
          },
        ],
      };
    },
  });

  it('asks search/sessions after a pause and lists the matching conversations with their highlighted snippets', async () => {
    ({ page, problems } = await searching.open('#/'));
    await page.locator('.project-line').first().waitFor();
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('removeitem');
    const results = page.getByRole('region', { name: 'In conversations' });
    await results.waitFor();
    expect(asked).toEqual([{ query: 'removeitem', limit: 20 }]);
    expect(await results.locator('.session-title').allTextContents()).toEqual(['Write unit tests CartService.removeItem']);
    expect(await results.locator('mark').allTextContents()).toEqual([snippet.slice(33, 43)]);
    expect(await results.locator('.snippet').textContent()).toBe(`user ${snippet}`);
  });
});

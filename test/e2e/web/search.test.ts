/**
 * Web search that leads somewhere (issue 28), in a real Chromium: the result count, paging through the API's cursor
 * ("More results" asks with the last page's `nextCursor` and appends), and each hit linking to its exact message
 * (`#/session/<id>/message/<seq>`), which opens scrolled into view and highlighted. The search function is a
 * stand-in that pages the fixture listing (`expected/listing.json`) five sessions at a time: the page's part is
 * asking and showing, whatever engine answers.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SearchQuery, SearchSessionResult } from '../../../src/protocol/search-types.js';
import { readExpected } from '../../support/fixtures.js';
import { useWebPageFixture } from './web-page-fixture.js';

interface ListingRecord {
  readonly header: { readonly id: string; readonly createdAt: number; readonly cwd?: string };
}

const PAGE = 5;
/** A user message of this session (seq 164, the golden replay's) is the first hit of every result. */
const WITH_RECALL = 'session-96692971-d1af-4d7b-a519-2e3dc0969b7e';
const ANCHOR_SEQ = 164;

const listing = readExpected<ListingRecord[]>('listing.json').map(({ header }) => header);
const all: SearchSessionResult[] = listing.map((header, index) => ({
  sessionId: header.id,
  label: `Result ${index + 1}`,
  ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
  createdAt: header.createdAt,
  mention: `@[Result ${index + 1}](dsh-session:x)`,
  score: listing.length - index,
  hits: [
    {
      seq: header.id === WITH_RECALL ? ANCHOR_SEQ : 3,
      role: 'user',
      time: header.createdAt,
      snippet: `hit of result ${index + 1}`,
      highlights: [[0, 3]],
    },
  ],
}));

const asked: SearchQuery[] = [];
const web = useWebPageFixture({
  search: async (query) => {
    asked.push(query);
    const from = query.cursor === undefined ? 0 : Number(query.cursor);
    const results = all.slice(from, from + PAGE);
    return from + PAGE < all.length ? { results, nextCursor: String(from + PAGE) } : { results };
  },
});

async function search(words: string): Promise<Page> {
  const { page } = await web.open('#/');
  await page.locator('.project-line').first().waitFor();
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill(words);
  await page.getByRole('region', { name: 'In conversations' }).waitFor();
  return page;
}

describe('Web search', () => {
  it('counts its results and pages through the cursor with "More results"', async () => {
    asked.length = 0;
    const page = await search('invoice csv');
    const results = page.getByRole('region', { name: 'In conversations' });
    const ids = () => results.locator('.search-result').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-session-id')));
    await expect.poll(ids).toEqual(all.slice(0, PAGE).map((r) => r.sessionId));
    expect(await results.locator('.result-count').textContent()).toBe(`${PAGE} sessions shown · more match`);
    const more = results.getByRole('button', { name: 'More results' });
    await more.click();
    await expect.poll(ids).toEqual(all.slice(0, 2 * PAGE).map((r) => r.sessionId));
    await more.click();
    await expect.poll(ids).toEqual(all.map((r) => r.sessionId));
    expect(await results.locator('.result-count').textContent()).toBe(`${all.length} sessions found`);
    expect(await results.getByRole('button', { name: 'More results' }).count()).toBe(0);
    expect(asked).toEqual([
      { query: 'invoice csv', limit: 20 },
      { query: 'invoice csv', limit: 20, cursor: String(PAGE) },
      { query: 'invoice csv', limit: 20, cursor: String(2 * PAGE) },
    ]);
  });

  it('links each hit to its exact message, which opens scrolled into view and highlighted', async () => {
    const page = await search('leader');
    const results = page.getByRole('region', { name: 'In conversations' });
    const index = all.findIndex((r) => r.sessionId === WITH_RECALL);
    while ((await results.locator(`.search-result[data-session-id="${WITH_RECALL}"]`).count()) === 0)
      await results.getByRole('button', { name: 'More results' }).click();
    const link = results.locator(`.search-result[data-session-id="${WITH_RECALL}"] a.snippet-link`);
    expect(await link.getAttribute('href')).toBe(`#/session/${encodeURIComponent(WITH_RECALL)}/message/${ANCHOR_SEQ}`);
    expect(await link.textContent()).toBe(`user hit of result ${index + 1}`);
    await link.click();
    const row = page.locator(`.conversation-row[data-seq="${ANCHOR_SEQ}"]`);
    await row.waitFor();
    await expect.poll(() => row.getAttribute('data-anchored')).toBe('true');
    expect(await page.locator('.conversation-row[data-anchored]').count()).toBe(1);
    const viewport = page.viewportSize()!;
    await expect
      .poll(async () => {
        const box = await row.boundingBox();
        return box !== null && box.y >= 0 && box.y + Math.min(box.height, 50) <= viewport.height;
      })
      .toBe(true);
    // The session is long enough that its top and the message are not both in view: it really scrolled.
    expect(await page.evaluate(() => (globalThis as any).scrollY)).toBeGreaterThan(0);
  });
});

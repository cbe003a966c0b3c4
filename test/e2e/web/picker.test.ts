/**
 * The Compose view's `@` picker and atomic chips in a real Chromium (issue 18): when it opens, the listbox and its
 * highlighted row, ArrowUp/ArrowDown wrapping, Enter and click picks, Escape, Shift+Enter, the abort of stale lookups,
 * IME composition, Backspace/Delete removing a chip whole, typing inside a chip, and copy/cut/paste of a selection
 * with chips. Expected candidates and mentions come from dsh's own results (`expected/candidates.json`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readExpected, REPO_ROOT } from '../../support/fixtures.js';
import { useWebPageFixture } from './web-page-fixture.js';

const TARGET = 'session-96692971-d1af-4d7b-a519-2e3dc0969b7e';

interface CandidateCase {
  readonly target: { readonly id: string };
  readonly query: string;
  readonly result: readonly { readonly sessionId: string; readonly label: string }[];
  readonly mentions: readonly string[];
}

/** dsh's candidates (and canonical mentions) for `query` typed in a message of {@link TARGET}. */
function dshCandidates(query: string): CandidateCase {
  const found = readExpected<CandidateCase[]>('candidates.json').find((c) => c.target.id === TARGET && c.query === query);
  if (found === undefined) throw new Error(`no candidates case for ${query}`);
  return found;
}

const WEBSHOP = dshCandidates('webshop');
const GOLDEN_MENU = readFileSync(join(REPO_ROOT, 'test', 'e2e', 'web', 'golden', 'menu-webshop.txt'), 'utf8');

const web = useWebPageFixture();
let page: Page;

async function openCompose(): Promise<void> {
  ({ page } = await web.open(`#/compose/${encodeURIComponent(TARGET)}`));
  await message().focus();
}

function message() {
  return page.getByRole('textbox', { name: 'Message' });
}

function listbox() {
  return page.getByRole('listbox', { name: 'Reference suggestions' });
}

function options() {
  return listbox().getByRole('option');
}

/** The menu as the golden file spells it: `label · cwd` per row. */
async function menuText(): Promise<string> {
  const rows = await options().evaluateAll((nodes) =>
    nodes.map((node) => `${node.querySelector('.suggestion-label')?.textContent} · ${node.querySelector('.suggestion-cwd')?.textContent}`),
  );
  return rows.map((row) => `${row}\n`).join('');
}

async function activeIndex(): Promise<number> {
  const selected = await options().evaluateAll((nodes) => nodes.map((node) => node.getAttribute('aria-selected')));
  return selected.indexOf('true');
}

/** The chips the mirror paints: shown text and canonical mention. */
async function chips(): Promise<{ text: string; mention: string }[]> {
  return page
    .locator('.editor-mirror .chip-mark')
    .evaluateAll((nodes) => nodes.map((node) => ({ text: node.textContent ?? '', mention: node.getAttribute('data-mention') ?? '' })));
}

/** Waits until the last lookup answered (the listbox is no longer busy) with `rows` rows. */
async function waitForMenu(rows: number): Promise<void> {
  await expect.poll(() => listbox().getAttribute('aria-busy')).toBe('false');
  await expect.poll(() => options().count()).toBe(rows);
}

async function pickWebshop(index: number): Promise<void> {
  await page.keyboard.type('@webshop');
  await waitForMenu(3);
  for (let i = 0; i < index; i += 1) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect.poll(() => listbox().count()).toBe(0);
}

describe('the @ picker', () => {
  it('opens on @ at the start, lists dsh’s candidates in order (golden menu), highlights the first row, keeps focus in the textarea', async () => {
    await openCompose();
    await page.keyboard.type('@webshop');
    await waitForMenu(3);
    expect(await menuText()).toBe(GOLDEN_MENU);
    expect(await options().evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-session-id')))).toEqual(
      WEBSHOP.result.map((r) => r.sessionId),
    );
    expect(await activeIndex()).toBe(0);
    const firstId = await options().first().getAttribute('id');
    await expect.poll(() => message().getAttribute('aria-activedescendant')).toBe(firstId!);
    expect(await page.evaluate('document.activeElement?.id')).toBe('message');
  });

  it('opens after whitespace but not after a letter; the query runs from @ to the caret', async () => {
    await openCompose();
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/sessions/candidates'))
        asked.push((JSON.parse(request.postData() ?? '{}') as { query: string }).query);
    });
    await page.keyboard.type('mail@webshop');
    await page.waitForTimeout(300);
    expect(asked).toEqual([]);
    await expect.poll(() => listbox().count()).toBe(0);
    await page.keyboard.type(' @webs');
    await waitForMenu(3);
    expect(asked.at(-1)).toBe('webs');
    // Caret moved back into the query: the query is what lies between @ and the caret.
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => asked.at(-1)).toBe('web');
  });

  it('ArrowDown and ArrowUp move the highlight and wrap at both ends; aria-activedescendant follows', async () => {
    await openCompose();
    await page.keyboard.type('@webshop');
    await waitForMenu(3);
    await page.keyboard.press('ArrowUp');
    expect(await activeIndex()).toBe(2);
    await page.keyboard.press('ArrowDown');
    expect(await activeIndex()).toBe(0);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await activeIndex()).toBe(2);
    await page.keyboard.press('ArrowDown');
    expect(await activeIndex()).toBe(0);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => message().getAttribute('aria-activedescendant')).toBe((await options().nth(1).getAttribute('id'))!);
    expect(await message().inputValue()).toBe('@webshop');
  });

  it('Enter picks the highlighted row as an atomic chip @<label> backed by the canonical mention', async () => {
    await openCompose();
    await pickWebshop(1);
    expect(await message().inputValue()).toBe(`@${WEBSHOP.result[1]!.label} `);
    expect(await chips()).toEqual([{ text: `@${WEBSHOP.result[1]!.label}`, mention: WEBSHOP.mentions[1] }]);
    expect(await page.evaluate('document.activeElement?.id')).toBe('message');
  });

  it('a click on a row picks it', async () => {
    await openCompose();
    await page.keyboard.type('see @webshop');
    await waitForMenu(3);
    await options().nth(2).click();
    expect(await message().inputValue()).toBe(`see @${WEBSHOP.result[2]!.label} `);
    expect(await chips()).toEqual([{ text: `@${WEBSHOP.result[2]!.label}`, mention: WEBSHOP.mentions[2] }]);
    expect(await page.evaluate('document.activeElement?.id')).toBe('message');
  });

  it('Escape closes the menu and leaves the text; Shift+Enter is a newline, not a pick', async () => {
    await openCompose();
    await page.keyboard.type('@webshop');
    await waitForMenu(3);
    await page.keyboard.press('Escape');
    await expect.poll(() => listbox().count()).toBe(0);
    expect(await message().inputValue()).toBe('@webshop');
    expect(await message().getAttribute('aria-activedescendant')).toBeNull();
    await page.keyboard.press('Space');
    await page.keyboard.type('@webshop');
    await waitForMenu(3);
    await page.keyboard.press('Shift+Enter');
    expect(await message().inputValue()).toBe('@webshop @webshop\n');
    expect(await chips()).toEqual([]);
    await expect.poll(() => listbox().count()).toBe(0);
  });

  it('each keystroke starts a new lookup and aborts the last one; a stale answer never shows', async () => {
    await openCompose();
    const failed: string[] = [];
    page.on('requestfailed', (request) => {
      if (request.url().endsWith('/api/sessions/candidates'))
        failed.push(`${(JSON.parse(request.postData() ?? '{}') as { query: string }).query} ${request.failure()?.errorText}`);
    });
    const asked: string[] = [];
    // The lookups of `@`, `@w` and `@we` are held back, so the later keystrokes overtake them.
    await page.route('**/api/sessions/candidates', async (route) => {
      const query = (JSON.parse(route.request().postData() ?? '{}') as { query: string }).query;
      asked.push(query);
      if (query !== 'webshop') await new Promise((resolve) => setTimeout(resolve, 800));
      try {
        await route.continue();
      } catch {
        // The page aborted this request while it was held back: there is nothing left to continue.
      }
    });
    // Each keystroke waits until its lookup is held (a request aborted before interception would never be seen).
    // Generous bounds: on a loaded machine a lookup can take seconds to reach the route.
    await page.keyboard.type('@');
    await expect.poll(() => asked.length, { timeout: 15_000 }).toBe(1);
    await page.keyboard.type('w');
    await expect.poll(() => asked.length, { timeout: 15_000 }).toBe(2);
    await page.keyboard.type('e');
    await page.keyboard.insertText('bshop');
    await waitForMenu(3);
    expect(asked).toEqual(['', 'w', 'we', 'webshop']);
    await expect.poll(() => failed.sort(), { timeout: 15_000 }).toEqual([' net::ERR_ABORTED', 'w net::ERR_ABORTED', 'we net::ERR_ABORTED']);
    // Long after the held-back lookups would have answered, the menu still shows the last query's rows.
    await page.waitForTimeout(1000);
    expect(await menuText()).toBe(GOLDEN_MENU);
  });

  it('an answer that arrives between ArrowDown and Enter keeps the highlighted session, so Enter picks what was chosen', async () => {
    await openCompose();
    await page.keyboard.type('@websho');
    await waitForMenu(3);
    // The next lookup is held back: the person moves the highlight over the rows still shown, then the answer comes.
    await page.route('**/api/sessions/candidates', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      try {
        await route.continue();
      } catch {
        // Aborted by a later keystroke while held back: nothing to continue.
      }
    });
    await page.keyboard.type('p');
    await page.keyboard.press('ArrowDown');
    expect(await activeIndex()).toBe(1);
    await waitForMenu(3);
    expect(await activeIndex()).toBe(1);
    await page.keyboard.press('Enter');
    expect(await message().inputValue()).toBe(`@${WEBSHOP.result[1]!.label} `);
  });

  it('IME composition passes through: keys while composing never pick, close or move', async () => {
    await openCompose();
    await page.keyboard.type('@webshop');
    await waitForMenu(3);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Input.imeSetComposition', { text: 'か', selectionStart: 1, selectionEnd: 1 });
    // Enter and ArrowDown as an IME delivers them (key code 229) while the composition is open.
    for (const key of ['ArrowDown', 'Enter'])
      await cdp.send('Input.dispatchKeyEvent', {
        type: 'rawKeyDown',
        key,
        code: key,
        windowsVirtualKeyCode: 229,
        nativeVirtualKeyCode: 229,
      });
    expect(await chips()).toEqual([]);
    await cdp.send('Input.insertText', { text: 'か' });
    expect(await message().inputValue()).toBe('@webshopか');
    expect(await chips()).toEqual([]);
    await cdp.detach();
  });
});

describe('atomic chips', () => {
  it('Backspace at a chip’s end removes the whole chip', async () => {
    await openCompose();
    await page.keyboard.type('see ');
    await pickWebshop(0);
    await page.keyboard.press('Backspace'); // the space after the chip
    expect(await chips()).toHaveLength(1);
    await page.keyboard.press('Backspace'); // the chip, whole
    expect(await message().inputValue()).toBe('see ');
    expect(await chips()).toEqual([]);
  });

  it('Delete at a chip’s start removes the whole chip', async () => {
    await openCompose();
    await pickWebshop(2);
    await page.keyboard.type('please');
    await page.keyboard.press('Home');
    await page.keyboard.press('Delete');
    expect(await message().inputValue()).toBe(' please');
    expect(await chips()).toEqual([]);
  });

  it('typing inside a chip turns it into plain text; typing right before or after it keeps it', async () => {
    await openCompose();
    await pickWebshop(2);
    const label = WEBSHOP.result[2]!.label;
    await page.keyboard.press('Home');
    await page.keyboard.type('> ');
    expect(await chips()).toEqual([{ text: `@${label}`, mention: WEBSHOP.mentions[2] }]);
    // Into the chip: after "> @Wri".
    await message().evaluate((node: any) => node.setSelectionRange(6, 6));
    await page.keyboard.type('X');
    expect(await message().inputValue()).toBe(`> @WriX${label.slice(3)} `);
    expect(await chips()).toEqual([]);
  });

  it('copy of a selection with a chip copies the canonical mention; cut removes it; paste brings the chip back', async () => {
    await openCompose();
    await page.keyboard.type('see ');
    await pickWebshop(2);
    await page.keyboard.type('please');
    const expected = `see ${WEBSHOP.mentions[2]} please`;
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('ControlOrMeta+C');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(expected);
    await page.keyboard.press('ControlOrMeta+X');
    expect(await message().inputValue()).toBe('');
    expect(await chips()).toEqual([]);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(expected);
    await page.keyboard.press('ControlOrMeta+V');
    expect(await message().inputValue()).toBe(`see @${WEBSHOP.result[2]!.label} please`);
    expect(await chips()).toEqual([{ text: `@${WEBSHOP.result[2]!.label}`, mention: WEBSHOP.mentions[2] }]);
  });

  it('copy of plain text around a chip stays plain text', async () => {
    await openCompose();
    await page.keyboard.type('see ');
    await pickWebshop(2);
    await message().evaluate((node: any) => node.setSelectionRange(0, 3));
    await page.keyboard.press('ControlOrMeta+C');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('see');
  });
});

describe('the @ picker and chips across spaces (issue 28)', () => {
  it('keeps a multi-word query while it still has matches: the menu is dsh’s for the whole phrase', async () => {
    const phrase = dshCandidates('Notes App (beta)');
    expect(phrase.result.length).toBeGreaterThan(0);
    await openCompose();
    await page.keyboard.type('@Notes App (beta)');
    await expect.poll(() => listbox().getAttribute('aria-busy')).toBe('false');
    await expect
      .poll(() => options().evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-session-id'))))
      .toEqual(phrase.result.map((r) => r.sessionId));
    await page.keyboard.press('Enter');
    await expect.poll(() => listbox().count()).toBe(0);
    expect(await chips()).toEqual([{ text: `@${phrase.result[0]!.label}`, mention: phrase.mentions[0]! }]);
  });

  it('a space typed right after a picked chip is the chip’s own space, not a second one', async () => {
    await openCompose();
    await pickWebshop(0);
    await page.keyboard.type(' and more');
    expect(await message().inputValue()).toBe(`@${WEBSHOP.result[0]!.label} and more`);
    // Only the first space is folded: a second one is typed as it is.
    await page.keyboard.type('  ');
    expect(await message().inputValue()).toBe(`@${WEBSHOP.result[0]!.label} and more  `);
  });
});

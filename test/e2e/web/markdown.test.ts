/**
 * Markdown in the Session view in a real Chromium (issue 28): messages and checkpoints render their Markdown (code
 * blocks in monospace with their language, long code scrolling inside its bubble), and hostile log text — raw
 * `<script>`, event handlers, `javascript:` and data URLs, SVG, images, text that closes the page's tags — renders
 * as text or not at all: nothing executes, no element escapes its bubble, the CSP reports nothing (a console error
 * would fail the test). The texts are the hostile session's own (`hostile-session.ts`), not the renderer's.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HOSTILE_ID, writeHostileSession } from './hostile-session.js';
import { useWebPageFixture } from './web-page-fixture.js';

const web = useWebPageFixture({ prepareRoot: writeHostileSession });

/** Opens the hostile session and waits until both bubbles are rendered. */
async function openHostile(): Promise<Page> {
  const { page } = await web.open(`#/session/${encodeURIComponent(HOSTILE_ID)}`);
  await page.locator('.bubble.user .markdown[data-rendered]').waitFor();
  await page.locator('.bubble.assistant .markdown[data-rendered]').waitFor();
  return page;
}

describe('Markdown in the Session view', () => {
  it('renders an answer’s Markdown: heading, emphasis, inline code, list, a safe link and a fenced block with its language', async () => {
    const page = await openHostile();
    const answer = page.locator('.bubble.assistant .markdown');
    expect(await answer.locator('strong').allTextContents()).toEqual(['bold']);
    expect(await answer.locator('p code').allTextContents()).toEqual(['inline code']);
    expect(await answer.locator('li').allTextContents()).toEqual(['one', 'two']);
    // A message's `#` heading sits below the view's own headings.
    expect(await answer.locator('h3').allTextContents()).toEqual(['A heading']);
    expect(await page.locator('main h1').count()).toBe(1);
    const link = answer.getByRole('link', { name: 'safe link' });
    expect(await link.getAttribute('href')).toBe('https://example.com/docs');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await answer.locator('.code-block .code-language').textContent()).toBe('ts');
    const code = answer.locator('.code-block pre code');
    expect(await code.getAttribute('class')).toBe('language-ts');
    expect(await code.evaluate((node) => (globalThis as any).getComputedStyle(node).fontFamily)).toMatch(/mono/i);
  });

  it('scrolls long code inside its bubble instead of widening it', async () => {
    const page = await openHostile();
    const pre = page.locator('.bubble.assistant .code-block pre');
    const box = await pre.evaluate((node) => ({ scrollWidth: node.scrollWidth, clientWidth: node.clientWidth }));
    expect(box.scrollWidth).toBeGreaterThan(box.clientWidth);
    expect(await pre.evaluate((node) => (globalThis as any).getComputedStyle(node).overflowX)).toBe('auto');
    const bubble = await page.locator('.bubble.assistant').boundingBox();
    const conversation = await page.locator('.conversation').boundingBox();
    expect(bubble!.x + bubble!.width).toBeLessThanOrEqual(conversation!.x + conversation!.width + 0.5);
  });

  it('executes nothing from hostile text and keeps every element inside its bubble', async () => {
    const page = await openHostile();
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
    const conversation = page.locator('.conversation');
    for (const tag of ['script', 'style', 'svg', 'img', 'iframe', 'object', 'embed', 'form', 'input'])
      expect(await conversation.locator(tag).count(), tag).toBe(0);
    const handlers = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('*')].flatMap((node: any) =>
        [...node.attributes].filter((attribute: any) => /^on/i.test(attribute.name)).map((a: any) => `${node.tagName} ${a.name}`),
      ),
    );
    expect(handlers).toEqual([]);
    const hrefs = await conversation.locator('a[href]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('href') ?? ''));
    for (const href of hrefs) expect(href).toMatch(/^(https?:|mailto:|#)/);
    // The text that closes tags stays text in the user's bubble; no heading escaped into the page.
    expect(await page.locator('h1.escaped').count()).toBe(0);
    const user = page.locator('.bubble.user .markdown');
    const text = (await user.textContent()) ?? '';
    for (const literal of ['<script>window.__pwned = "script"</script>', '</main><h1 class="escaped">Escaped heading</h1>', '<svg onload='])
      expect(text).toContain(literal);
    // Links with unsafe schemes are not links: their Markdown stays text.
    expect(text).toContain('[click me](javascript:window.__pwned=%22link%22)');
    expect(text).toContain('[data](data:text/html;base64,');
    // An image never loads: it is a link named by its alt text.
    expect(await user.locator('a.image-link').textContent()).toBe('tracker');
    // The fence's closing tags and script are the code's text.
    expect(await page.locator('.bubble.assistant pre code').textContent()).toContain('</code></pre></figure></div><script>');
    // Every rendered element is inside the bubble it belongs to.
    const outside = await page.evaluate(
      () =>
        [...(globalThis as any).document.querySelectorAll('.markdown *')].filter(
          (node: any) => node.closest('.bubble, .checkpoint') === null,
        ).length,
    );
    expect(outside).toBe(0);
    await page.locator('.bubble.user').click();
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
  });
});

/**
 * The page's size budget (issue 28, docs/WEB.md "Size budget"): the built page in `dist/web/` (what `vite build`
 * wrote; the browser tests need it too) is measured as the browser receives it — the entry script `index.html`
 * loads, every chunk loaded later, and the stylesheet — minified and gzip -9. The Markdown renderer (markdown-it and
 * DOMPurify) must stay out of the entry: only its own chunk, which the Session view loads on first use, holds it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixtures.js';

/** The budgets docs/WEB.md states, in bytes: minified, and gzip -9. */
const BUDGET = {
  entry: { bytes: 72_000, gzip: 25_000 },
  markdown: { bytes: 135_000, gzip: 56_000 },
  /** Any other chunk loaded later. */
  otherChunk: { bytes: 30_000, gzip: 10_000 },
  stylesheet: { bytes: 18_000, gzip: 5_000 },
} as const;

const WEB = join(REPO_ROOT, 'dist', 'web');

function size(file: string): { bytes: number; gzip: number } {
  const text = readFileSync(join(WEB, file));
  return { bytes: statSync(join(WEB, file)).size, gzip: gzipSync(text, { level: 9 }).length };
}

describe('the page’s size budget', () => {
  const html = readFileSync(join(WEB, 'index.html'), 'utf8');
  const entry = /<script type="module"[^>]* src="\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
  const stylesheet = /<link rel="stylesheet"[^>]* href="\/(assets\/[^"]+\.css)"/.exec(html)?.[1];
  const scripts = readdirSync(join(WEB, 'assets'))
    .filter((name) => name.endsWith('.js'))
    .map((name) => `assets/${name}`);

  it('index.html loads one entry script and one stylesheet, both built', () => {
    expect(entry).toBeDefined();
    expect(stylesheet).toBeDefined();
    expect(scripts).toContain(entry);
    expect((html.match(/<script/g) ?? []).length).toBe(1);
  });

  it('the entry script is within its budget and holds no Markdown renderer', () => {
    const measured = size(entry!);
    expect(measured.bytes).toBeLessThanOrEqual(BUDGET.entry.bytes);
    expect(measured.gzip).toBeLessThanOrEqual(BUDGET.entry.gzip);
    const text = readFileSync(join(WEB, entry!), 'utf8');
    // Markers of markdown-it (its entity table's check, its linkify hook) and of DOMPurify.
    for (const marker of ['isValidEntityCode', 'linkify', 'DOMPurify']) expect(text.includes(marker), marker).toBe(false);
  });

  it('the lazily loaded chunks: the Markdown renderer and any other, each within its budget', () => {
    const lazy = scripts.filter((file) => file !== entry);
    const markdown = lazy.filter((file) => file.startsWith('assets/render-markdown-'));
    expect(markdown).toHaveLength(1);
    const chunk = readFileSync(join(WEB, markdown[0]!), 'utf8');
    expect(chunk.includes('isValidEntityCode') && chunk.includes('DOMPurify')).toBe(true);
    const measured = size(markdown[0]!);
    expect(measured.bytes).toBeLessThanOrEqual(BUDGET.markdown.bytes);
    expect(measured.gzip).toBeLessThanOrEqual(BUDGET.markdown.gzip);
    for (const file of lazy.filter((name) => !markdown.includes(name))) {
      const other = size(file);
      expect(other.bytes, file).toBeLessThanOrEqual(BUDGET.otherChunk.bytes);
      expect(other.gzip, file).toBeLessThanOrEqual(BUDGET.otherChunk.gzip);
    }
  });

  it('the stylesheet is within its budget', () => {
    const measured = size(stylesheet!);
    expect(measured.bytes).toBeLessThanOrEqual(BUDGET.stylesheet.bytes);
    expect(measured.gzip).toBeLessThanOrEqual(BUDGET.stylesheet.gzip);
  });
});

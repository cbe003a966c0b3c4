/**
 * The Session view in a real Chromium (issue 18): replay association (a session-reference context attaches to the
 * direct message before it; the seed's Web host), the summary line texts, the collapsed recall row with its bounded
 * JSON, checkpoints as cards and collapsed tools and reasoning. Expected rows are hand-written from the fixture log
 * (`golden/replay-96692971.txt`, see golden/README.md) and counts come from dsh's `expected/surfaces.json`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fixtureSessions, readExpected, REPO_ROOT } from '../../support/fixtures.js';
import { useWebPageFixture } from './web-page-fixture.js';

const WITH_RECALL = 'session-96692971-d1af-4d7b-a519-2e3dc0969b7e';
/** The session the recall cites (its header id in the fixture). */
const CITED = 'session-9d029d81-e515-48ac-b168-fef7011f3491';
const COMPACTED = 'session-547c4005-0b6e-49a0-9497-6be9b6b464cd';
const GOLDEN_REPLAY = readFileSync(join(REPO_ROOT, 'test', 'e2e', 'web', 'golden', 'replay-96692971.txt'), 'utf8');

interface SurfaceCase {
  readonly session: { readonly id: string };
  readonly events: readonly { readonly seq: number; readonly type: string; readonly data: Record<string, any> }[];
}

/** dsh's current surface of a fixture session. */
function dshSurface(id: string): SurfaceCase {
  const found = readExpected<SurfaceCase[]>('surfaces.json').find((s) => s.session.id === id);
  if (found === undefined) throw new Error(`no surface for ${id}`);
  return found;
}

const web = useWebPageFixture();
let page: Page;

/** Waits until every Markdown block of the conversation is rendered (the renderer loads on first use). */
async function rendered(): Promise<void> {
  await page.locator('.markdown').first().waitFor();
  await expect.poll(() => page.locator('.markdown:not([data-rendered])').count()).toBe(0);
}

/** One conversation row as the golden file spells it. */
async function rowText(row: ReturnType<Page['locator']>): Promise<string> {
  return row.evaluate((node) => {
    const kind = node.getAttribute('data-kind');
    const text = (selector: string) => [...node.querySelectorAll(selector)].map((n) => n.textContent ?? '');
    if (kind === 'user') {
      // Markdown puts a newline between blocks (and after the last); it is not shown, so it is not part of the line.
      const lines = [`user: ${text('.bubble-text')[0]?.trim()}`];
      for (const chip of text('.chip')) lines.push(`  chip: ${chip}`);
      for (const line of text('.referenced')) lines.push(`  ${line}`);
      return lines.join('\n');
    }
    if (kind === 'session-recall')
      return [`recall: ${text('summary')[0]}`, ...text('.recall-source').map((line) => `  ${line}`)].join('\n');
    return `${kind}`;
  });
}

describe('the Session view', () => {
  it('attaches the session-reference context to the direct message before it, with the summary lines (golden replay)', async () => {
    ({ page } = await web.open(`#/session/${encodeURIComponent(WITH_RECALL)}`));
    const rows = page.locator('.conversation-row');
    const recalls = page.locator('.conversation-row[data-kind="session-recall"]');
    await expect.poll(() => recalls.count()).toBe(1);
    await rendered();
    const kinds = await rows.evaluateAll((nodes) => nodes.map((n) => `${n.getAttribute('data-kind')}@${n.getAttribute('data-seq')}`));
    const at = kinds.indexOf('session-recall@165');
    expect(at).toBeGreaterThan(0);
    expect(kinds[at - 1]).toBe('user@164');
    const text = `${await rowText(rows.nth(at - 1))}\n${await rowText(rows.nth(at))}\n`;
    expect(text).toBe(GOLDEN_REPLAY);
    // The snapshot JSON never shows as a bubble: it sits in the collapsed recall row only.
    expect(await page.locator('.bubble', { hasText: '<referenced-sessions>' }).count()).toBe(0);
  });

  it('keeps the recall row collapsed; opened, it shows the framed JSON in a bounded, scrollable block', async () => {
    ({ page } = await web.open(`#/session/${encodeURIComponent(WITH_RECALL)}`));
    const recall = page.locator('details.recall');
    await recall.waitFor();
    expect(await recall.evaluate((node: any) => node.open)).toBe(false);
    const json = recall.locator('pre.recall-json');
    expect(await json.isVisible()).toBe(false);
    await recall.locator('summary').click();
    await expect.poll(() => json.isVisible()).toBe(true);
    const text = (await json.textContent()) ?? '';
    expect(text.startsWith('## Referenced sessions\n')).toBe(true);
    expect(text.endsWith('</referenced-sessions>')).toBe(true);
    const box = await json.evaluate((node) => {
      const style = (globalThis as any).getComputedStyle(node);
      return { maxHeight: style.maxHeight, overflowY: style.overflowY, scrolls: node.scrollHeight > node.clientHeight };
    });
    expect(box.maxHeight).not.toBe('none');
    expect(box.overflowY).toBe('auto');
    expect(box.scrolls).toBe(true);
  });

  it('shows checkpoints as cards and keeps tool calls, tool results and reasoning collapsed', async () => {
    ({ page } = await web.open(`#/session/${encodeURIComponent(COMPACTED)}`));
    const surface = dshSurface(COMPACTED);
    const checkpoints = surface.events.filter(
      (e) => e.type === 'user/message' && typeof e.data['source']?.compactionId === 'string',
    ).length;
    const toolResults = surface.events.filter((e) => e.type === 'tool/result').length;
    const reasoning = surface.events.filter(
      (e) => e.type === 'assistant/message' && e.data['message'].content.some((block: { type: string }) => block.type === 'reasoning'),
    ).length;
    await page.locator('.conversation-row').first().waitFor();
    await rendered();
    expect(await page.locator('article.checkpoint').count()).toBe(checkpoints);
    expect(checkpoints).toBeGreaterThan(0);
    expect(await page.locator('details.tool-result').count()).toBe(toolResults);
    expect(await page.locator('details.reasoning').count()).toBe(reasoning);
    const opened = await page.locator('details.tool, details.reasoning').evaluateAll((nodes) => nodes.filter((n: any) => n.open).length);
    expect(opened).toBe(0);
    expect(await page.getByRole('article', { name: 'Compaction checkpoint' }).first().textContent()).toContain(
      'This is an automatically generated checkpoint',
    );
  });

  it('links a cited session’s chip to that session', async () => {
    ({ page } = await web.open(`#/session/${encodeURIComponent(WITH_RECALL)}`));
    await rendered();
    const chip = page.locator('.conversation-row[data-seq="164"] .chip');
    expect(await chip.evaluate((node) => node.tagName)).toBe('A');
    expect(await chip.getAttribute('href')).toBe(`#/session/${encodeURIComponent(CITED)}`);
    await chip.click();
    await expect.poll(() => page.url()).toContain(`#/session/${CITED}`);
    await page.getByRole('heading', { level: 1, name: 'Write unit tests CartService.removeItem' }).waitFor();
  });
});

describe('the whole log (issue 28)', () => {
  /** The compacted session's log as dsh wrote it: its surface events and its replacements. */
  function loggedSurface(): { surfaceSeqs: number[]; replaces: { seq: number; start: number; end: number }[] } {
    const session = fixtureSessions().find((s) => s.id === COMPACTED)!;
    const events = readFileSync(session.rawPath, 'utf8')
      .split('\n')
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { seq: number; surfaceOp?: 'append' | { op: 'replace'; start: number; end: number } });
    const surfaceSeqs = events.filter((e) => e.surfaceOp !== undefined).map((e) => e.seq);
    const replaces = events.flatMap((e) =>
      typeof e.surfaceOp === 'object' ? [{ seq: e.seq, start: e.surfaceOp.start, end: e.surfaceOp.end }] : [],
    );
    return { surfaceSeqs, replaces };
  }

  it('a switch shows every message of the log, each replaced one marked, each compaction with what it replaced', async () => {
    const { surfaceSeqs, replaces } = loggedSurface();
    expect(replaces).toHaveLength(2); // sessions.tsv: 2 compactions
    // What dsh says is on the surface now; every other surface event of the log was replaced.
    const current = new Set(dshSurface(COMPACTED).events.map((e) => e.seq));
    const replaced = new Set(surfaceSeqs.filter((seq) => !current.has(seq)));
    expect(replaced.size).toBeGreaterThan(0);
    ({ page } = await web.open(`#/session/${encodeURIComponent(COMPACTED)}`));
    await rendered();
    const toggle = page.getByRole('button', { name: 'Whole log' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    expect(await page.locator('.conversation-row.replaced').count()).toBe(0);
    const surfaceRows = await page.locator('.conversation-row').count();
    await toggle.click();
    await page.getByRole('list', { name: 'Whole log' }).waitFor();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    const rows = await page
      .locator('.conversation-row')
      .evaluateAll((nodes) => nodes.map((n) => ({ seq: Number(n.getAttribute('data-seq')), by: n.getAttribute('data-replaced-by') })));
    expect(rows.length).toBeGreaterThan(surfaceRows);
    for (const row of rows) expect(row.by !== null, `seq ${row.seq}`).toBe(replaced.has(row.seq));
    // Each marked row names a compaction of the log, written after it (a replace covers surface positions, so a
    // message kept by the first compaction can be replaced by the second).
    for (const row of rows.filter((r) => r.by !== null)) {
      const by = Number(row.by);
      expect(replaces.map((r) => r.seq)).toContain(by);
      expect(by).toBeGreaterThan(row.seq);
    }
    const notes = await page.locator('.replacement-note').allTextContents();
    expect(notes).toHaveLength(2);
    for (const [index, note] of notes.entries()) {
      const replace = replaces[index]!;
      expect(note).toMatch(
        new RegExp(`^Compaction at seq ${replace.seq} replaced \\d+ messages \\(seq ${replace.start}–${replace.end}\\)$`),
      );
    }
    // Off again: the current surface only.
    await toggle.click();
    await page.getByRole('list', { name: 'Conversation' }).waitFor();
    expect(await page.locator('.conversation-row').count()).toBe(surfaceRows);
    expect(await page.locator('.conversation-row.replaced').count()).toBe(0);
  });
});

/**
 * One `@` source for files and sessions in a real Chromium (issue 28, docs/WEB.md "The @ source"): an unquoted token
 * asks both domains, files of the target's cwd first under "File", sessions under "Session"; each domain fails alone;
 * an open `@"…` asks files only; a file pick is an atomic `@path` chip, a directory pick editable `@dir/` text that
 * keeps the menu open one level down; paths with spaces are quoted; the picker opens at the caret. The expected
 * paths are the test's own tree, written out by hand.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { projectDirName } from '../../../src/protocol/storage-paths.js';
import { writeTitledSession } from './reference-session.js';
import { useWebPageFixture } from './web-page-fixture.js';

const PROJECTS = mkdtempSync(join(tmpdir(), 'sessionctx-web-files-'));
const PROJECT = join(PROJECTS, 'shop');
const SECRET = join(PROJECTS, 'secret');
for (const file of [
  'invoice-report.md',
  'src/index.ts',
  'src/invoice.csv.ts',
  'my notes/plan final.md',
  '.git/HEAD',
  'node_modules/x/index.js',
]) {
  mkdirSync(join(PROJECT, file, '..'), { recursive: true });
  writeFileSync(join(PROJECT, file), 'x');
}
mkdirSync(SECRET, { recursive: true });
writeFileSync(join(SECRET, 'invoice-secret.txt'), 'x');
symlinkSync(SECRET, join(PROJECT, 'escape'));

const TARGET = { id: 'session-0000f11e-0000-4000-8000-000000000001', cwd: PROJECT, title: 'Shop maintenance', createdAt: 1772900000000 };
const CITED = { id: 'session-0000f11e-0000-4000-8000-000000000002', cwd: PROJECT, title: 'Invoice CSV export', createdAt: 1772900100000 };
// A session whose cwd is gone: its file domain fails, its sessions are still offered.
const HOMELESS = {
  id: 'session-0000f11e-0000-4000-8000-000000000003',
  cwd: join(PROJECTS, 'deleted-project'),
  title: 'Old work',
  createdAt: 1772900200000,
};

const web = useWebPageFixture({
  prepareRoot(root) {
    for (const session of [TARGET, CITED, HOMELESS]) writeTitledSession(root, session);
  },
});
afterAll(() => rmSync(PROJECTS, { recursive: true, force: true }));

let page: Page;

/** A typed failure as the server would send it (200, so Chromium logs nothing the page watcher would count). */
const FAILED_REPLY = {
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify({ ok: false, error: { code: 'TEST_DOMAIN_DOWN', message: 'held down by the test' } }),
};

async function openCompose(target: string): Promise<void> {
  ({ page } = await web.open(`#/compose/${encodeURIComponent(target)}`));
  await message().focus();
}

const message = () => page.getByRole('textbox', { name: 'Message' });
const listbox = () => page.getByRole('listbox', { name: 'Reference suggestions' });

/** The rows as `file:<path>`, `directory:<path>` or `session:<id>`, in order. */
async function rows(): Promise<string[]> {
  return listbox()
    .getByRole('option')
    .evaluateAll((nodes) =>
      nodes.map((node) => {
        const el = node as unknown as { dataset: Record<string, string | undefined> };
        return el.dataset['path'] === undefined ? `session:${el.dataset['sessionId']}` : `${el.dataset['kind']}:${el.dataset['path']}`;
      }),
    );
}

async function settledRows(): Promise<string[]> {
  await expect.poll(() => listbox().getAttribute('aria-busy')).toBe('false');
  return rows();
}

async function chips(): Promise<{ text: string; mention: string; file: boolean }[]> {
  return page.locator('.editor-mirror .chip-mark').evaluateAll((nodes) =>
    nodes.map((node) => ({
      text: node.textContent ?? '',
      mention: node.getAttribute('data-mention') ?? '',
      file: node.classList.contains('chip-file'),
    })),
  );
}

describe('the @ source: files and sessions', () => {
  it('an unquoted token asks both: files of the target’s cwd first under “File”, then sessions under “Session”', async () => {
    await openCompose(TARGET.id);
    await page.keyboard.type('@invoice');
    await expect.poll(() => settledRows()).toEqual(['file:invoice-report.md', 'file:src/invoice.csv.ts', `session:${CITED.id}`]);
    // The headings group the rows and are not options.
    const groups = listbox().getByRole('group');
    expect(await groups.evaluateAll((nodes) => nodes.map((n) => n.querySelector('.suggestion-heading')?.textContent))).toEqual([
      'File',
      'Session',
    ]);
    expect(await groups.nth(0).getByRole('option').count()).toBe(2);
    expect(await groups.nth(1).getByRole('option').count()).toBe(1);
    // .git, node_modules and the link out of the cwd are never offered.
    await message().fill('');
    await page.keyboard.type('@secret');
    await expect.poll(() => page.locator('.suggestions-status').textContent()).toBe('No file or session matches “secret”.');
  });

  it('a file pick is an atomic @path chip, its own text as the message carries it; a typed space after it is not doubled', async () => {
    await openCompose(TARGET.id);
    await page.keyboard.type('see @invoice');
    await expect.poll(() => settledRows()).toContain('file:invoice-report.md');
    await page.keyboard.press('Enter');
    await expect.poll(() => listbox().count()).toBe(0);
    await page.keyboard.type(' now');
    expect(await message().inputValue()).toBe('see @invoice-report.md now');
    expect(await chips()).toEqual([{ text: '@invoice-report.md', mention: '@invoice-report.md', file: true }]);
    // Backspace at its end removes it whole.
    await message().evaluate((node: any) => node.setSelectionRange(22, 22));
    await page.keyboard.press('Backspace');
    expect(await message().inputValue()).toBe('see  now');
  });

  it('a directory pick stays editable text ending in / and keeps the menu open one level down', async () => {
    await openCompose(TARGET.id);
    await page.keyboard.type('@sr');
    // Files first (the sessions matching "sr" follow them).
    await expect
      .poll(async () => (await settledRows()).slice(0, 3))
      .toEqual(['directory:src', 'file:src/index.ts', 'file:src/invoice.csv.ts']);
    await page.keyboard.press('Enter');
    expect(await message().inputValue()).toBe('@src/');
    expect(await chips()).toEqual([]);
    await expect.poll(() => settledRows()).toEqual(['file:src/index.ts', 'file:src/invoice.csv.ts']);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    expect(await message().inputValue()).toBe('@src/invoice.csv.ts ');
    expect(await chips()).toEqual([{ text: '@src/invoice.csv.ts', mention: '@src/invoice.csv.ts', file: true }]);
  });

  it('an open @"… asks files only; paths with whitespace are quoted, a quoted directory keeps its quote open', async () => {
    await openCompose(TARGET.id);
    const asked: string[] = [];
    page.on('request', (request) => {
      const method = /\/api\/(files|sessions)\/candidates$/.exec(request.url())?.[1];
      if (method !== undefined) asked.push(`${method}:${(JSON.parse(request.postData() ?? '{}') as { query: string }).query}`);
    });
    await page.keyboard.type('@"my n');
    // The folder by its name, its file by its path.
    await expect.poll(() => settledRows()).toEqual(['directory:my notes', 'file:my notes/plan final.md']);
    // Only the bare `@`, before the quote was typed, asked sessions.
    expect(asked.filter((entry) => entry.startsWith('sessions:'))).toEqual(['sessions:']);
    await page.keyboard.press('Enter');
    expect(await message().inputValue()).toBe('@"my notes/');
    await expect.poll(() => settledRows()).toEqual(['file:my notes/plan final.md']);
    await page.keyboard.press('Enter');
    expect(await message().inputValue()).toBe('@"my notes/plan final.md" ');
    expect(await chips()).toEqual([{ text: '@"my notes/plan final.md"', mention: '@"my notes/plan final.md"', file: true }]);
    // Unquoted, a path with a space is quoted when picked.
    await page.keyboard.type('and @plan');
    await expect.poll(async () => (await settledRows())[0]).toBe('file:my notes/plan final.md');
    await page.keyboard.press('Enter');
    expect(await message().inputValue()).toBe('@"my notes/plan final.md" and @"my notes/plan final.md" ');
  });

  it('a two-word query goes on matching its session across the space; the space ends the file domain', async () => {
    await openCompose(TARGET.id);
    const asked: string[] = [];
    page.on('request', (request) => {
      const method = /\/api\/(files|sessions)\/candidates$/.exec(request.url())?.[1];
      if (method !== undefined) asked.push(`${method}:${(JSON.parse(request.postData() ?? '{}') as { query: string }).query}`);
    });
    await page.keyboard.type('@invoice');
    await expect.poll(() => settledRows()).toEqual(['file:invoice-report.md', 'file:src/invoice.csv.ts', `session:${CITED.id}`]);
    await page.keyboard.type(' csv');
    await expect.poll(() => settledRows()).toEqual([`session:${CITED.id}`]);
    expect(asked).toContain('sessions:invoice csv');
    expect(asked.filter((entry) => entry.startsWith('files:') && entry.includes(' '))).toEqual([]);
    await page.keyboard.press('Enter');
    expect(await chips()).toEqual([
      { text: `@${CITED.title}`, mention: expect.stringMatching(/^@\[Invoice CSV export\]\(dsh-session:/), file: false },
    ]);
  });

  it('each domain degrades alone: a cwd that is gone, a failed file call, a failed session call', async () => {
    await openCompose(HOMELESS.id);
    await page.keyboard.type('@invoice');
    await expect.poll(() => settledRows()).toEqual([`session:${CITED.id}`]);
    // A cwd that is not on this machine is no failure to report: there are just no files.
    expect(await page.locator('.suggestions-note').count()).toBe(0);
    const reply = await page.evaluate(
      async (body) =>
        (await (
          await fetch('/api/files/candidates', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        ).json()) as {
          value: { unavailable?: { code: string } };
        },
      JSON.stringify({ target: HOMELESS.id, query: 'invoice' }),
    );
    expect(reply.value.unavailable?.code).toBe('FILE_INDEX_CWD_MISSING');
    await page.close();

    await openCompose(TARGET.id);
    await page.route('**/api/sessions/candidates', (route) => route.fulfill(FAILED_REPLY));
    await page.keyboard.type('@invoice');
    await expect.poll(() => settledRows()).toEqual(['file:invoice-report.md', 'file:src/invoice.csv.ts']);
    await expect
      .poll(() => page.locator('.suggestions-note[data-domain="session"]').textContent())
      .toBe('Session lookup failed: held down by the test');
    await page.unroute('**/api/sessions/candidates');
    await page.route('**/api/files/candidates', (route) => route.fulfill(FAILED_REPLY));
    await page.keyboard.type('-');
    await page.keyboard.press('Backspace');
    await expect.poll(() => settledRows()).toEqual([`session:${CITED.id}`]);
    await expect
      .poll(() => page.locator('.suggestions-note[data-domain="file"]').textContent())
      .toBe('Files unavailable: held down by the test');
  });

  it('the picker opens at the caret: under the @ being typed, not at the box’s corner', async () => {
    await openCompose(TARGET.id);
    await page.keyboard.type('first line\nsome words before @inv');
    await expect.poll(() => settledRows()).toContain('file:invoice-report.md');
    const anchor = await page.locator('.picker-anchor').boundingBox();
    const picker = await page.locator('.picker').boundingBox();
    const box = await message().boundingBox();
    expect(anchor).not.toBeNull();
    // Below the @'s line, within a line of it, and starting at the @ (the box is wide enough not to clamp here).
    expect(picker!.y).toBeGreaterThan(anchor!.y);
    expect(picker!.y - anchor!.y).toBeLessThan(40);
    expect(Math.abs(picker!.x - anchor!.x)).toBeLessThan(2);
    expect(picker!.x - box!.x).toBeGreaterThan(50);
    expect(picker!.y).toBeLessThan(box!.y + box!.height);
  });
});

describe('files/candidates on the server', () => {
  it('never lists outside the cwd: .., absolute paths and links give nothing; no target gives no cwd', async () => {
    ({ page } = await web.open('#/'));
    const ask = (args: object) =>
      page.evaluate(async (body) => {
        const response = await fetch('/api/files/candidates', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        return (await response.json()) as { ok: boolean; value: { files: { path: string }[]; cwd?: string } };
      }, JSON.stringify(args));
    for (const query of ['../', '../secret/', 'src/../../secret/', '/', '/etc/', 'escape/', 'invoice-secret']) {
      const reply = await ask({ target: TARGET.id, query });
      expect(reply.ok, query).toBe(true);
      expect(reply.value.files, query).toEqual([]);
    }
    expect((await ask({ target: TARGET.id, query: 'src/' })).value).toEqual({
      cwd: PROJECT,
      files: [
        { path: 'src/index.ts', kind: 'file' },
        { path: 'src/invoice.csv.ts', kind: 'file' },
      ],
      truncated: false,
    });
    expect((await ask({ query: 'src' })).value).toEqual({ files: [], truncated: false });
  });

  it("sees a file the session's tools wrote once the session's log grew; until then the index is reused", async () => {
    ({ page } = await web.open('#/'));
    const ask = (query: string) =>
      page.evaluate(
        async (body) => {
          const response = await fetch('/api/files/candidates', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          return ((await response.json()) as { value: { files: { path: string }[] } }).value.files.map((file) => file.path);
        },
        JSON.stringify({ target: TARGET.id, query }),
      );
    const log = join(web.fixture.root, projectDirName(TARGET.cwd), TARGET.id, 'session.jsonl');
    const grow = (seq: number): void =>
      appendFileSync(
        log,
        `${JSON.stringify({ type: 'session/title', seq, time: TARGET.createdAt + seq + 1, data: { title: `Shop maintenance ${seq}`, messageSeqs: [0], source: { kind: 'fallback' } } })}\n`,
      );
    // A fresh index first (the log grew), so the next answers are within one TTL of it.
    grow(2);
    await expect.poll(() => ask('ledger')).toEqual([]);
    writeFileSync(join(PROJECT, 'ledger.csv'), 'x');
    // The log did not change: the index built a moment ago still answers.
    expect(await ask('ledger')).toEqual([]);
    // The session's tools ran (its log grew by an event): the next bare query walks the cwd again.
    grow(3);
    await expect.poll(() => ask('ledger')).toEqual(['ledger.csv']);
  });
});

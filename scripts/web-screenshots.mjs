// Takes the README's screenshots of the Web UI (docs/screenshots/*.png): the real server of the built package over a
// temporary copy of the dsh-small fixture sessions plus the s2-compress DCP scenario, in Debian's Chromium.
// Run after a build: `npm run build && node scripts/web-screenshots.mjs`.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const { createEngine } = await import(join(repo, 'dist/src/main/engine/assembly/create-engine.js'));
const { startWebServer } = await import(join(repo, 'dist/src/main/faces/web/web-server.js'));
const { launchChromium } = await import(join(repo, 'dist/test/support/chromium.js'));
const { writeTitledSession } = await import(join(repo, 'dist/test/e2e/web/reference-session.js'));

const out = join(repo, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const root = mkdtempSync(join(tmpdir(), 'sessionctx-shots-'));
cpSync(join(repo, 'test/fixtures/dsh-small/raw'), root, { recursive: true });
execFileSync(process.execPath, [
  join(repo, 'dist/src/main/faces/cli/bin.js'),
  'script',
  'run',
  join(repo, 'test/fixtures/dcp-dsh/s2-compress.scenario.json'),
  '--root',
  root,
  '--json',
]);

// A session whose cwd is a small project on this machine, so the @ picker offers its files beside the sessions.
const project = mkdtempSync(join(tmpdir(), 'sessionctx-shots-webshop-'));
for (const file of ['webshop-notes.md', 'src/webshop/cart.ts', 'src/webshop/checkout.ts', 'README.md']) {
  mkdirSync(join(project, file, '..'), { recursive: true });
  writeFileSync(join(project, file), '');
}
const WRITER = 'session-00005407-0000-4000-8000-000000000001';
writeTitledSession(root, { id: WRITER, cwd: project, title: 'Webshop checkout rework', createdAt: 1773200000000 });

const TARGET = 'session-96692971-d1af-4d7b-a519-2e3dc0969b7e';
const COMPACTED = 'session-547c4005-0b6e-49a0-9497-6be9b6b464cd';
const LONG = 'session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca';
const engine = await createEngine({ root, workers: false, sourceCache: false });
const server = await startWebServer({ engine });
const browser = await launchChromium({ viewport: { width: 1100, height: 760 } });
try {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(server.url);
  await page.locator('.project-line').first().waitFor();
  await page.screenshot({ path: join(out, 'sessions.png') });
  // The same list on a phone-sized window (issue 28 item 5): one line per title, ellipsized.
  const narrow = await browser.context.newPage();
  await narrow.setViewportSize({ width: 390, height: 760 });
  await narrow.goto(`${server.origin}/#/`);
  await narrow.locator('.session-row').first().waitFor();
  await narrow.screenshot({ path: join(out, 'sessions-390.png') });
  await narrow.close();

  await page.goto(`${server.origin}/#/session/${TARGET}`);
  const recall = page.locator('details.recall');
  await recall.waitFor();
  await recall.locator('summary').click();
  await page.locator('.conversation-row[data-seq="164"]').scrollIntoViewIfNeeded();
  await page.evaluate('window.scrollBy(0, -80)');
  await page.screenshot({ path: join(out, 'session-recall.png') });

  await page.goto(`${server.origin}/#/session/${COMPACTED}`);
  await page.getByRole('button', { name: 'Whole log' }).click();
  await page.locator('.replacement-note').first().waitFor();
  await page.locator('.replacement-note').nth(1).scrollIntoViewIfNeeded();
  await page.evaluate('window.scrollBy(0, -200)');
  await page.screenshot({ path: join(out, 'session-whole-log.png') });

  await page.goto(`${server.origin}/#/compose/${WRITER}`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.focus();
  await page.keyboard.type('Read @src/webshop/cart');
  await page.locator('[role=listbox][aria-busy="false"] [role=option]').first().waitFor();
  await page.keyboard.press('Enter');
  await page.keyboard.type('and compare it with @webshop');
  await page.locator('[role=listbox][aria-busy="false"] [data-session-id]').nth(1).waitFor();
  await page.keyboard.press('ArrowDown');
  await page.screenshot({ path: join(out, 'compose-picker.png') });

  await page.goto(`${server.origin}/#/compose/${TARGET}`);
  await box.focus();
  await page.keyboard.type('Compare this with @removeItem');
  await page.locator('[role=listbox][aria-busy="false"] [role=option]').first().waitFor();
  await page.keyboard.press('Enter');
  await page.keyboard.type('and @webshop');
  await page.locator('[role=listbox][aria-busy="false"] [role=option]').nth(1).waitFor();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.keyboard.type('— what did we decide?');
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('region', { name: 'What the model receives' }).waitFor();
  await page.getByRole('region', { name: 'What the model receives' }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, 'preview.png'), fullPage: true });

  await page.goto(`${server.origin}/#/context/${LONG}`);
  await page.locator('svg.chart, .context-view .hint').first().waitFor();
  await page.screenshot({ path: join(out, 'context.png'), fullPage: true });

  await page.goto(`${server.origin}/#/context/s2-compress`);
  await page.locator('table.blocks').waitFor();
  await page.screenshot({ path: join(out, 'context-dcp.png'), fullPage: true });

  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(out, 'context-dcp-dark.png'), fullPage: true });
  console.log(`screenshots written to ${out}`);
} finally {
  await browser.close();
  await server.close();
  await engine.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
}

/**
 * The Context view in a real Chromium (issue 18): the chart of a session's estimated context with one marked element
 * per drop, the DCP block table and the `/dcp stats` text. Expected drops are counted from logs written by dsh:
 * native compactions in a dsh-small session's own log, DCP compress blocks and prunes in the dcp-dsh fixture log of
 * the scenario that `sessionctx script run` replays into the root (`<name>.dsh.json`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runBuiltCli } from '../../support/cli-process.js';
import { DCP_DSH, fixtureSessions } from '../../support/fixtures.js';
import { useWebPageFixture } from './web-page-fixture.js';

interface LoggedEvent {
  readonly type: string;
  readonly data?: { readonly compactionId?: string };
}

/** Drops by kind in a dsh-written log: compaction brackets (DCP's ids start `dcp-`) and prunes. */
function dropsInLog(events: readonly LoggedEvent[]): Record<'compaction' | 'dcp-compress' | 'dcp-prune', number> {
  const starts = events.filter((e) => e.type === 'compaction/start');
  return {
    compaction: starts.filter((e) => !(e.data?.compactionId ?? '').startsWith('dcp-')).length,
    'dcp-compress': starts.filter((e) => (e.data?.compactionId ?? '').startsWith('dcp-')).length,
    'dcp-prune': events.filter((e) => e.type === 'compaction/prune').length,
  };
}

function dshSmallLog(id: string): LoggedEvent[] {
  const session = fixtureSessions().find((s) => s.id === id);
  if (session === undefined) throw new Error(`no fixture session ${id}`);
  return readFileSync(session.rawPath, 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LoggedEvent);
}

function dcpDshLog(name: string): { events: LoggedEvent[]; commands: unknown } {
  return JSON.parse(readFileSync(join(DCP_DSH, `${name}.dsh.json`), 'utf8')) as { events: LoggedEvent[]; commands: unknown };
}

const web = useWebPageFixture({ dcpSessions: true });
let page: Page;

async function openContext(sessionId: string): Promise<void> {
  ({ page } = await web.open(`#/context/${encodeURIComponent(sessionId)}`));
  await page.locator('svg.chart, .context-view .hint').first().waitFor();
}

async function chartDrops(): Promise<Record<string, number>> {
  const kinds = await page.locator('svg.chart [data-drop-kind]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-drop-kind')));
  const out: Record<string, number> = { compaction: 0, 'dcp-compress': 0, 'dcp-prune': 0 };
  for (const kind of kinds) out[kind ?? ''] = (out[kind ?? ''] ?? 0) + 1;
  return out;
}

describe('the Context view', () => {
  it('marks each native compaction of a compacted dsh session as a drop on the chart', async () => {
    const id = 'session-547c4005-0b6e-49a0-9497-6be9b6b464cd';
    const expected = dropsInLog(dshSmallLog(id));
    expect(expected.compaction).toBe(2); // sessions.tsv: 2 compactions
    await openContext(id);
    expect(await chartDrops()).toEqual(expected);
    const names = await page.locator('svg.chart [data-drop-kind] title').allTextContents();
    expect(names.every((name) => /^native compaction at seq \d+: \d+ → \d+ tokens$/.test(name))).toBe(true);
    expect(await page.locator('.context-view .hint', { hasText: 'No DCP blocks in this session.' }).count()).toBe(1);
  });

  it('marks the DCP compress block and the prune of the s2-compress scenario, lists block b1 and prints /dcp stats', async () => {
    const log = dcpDshLog('s2-compress');
    const expected = dropsInLog(log.events);
    expect(expected['dcp-compress']).toBe(1);
    await openContext('s2-compress');
    expect(await chartDrops()).toEqual(expected);
    const rows = await page
      .locator('table.blocks tbody tr')
      .evaluateAll((nodes) => nodes.map((n) => [...n.querySelectorAll('td')].map((td) => td.textContent)));
    // The scenario's one compress call: topic "early cache discussion", active at the end of the conversation.
    expect(rows.map((r) => [r[0], r[1], r[4]])).toEqual([['b1', 'early cache discussion', 'active']]);
    // The /dcp stats text exactly as the built CLI prints it for the same stored session (DCP.md §18 item 18's header).
    const cli = await runBuiltCli(['dcp', 'stats', '--session', 's2-compress', '--root', web.fixture.root]);
    expect(cli.code).toBe(0);
    const stats = (await page.locator('pre.stats').textContent()) ?? '';
    expect(stats.startsWith('DCP statistics (heuristic token estimates):\n')).toBe(true);
    expect(`${stats}\n`).toBe(cli.stdout);
  });

  it('marks the deduplication prune of the s4-dedup scenario', async () => {
    const expected = dropsInLog(dcpDshLog('s4-dedup').events);
    expect(expected['dcp-prune']).toBe(1);
    await openContext('s4-dedup');
    expect(await chartDrops()).toEqual(expected);
  });

  it('draws the estimated context as one series with an accessible title', async () => {
    await openContext('s2-compress');
    expect(await page.getByRole('img', { name: /Estimated context tokens over the log/ }).count()).toBe(1);
    expect(await page.locator('svg.chart path.series').getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+( H[\d.]+ V[\d.]+)+$/);
  });

  it('switches the x-axis between seq and turn with an accessible radio group', async () => {
    const id = 'session-547c4005-0b6e-49a0-9497-6be9b6b464cd';
    const log = dshSmallLog(id) as unknown as ReadonlyArray<
      LoggedEvent & { readonly seq: number; readonly data?: { readonly turn?: number } }
    >;
    const maxTurn = Math.max(...log.filter((e) => e.type === 'turn/start').map((e) => e.data?.turn ?? 0));
    const lastSeq = log[log.length - 1]!.seq;
    expect(lastSeq).toBeGreaterThan(maxTurn * 2);
    await openContext(id);
    const xTicks = async (): Promise<number[]> => (await page.locator('svg.chart text.tick-x').allTextContents()).map(Number);
    const bySeq = page.getByRole('radio', { name: 'By seq' });
    const byTurn = page.getByRole('radio', { name: 'By turn' });
    expect(await page.getByRole('radiogroup', { name: 'X axis' }).count()).toBe(1);
    expect(await bySeq.isChecked()).toBe(true);
    expect(await page.locator('svg.chart .axis-label-x').textContent()).toBe('seq');
    expect(await page.getByRole('img', { name: /over the log, by seq/ }).count()).toBe(1);
    const seqTicks = await xTicks();
    // Seq ticks reach towards the log's last seq; turn ticks stop near its last turn.
    expect(Math.max(...seqTicks)).toBeGreaterThan(maxTurn * 2);
    const dropX = await page.locator('svg.chart [data-drop-kind] circle').first().getAttribute('cx');
    await byTurn.check();
    expect(await byTurn.isChecked()).toBe(true);
    expect(await bySeq.isChecked()).toBe(false);
    expect(await page.locator('svg.chart .axis-label-x').textContent()).toBe('turn');
    expect(await page.getByRole('img', { name: /over the log, by turn/ }).count()).toBe(1);
    const turnTicks = await xTicks();
    expect(Math.max(...turnTicks)).toBeLessThanOrEqual(maxTurn * 1.5);
    expect(Math.max(...turnTicks)).toBeGreaterThanOrEqual(maxTurn / 2);
    expect(await page.locator('svg.chart [data-drop-kind] circle').first().getAttribute('cx')).not.toBe(dropX);
    // Every drop is still marked, and switching back restores the seq axis.
    expect((await chartDrops()).compaction).toBe(2);
    await bySeq.check();
    expect(await page.locator('svg.chart .axis-label-x').textContent()).toBe('seq');
    expect(await xTicks()).toEqual(seqTicks);
  });
});

/** The `stats` figures of `sessionctx dcp stats --json` (the CLI's own output, not the page's). */
interface CliStats {
  readonly session: {
    readonly ledger: Record<string, number>;
    readonly activeBlockCount: number;
    readonly invalidationCounts: { dcp: number; native: number; mixed: number };
    readonly recentInvalidations: readonly { firstSeq: number; position: number; reReadTokens: number; cause: string }[];
    readonly surfaceTokens: number;
    readonly historyReduction: number;
  };
  readonly domain: { readonly status: string; readonly reason?: string };
}

describe('the Context view as a product (issue 28)', () => {
  it('is titled by the session’s title, not its id', async () => {
    const id = 'session-547c4005-0b6e-49a0-9497-6be9b6b464cd';
    const listed = await runBuiltCli(['sessions', '--root', web.fixture.root, '--json']);
    const title = (JSON.parse(listed.stdout) as { sessions: { header: { id: string }; title?: { title: string } }[] }).sessions.find(
      (s) => s.header.id === id,
    )?.title?.title;
    expect(title).toBeTruthy();
    await openContext(id);
    expect(await page.locator('#context-heading').textContent()).toBe(title);
  });

  it('shows /dcp stats as a table of labelled figures, the numbers of dcp stats --json', async () => {
    const cli = await runBuiltCli(['dcp', 'stats', '--session', 's2-compress', '--root', web.fixture.root, '--json']);
    const { session, domain } = (JSON.parse(cli.stdout) as { stats: CliStats }).stats;
    expect(domain).toMatchObject({ status: 'unavailable', reason: 'storage not wired' });
    const tokens = (n: number): string => `~${n.toLocaleString('en-US')} tokens`;
    const { ledger, invalidationCounts: inv } = session;
    const expected: Record<string, string> = {
      blocks: `${ledger['blockCount']} / ${session.activeBlockCount}`,
      surfaceTokens: tokens(session.surfaceTokens),
      historyReduction: tokens(session.historyReduction),
      shadowedTokens: tokens(ledger['shadowedTokens']!),
      checkpointTokens: tokens(ledger['checkpointTokens']!),
      pruneTokens: tokens(ledger['pruneTokens']!),
      cleanupTokens: tokens(ledger['cleanupTokens']!),
      expansionTokens: tokens(ledger['expansionTokens']!),
      markerTokens: tokens(ledger['markerTokens']!),
      pruneReplacements: String(ledger['pruneReplacements']),
      inlineCleanups: String(ledger['inlineCleanups']),
      invalidations: `${inv.dcp + inv.native + inv.mixed} (DCP ${inv.dcp}, native ${inv.native}, mixed ${inv.mixed})`,
      recentInvalidations: session.recentInvalidations
        .map((r) => `seq ${r.firstSeq} at position ${r.position}: ${tokens(r.reReadTokens)} re-read (${r.cause})`)
        .join('; '),
      domain: 'not kept here: this server reads stored logs and has no DCP plugin storage',
    };
    await openContext('s2-compress');
    const shown = await page
      .locator('table.stats-table tr')
      .evaluateAll((nodes) => Object.fromEntries(nodes.map((n) => [n.getAttribute('data-figure'), n.querySelector('td')?.textContent])));
    expect(shown).toEqual(expected);
    // Every row is labelled; the raw text is behind a closed disclosure.
    expect(await page.locator('table.stats-table th[scope="row"]').count()).toBe(Object.keys(expected).length);
    expect(await page.locator('pre.stats').isVisible()).toBe(false);
  });

  it('each chart marker is a link that opens its message, scrolled to and highlighted', async () => {
    const id = 'session-547c4005-0b6e-49a0-9497-6be9b6b464cd';
    await openContext(id);
    const marker = page.locator('svg.chart a.drop-link').nth(1);
    const seq = Number(await marker.locator('[data-drop-kind]').getAttribute('data-seq'));
    expect(await marker.getAttribute('aria-label')).toMatch(/^native compaction at seq \d+: \d+ → \d+ tokens; show the message$/);
    await marker.click();
    await expect.poll(() => page.evaluate('location.hash')).toBe(`#/session/${id}/message/${seq}`);
    const anchored = page.locator('.conversation-row[data-anchored="true"]');
    await anchored.waitFor();
    expect(Number(await anchored.getAttribute('data-seq'))).toBeGreaterThanOrEqual(seq);
    await expect.poll(() => anchored.isVisible()).toBe(true);
  });

  it('follows prefers-color-scheme: a dark page in a dark system, a light one in a light system', async () => {
    await openContext('s2-compress');
    // Evaluated in the page (a string: the tests compile without the DOM library).
    const colours = () =>
      page.evaluate(`(() => {
        const style = getComputedStyle(document.documentElement);
        const table = document.querySelector('table.stats-table');
        return { bg: style.backgroundColor, fg: style.color, table: table === null ? '' : getComputedStyle(table).backgroundColor };
      })()`);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await colours()).toEqual({ bg: 'rgb(247, 247, 249)', fg: 'rgb(29, 31, 36)', table: 'rgb(255, 255, 255)' });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await colours()).toEqual({ bg: 'rgb(21, 23, 28)', fg: 'rgb(230, 232, 238)', table: 'rgb(30, 33, 40)' });
  });
});

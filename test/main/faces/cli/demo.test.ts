/**
 * `sessionctx demo` (what `npm start` runs) on the built CLI: it writes a real corpus in dsh's
 * format, walks through every capability, and the corpus it names can be explored afterwards.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../support/fixtures.js';

import { cliInvocation } from '../../../../src/main/faces/cli/invocation.js';
const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

describe('sessionctx demo', () => {
  it('walks through discovery, mentions, a snapshot, a budget cut, typed errors and DCP, and names its corpus', async () => {
    // With --root the corpus is kept, so the commands the walkthrough suggests can be tried on it.
    const dir = mkdtempSync(join(tmpdir(), 'sessionctx-demo-walk-'));
    const { stdout } = await run(process.execPath, [BIN, 'demo', '--root', join(dir, 'sessions')]);
    for (const section of [
      '1. Discovery',
      '2. Mentions',
      '3. A prepared snapshot',
      '4. A budget',
      '5. Typed errors',
      '6. DCP',
      'Keep exploring',
    ]) {
      expect(stdout).toContain(section);
    }
    expect(stdout).toContain('<referenced-sessions>');
    expect(stdout).toMatch(/\[… omitted \d+ UTF-8 bytes …\]/u);
    for (const code of [
      'SESSION_REFERENCE_READ_FAILED',
      'SESSION_REFERENCE_INVALID_REFERENCE',
      'SESSION_REFERENCE_TOO_MANY',
      'SESSION_REFERENCE_BUDGET_EXCEEDED',
    ]) {
      expect(stdout).toContain(code);
    }
    // The DCP session: a marker, the committed range, and the stats lines of a dedup prune and an inline cleanup.
    expect(stdout).toMatch(/e\.g\. <dcp-boundary ref="m\d{4}" turn="\d+" step="\d+" \/>/u);
    expect(stdout).toMatch(/ {2}1\. m0001\.\.m0005: committed as b1 \(\d+ message\(s\), ~\d+ tokens saved\)/u);
    expect(stdout).toContain('  │ [Compressed conversation section]');
    expect(stdout).toContain('  blocks (hist/act): 1/1');
    expect(stdout).toContain('  prune replacements: 1');
    expect(stdout).toContain('  inline cleanups: 1');
    const root = /written in DeepSeek Harness's own format \(zstd\) to:\n {2}(\S+)\n/u.exec(stdout)?.[1];
    expect(root).toBe(join(dir, 'sessions'));
    // Suggested as it runs from here (`node dist/src/main/faces/cli/bin.js …` in a checkout; demo-suggestions.test.ts runs them).
    expect(stdout).toContain(
      `${cliInvocation(BIN, process.cwd())} dcp show b1 --raw --session session-demo-dcp-cart-totals --root ${root as string}\n`,
    );
    try {
      const listed = await run(process.execPath, [BIN, 'sessions', '--root', root as string, '--json']);
      const rows = (JSON.parse(listed.stdout) as { sessions: Array<{ header: { id: string }; title: { title: string } | null }> }).sessions;
      expect(rows).toHaveLength(6);
      // The five hand-written sessions carry titles; the scripted DCP session has none.
      expect(rows.filter((row) => row.title === null).map((row) => row.header.id)).toEqual(['session-demo-dcp-cart-totals']);
      const shown = await run(process.execPath, [BIN, 'show', 'session-demo-discount-codes', '--root', root as string, '--json']);
      const surface = JSON.parse(shown.stdout) as { events: Array<{ data: { source?: { plugin?: string } } }> };
      expect(surface.events[0]?.data.source?.plugin).toBe('compact');
      // The command the walkthrough suggests works on the corpus it wrote.
      const shownBlock = await run(process.execPath, [
        BIN,
        'dcp',
        'show',
        'b1',
        '--raw',
        '--session',
        'session-demo-dcp-cart-totals',
        '--root',
        root as string,
      ]);
      expect(shownBlock.stdout).toMatch(/^Block b1:\n/u);
      expect(shownBlock.stdout).toMatch(/Original leaf nodes \(\d+\):/u);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--root writes the corpus where asked and --json names its sessions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sessionctx-demo-test-'));
    try {
      const root = join(dir, 'sessions');
      const { stdout } = await run(process.execPath, [BIN, 'demo', '--root', root, '--json']);
      const summary = JSON.parse(stdout) as { root: string; sessions: string[] };
      expect(summary.root).toBe(root);
      expect(summary.sessions).toHaveLength(5);
      // A second demo into the same root refuses to write into it at all.
      const again = await run(process.execPath, [BIN, 'demo', '--root', root, '--json']).catch(
        (error: { code: number; stdout: string }) => error,
      );
      expect((again as { code: number }).code).toBe(1);
      expect(JSON.parse((again as { stdout: string }).stdout).error.code).toBe('DEMO_ROOT_NOT_EMPTY');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// `sessionctx search` (issue 17 item 4) as a child process over a copy of the dsh fixture: the human output (row,
// mention to paste, hits with the match marked), `--json` as the engine's page, the flags' usage errors (exit 2),
// a typed search failure (exit 1 with its code), and the time flag's forms.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTimeOption } from '../../../src/main/cli/commands/search-command.js';
import type { SearchPage } from '../../../src/protocol/search-types.js';
import { formatSessionReferenceMention } from '../../../src/protocol/uri/mention-formatter.js';
import { runBuiltCli } from '../../support/cli-process.js';
import { RAW_ROOT } from '../../support/fixtures.js';

let dir: string;
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-search-cli-'));
  root = join(dir, 'root');
  cpSync(RAW_ROOT, root, { recursive: true });
  env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' };
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

describe('sessionctx search', () => {
  it('prints each session with its mention and its hits, the match marked', async () => {
    const outcome = await runBuiltCli(['search', 'file watcher', '--root', root], { env });
    expect(outcome.code).toBe(0);
    const lines = outcome.stdout.split('\n');
    expect(lines[0]).toContain('File watcher misses renames macOS');
    expect(lines[1]).toMatch(/^ {2}@\[File watcher misses renames macOS\]\(dsh-session:[A-Za-z0-9_-]+\)$/);
    expect(lines[2]).toMatch(/^ {4}#\d+ (user|assistant|checkpoint): .*«file watcher»/i);
  });

  it('--json prints the page: each result carries its canonical mention; --limit and --cursor page through', async () => {
    const first = await runBuiltCli(['search', 'the', '--root', root, '--json', '--limit', '1'], { env });
    expect(first.code).toBe(0);
    const page = JSON.parse(first.stdout) as SearchPage;
    expect(page.results.length).toBe(1);
    const result = page.results[0];
    expect(result?.mention).toBe(formatSessionReferenceMention({ sessionId: result?.sessionId as string, label: result?.label as string }));
    expect(page.nextCursor).toBeDefined();
    const second = await runBuiltCli(['search', 'the', '--root', root, '--json', '--limit', '1', '--cursor', page.nextCursor as string], {
      env,
    });
    const next = JSON.parse(second.stdout) as SearchPage;
    expect(next.results[0]?.sessionId).not.toBe(result?.sessionId);
  });

  it('usage errors exit 2: an unknown role, a bad time', async () => {
    const role = await runBuiltCli(['search', 'x', '--root', root, '--role', 'robot'], { env });
    expect(role.code).toBe(2);
    expect(role.stderr).toContain("option '--role <role...>' argument 'robot' is invalid");
    const since = await runBuiltCli(['search', 'x', '--root', root, '--since', 'yesterday'], { env });
    expect(since.code).toBe(2);
  });

  it('a search failure exits 1 with its code (--json: the error object)', async () => {
    const outcome = await runBuiltCli(['search', '   ', '--root', root, '--json'], { env });
    expect(outcome.code).toBe(1);
    expect((JSON.parse(outcome.stdout) as { error: { code: string } }).error.code).toBe('SEARCH_INVALID_QUERY');
  });

  it('the config file turns search off: SEARCH_DISABLED', async () => {
    const config = join(dir, 'off.json');
    writeFileSync(config, JSON.stringify({ search: { enabled: false } }));
    const outcome = await runBuiltCli(['search', 'the', '--root', root, '--config', config], { env });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('(SEARCH_DISABLED)');
  });
});

describe('the time flag', () => {
  const now = Date.UTC(2026, 2, 10, 12, 0, 0);
  it.each([
    ['7d', now - 7 * 86_400_000],
    ['12h', now - 12 * 3_600_000],
    ['30m', now - 30 * 60_000],
    ['2w', now - 14 * 86_400_000],
    ['2026-03-01', Date.UTC(2026, 2, 1)],
    ['2026-03-01T12:30:00Z', Date.UTC(2026, 2, 1, 12, 30)],
  ])('%s is %d', (text, expected) => {
    expect(parseTimeOption(text, now)).toBe(expected);
  });

  it.each(['yesterday', '7', '7y', '2026-13-45x', ''])('%j is refused', (text) => {
    expect(() => parseTimeOption(text, now)).toThrow('it must be an ISO date');
  });
});

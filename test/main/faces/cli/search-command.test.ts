// `sessionctx search` (issue 17 item 4) as a child process over a copy of the dsh fixture: the human output (row,
// mention to paste, hits with the match marked), `--json` as the engine's page, the flags' usage errors (exit 2),
// a typed search failure (exit 1 with its code), and the time flag's forms.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchPage } from '../../../../src/protocol/search-types.js';
import { formatSessionReferenceMention } from '../../../../src/protocol/uri/mention-formatter.js';
import { runBuiltCli } from '../../../support/cli-process.js';
import { RAW_ROOT } from '../../../support/fixtures.js';

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
    expect(role.stderr).toContain('--role "robot": must be one of user, assistant, checkpoint, tool');
    const since = await runBuiltCli(['search', 'x', '--root', root, '--since', 'yesterday'], { env });
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since "yesterday": must be an ISO date');
  });

  it.each([
    [['   '], 'the phrase: must not be empty'],
    [[''], 'the phrase: must not be empty'],
    [['x', '--limit', '0'], '--limit "0": must be a whole number from 1 to 100'],
    [['x', '--limit', '101'], '--limit "101": must be a whole number from 1 to 100'],
    [['x', '--limit', 'abc'], '--limit "abc": must be a whole number from 1 to 100'],
  ])('%j is a usage error (exit 2, before any engine starts)', async (args, message) => {
    const outcome = await runBuiltCli(['search', ...args, '--root', root, '--json'], { env });
    expect(outcome.code).toBe(2);
    expect((JSON.parse(outcome.stdout) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'CLI_USAGE',
      message,
    });
  });

  it('--role tool without tool indexing is a usage error naming the setting', async () => {
    const outcome = await runBuiltCli(['search', 'x', '--root', root, '--role', 'tool'], { env });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('search.includeTools');
    expect(outcome.stderr).toContain('"search": {"includeTools": true}');
  });

  it('a search failure that only the index knows exits 1 with its code (--json: the error object)', async () => {
    const outcome = await runBuiltCli(['search', '東京', '--root', root, '--json'], { env });
    expect(outcome.code).toBe(1);
    expect((JSON.parse(outcome.stdout) as { error: { code: string } }).error.code).toBe('SEARCH_INVALID_QUERY');
  });

  it('no match at all says so', async () => {
    const outcome = await runBuiltCli(['search', 'zebra quokka marmalade', '--root', root], { env });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe('no sessions contain "zebra quokka marmalade"\n');
  });

  it('filters that exclude every match say so, and which one excluded them', async () => {
    // The phrase is in the fixture (the first test finds it); every fixture log was written before 2027.
    const since = await runBuiltCli(['search', 'file watcher', '--root', root, '--since', '2027-01-01'], { env });
    expect(since.code).toBe(0);
    const unfiltered = JSON.parse((await runBuiltCli(['search', 'file watcher', '--root', root, '--json'], { env })).stdout) as SearchPage;
    const does = unfiltered.results.length === 1 ? 'one session does' : 'sessions do';
    expect(since.stdout).toBe(
      `no sessions contain "file watcher" with --since 2027-01-01; without it ${does}, e.g. ${unfiltered.results[0]?.label}\n`,
    );
    const both = await runBuiltCli(['search', 'file watcher', '--root', root, '--since', '2027-01-01', '--role', 'user'], { env });
    expect(both.stdout).toContain('no sessions contain "file watcher" with --since 2027-01-01 --role user; without these filters');
    expect(both.stdout).toContain('  excluded by --since 2027-01-01 on its own');
  });

  it('the config file turns search off: SEARCH_DISABLED', async () => {
    const config = join(dir, 'off.json');
    writeFileSync(config, JSON.stringify({ search: { enabled: false } }));
    const outcome = await runBuiltCli(['search', 'the', '--root', root, '--config', config], { env });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('(SEARCH_DISABLED)');
  });
});

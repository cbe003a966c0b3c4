/**
 * The command line's contract, run through the built executable: version and help, usage errors that name
 * the real flag with exit 2, terminal-safe human output, `~` in configured paths, id prefixes, titles as
 * mention labels, colour only where wanted, EPIPE, and one row format for `sessions` with and without a query.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_ROOT, REPO_ROOT, ZSTD_ROOT } from '../../../support/fixtures.js';
import { CLI_BIN as BIN, runBuiltCli } from '../../../support/cli-process.js';
import type { CliOutcome } from '../../../support/cli-process.js';

const WEBSHOP = 'session-9d029d81-e515-48ac-b168-fef7011f3491';
const WEBSHOP_TITLE = 'Write unit tests CartService.removeItem';

let scratch: string;
let env: NodeJS.ProcessEnv;

function cli(args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}, cwd?: string): Promise<CliOutcome> {
  return runBuiltCli(args, { env: { ...env, ...extraEnv }, cwd: cwd ?? scratch });
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sessionctx-contract-'));
  // A private HOME and cache, so no test reads or writes the real user's.
  mkdirSync(join(scratch, 'home'));
  env = { ...process.env, HOME: join(scratch, 'home'), XDG_CACHE_HOME: join(scratch, 'cache'), NO_COLOR: '', FORCE_COLOR: '' };
  delete env.SESSIONCTX_ROOT;
  delete env.DSH_HOME;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('version and help', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    ['sessions', ['--query', '--target', '--cwd', '--limit', '--root', '--config', '--json', '--no-workers']],
    ['show', ['--log', '--root', '--json']],
    ['mention', ['--label']],
    ['prepare', ['--target', '--message-file', '--max-bytes', '--max-references', '--root']],
    ['dcp', ['--session', '--raw', '--into-context', '--root']],
    ['config', ['--config', '--json']],
    ['demo', ['--root', '--json']],
  ])('%s --help lists its options with defaults and an example, exit 0', async (command, flags) => {
    const result = await cli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: sessionctx ${command}`);
    for (const flag of flags) expect(result.stdout).toContain(flag);
    expect(result.stdout).toMatch(/\nExamples:\n {2}\$ sessionctx /);
  });

  it('the defaults a command uses are named in its help', async () => {
    expect((await cli(['prepare', '--help'])).stdout).toMatch(/--max-bytes <n>[\s\S]*default:[\s\S]*65536/);
    expect((await cli(['sessions', '--help'])).stdout).toMatch(/--root <dir>[\s\S]*~\/\.dsh\/sessions/);
  });

  it('no command prints the general help on stderr and is a usage error (exit 2); an unknown command too', async () => {
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: sessionctx');
    const unknown = await cli(['frobnicate', '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toEqual({
      error: { code: 'CLI_USAGE', message: expect.stringContaining("unknown command 'frobnicate'") },
    });
  });
});

describe('usage errors name the real flag and exit 2', () => {
  it.each([
    [['sessions', '--root', RAW_ROOT, '--query', 'a', '--limit', 'abc'], "'--limit <n>'"],
    [['sessions', '--root', RAW_ROOT, '--query', 'a', '--limit', '0'], "'--limit <n>'"],
    [['sessions', '--root', RAW_ROOT, '--query', 'a', '--limit', '1.5'], "'--limit <n>'"],
    [['prepare', '--root', RAW_ROOT, '--target', 'x', '--max-bytes', '0', 'hi'], "'--max-bytes <n>'"],
    [['prepare', '--root', RAW_ROOT, '--target', 'x', '--max-references', '-1', 'hi'], "'--max-references <n>'"],
    [['show', '--root', RAW_ROOT, '--bogus', WEBSHOP], "'--bogus'"],
    [['show', '--root', RAW_ROOT], "'id'"],
  ])('%j', async (args, named) => {
    const human = await cli(args);
    expect(human.code).toBe(2);
    expect(human.stderr).toContain(named);
    expect(human.stderr).not.toContain('max-reference-bytes');
    const json = await cli([...args, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'CLI_USAGE', message: expect.stringContaining(named) } });
  });
});

describe('no raw system error reaches a user', () => {
  it.each([
    [
      'an unreadable message file',
      ['prepare', '--root', RAW_ROOT, '--target', 'x', '--message-file', '/nonexistent/message.txt'],
      'CLI_INPUT_UNREADABLE',
    ],
    ['a root that is a file', ['sessions', '--root', join(REPO_ROOT, 'package.json')], undefined],
    ['an id too long for a file name', ['show', 'x'.repeat(300), '--root', RAW_ROOT], undefined],
    ['a config file that is a directory', ['sessions', '--root', RAW_ROOT, '--config', REPO_ROOT], 'SESSIONCTX_INVALID_CONFIG'],
  ])('%s fails with a typed code and the path', async (_name, args, code) => {
    const result = await cli([...args, '--json']);
    expect(result.code).toBe(1);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.code).not.toMatch(/^E[A-Z]+$/);
    expect(error.code).not.toBe('UNKNOWN');
    if (code !== undefined) expect(error.code).toBe(code);
  });
});

describe('human output is terminal-safe; --json keeps raw values', () => {
  let root: string;
  const hostile = 'Nightly \u001b[2J\u001b[31mred\rover\u0007';
  beforeAll(() => {
    root = join(scratch, 'hostile-root');
    cpSync(RAW_ROOT, root, { recursive: true });
    const log = join(root, '--home-dev-projects-webshop--', WEBSHOP, 'session.jsonl');
    appendFileSync(
      log,
      `${JSON.stringify({ type: 'session/title', seq: 88, time: 1772581600000, data: { title: hostile, messageSeqs: [4], source: { kind: 'user' } } })}\n`,
    );
  });

  it('sessions escapes control characters in the title', async () => {
    const human = await cli(['sessions', '--root', root]);
    expect(human.code).toBe(0);
    expect(human.stdout).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F]/);
    expect(human.stdout).toContain('Nightly \\u{001B}[2J\\u{001B}[31mred\\u{000D}over\\u{0007}');
    const json = await cli(['sessions', '--root', root, '--json']);
    const rows = (JSON.parse(json.stdout) as { sessions: Array<{ header: { id: string }; title: { title: string } | null }> }).sessions;
    expect(rows.find((row) => row.header.id === WEBSHOP)?.title?.title).toBe(hostile);
  });

  it('discovery and show escape it too', async () => {
    for (const args of [
      ['sessions', '--root', root, '--query', 'nightly'],
      ['show', WEBSHOP, '--root', root, '--log'],
    ]) {
      const result = await cli(args);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F]/);
    }
  });

  it('error messages are escaped on stderr', async () => {
    const result = await cli(['show', 'evil\u001b[2Jid', '--root', root]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('evil\\u{001B}[2Jid');
    expect(result.stderr).not.toContain('\u001b');
  });
});

describe('~ in configured paths', () => {
  it('expands in the config file, SESSIONCTX_ROOT and --root=~/…', async () => {
    const home = join(scratch, 'home');
    const project = join(scratch, 'project');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'sessionctx.config.json'), JSON.stringify({ root: '~/.dsh/sessions' }));
    const fromFile = JSON.parse((await cli(['config', '--json'], {}, project)).stdout) as { config: { root: string } };
    expect(fromFile.config.root).toBe(join(home, '.dsh', 'sessions'));
    const fromEnv = JSON.parse((await cli(['config', '--json'], { SESSIONCTX_ROOT: '~/x' })).stdout) as { config: { root: string } };
    expect(fromEnv.config.root).toBe(join(home, 'x'));
    const fromFlag = JSON.parse((await cli(['config', '--json', '--root=~/y'])).stdout) as { config: { root: string } };
    expect(fromFlag.config.root).toBe(join(home, 'y'));
    const dshHome = JSON.parse((await cli(['config', '--json'], { DSH_HOME: '~/dsh' })).stdout) as { config: { root: string } };
    expect(dshHome.config.root).toBe(join(home, 'dsh', 'sessions'));
  });

  it('config names flag sources by their real flag', async () => {
    const result = await cli(['config', '--root', RAW_ROOT]);
    expect(result.stdout).toContain(`root = ${JSON.stringify(RAW_ROOT)}  (flag --root)`);
  });
});

describe('session ids as people type them', () => {
  it('an unambiguous prefix, with or without "session-", reads the same session', async () => {
    const exact = await cli(['show', WEBSHOP, '--root', ZSTD_ROOT, '--json']);
    expect(exact.code).toBe(0);
    for (const prefix of ['session-9d029d81', '9d029d81-e515']) {
      const byPrefix = await cli(['show', prefix, '--root', ZSTD_ROOT, '--json']);
      expect(byPrefix.code, byPrefix.stderr).toBe(0);
      expect(byPrefix.stdout).toBe(exact.stdout);
    }
  });

  it('an ambiguous prefix is an error listing the matches', async () => {
    const result = await cli(['show', 'session-', '--root', RAW_ROOT, '--json']);
    expect(result.code).toBe(1);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('CLI_SESSION_ID_AMBIGUOUS');
    expect(error.message).toMatch(
      /^session id prefix "session-" matches 14 sessions: (session-[0-9a-f-]{36}, ){9}session-[0-9a-f-]{36} and 4 more; type more of the id$/,
    );
  });

  it('a prefix that matches nothing is the not-found error of the id as typed', async () => {
    const result = await cli(['show', 'session-nope', '--root', RAW_ROOT, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'SESSION_QUERY_SESSION_NOT_FOUND', message: 'session "session-nope" not found' },
    });
  });

  it('mention labels with the session title of the session the root names; an id it does not name fails', async () => {
    const uri = (label: string, stdout: string): string => {
      expect(stdout.startsWith(`@[${label}](dsh-session:`)).toBe(true);
      return stdout.slice(label.length + 4, -2);
    };
    const labelled = (await cli(['mention', '9d029d81', '--root', RAW_ROOT, '--json'])).stdout;
    expect(JSON.parse(labelled)).toMatchObject({ sessionId: WEBSHOP, label: WEBSHOP_TITLE });
    const titled = uri(WEBSHOP_TITLE, (await cli(['mention', '9d029d81', '--root', RAW_ROOT])).stdout);
    // The same session's URI as when the full id and an explicit label are given.
    expect(uri('mine', (await cli(['mention', WEBSHOP, '--label', 'mine', '--root', RAW_ROOT])).stdout)).toBe(titled);
    // No mention of a session the root does not have (issue 26): the URI would name no session.
    const unknown = await cli(['mention', 'session-unknown', '--root', RAW_ROOT]);
    expect([unknown.code, unknown.stdout]).toEqual([1, '']);
    const noRoot = await cli(['mention', 'session-unknown', '--root', join(scratch, 'no-root'), '--json']);
    expect([noRoot.code, JSON.parse(noRoot.stdout).error.code]).toEqual([1, 'CLI_ROOT_NOT_FOUND']);
  });
});

describe('rows, colour, pipes and workers', () => {
  it('sessions and sessions --query print the same row for a session', async () => {
    const listed = (await cli(['sessions', '--root', RAW_ROOT])).stdout.split('\n').find((line) => line.includes(WEBSHOP));
    const queried = (await cli(['sessions', '--root', RAW_ROOT, '--query', 'CartService'])).stdout.split('\n');
    expect(listed).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}session-9d029d81-e515-48ac-b168-fef7011f3491 {2}Write unit tests CartService\.removeItem {2}\[\/home\/dev\/projects\/webshop\]$/,
    );
    expect(queried[0]).toBe(listed);
    expect(queried[1]?.startsWith(`  @[${WEBSHOP_TITLE}](dsh-session:`)).toBe(true);
  });

  it('diagnostics are coloured only when wanted (FORCE_COLOR), never with NO_COLOR or on a pipe', async () => {
    const plain = await cli(['show', 'session-nope', '--root', RAW_ROOT]);
    expect(plain.stderr.startsWith('sessionctx: error: ')).toBe(true);
    const forced = await cli(['show', 'session-nope', '--root', RAW_ROOT], { FORCE_COLOR: '1' });
    expect(forced.stderr.startsWith('sessionctx: \u001b[31merror\u001b[39m: ')).toBe(true);
    expect(forced.stdout).toBe('');
  });

  it('show --log | head -1 ends quietly: one line, no EPIPE stack trace', async () => {
    const child = spawn(
      'sh',
      ['-c', `"${process.execPath}" "${BIN}" show session-b2f4f8ab-862e-4eff-b7d3-68298f7abfc7 --log --root "${RAW_ROOT}" | head -1`],
      { env },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout.split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect(stderr).toBe('');
  });

  it('--no-workers gives the same bytes as the pool', async () => {
    const pooled = await cli(['show', WEBSHOP, '--root', ZSTD_ROOT, '--json']);
    const inThread = await cli(['show', WEBSHOP, '--root', ZSTD_ROOT, '--json', '--no-workers']);
    expect(inThread.stdout).toBe(pooled.stdout);
  });
});

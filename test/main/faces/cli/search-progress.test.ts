// A cold `sessionctx search` on a root of 210 sessions (issue 26: "a cold search on a large root prints nothing for
// seconds on a terminal"): the index update draws its progress bar on stderr when stderr is a terminal — through the
// CLI's TTY seam (`CliIo.stderr.isTTY`, as the progress-bar tests fake it) and for real under a pseudo-terminal
// (util-linux `script`, stdout redirected to a file) — never on stdout, and nothing when stderr is not a terminal
// or the root is small.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../../src/main/faces/cli/cli-io.js';
import { runCli } from '../../../../src/main/faces/cli/run-cli.js';
import { RAW_ROOT, REPO_ROOT } from '../../../support/fixtures.js';
import { CorpusSession, writeSession } from '../../engine/search/search-corpus.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
/** Sessions of the large root: above the 200 a search waits for before it draws a bar. */
const SESSIONS = 210;

let dir: string;
let root: string;
let cacheCount = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-search-progress-'));
  root = join(dir, 'root');
  for (let index = 0; index < SESSIONS; index += 1) {
    const session = new CorpusSession(`s-${String(index).padStart(4, '0')}`, `/work/p${index % 7}`);
    session.turn(`the rounding bug in cartTotal, take ${index}`, 'fixed with integer cents');
    await writeSession(root, session, 'none');
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

/** A fresh cache directory: each search below starts cold. */
function freshCache(): string {
  cacheCount += 1;
  return join(dir, `cache-${cacheCount}`);
}

/** An in-process CLI whose stderr says it is (or is not) a terminal. */
function capture(stderrIsTTY: boolean): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (text: string) => out.push(text), isTTY: false },
      stderr: { write: (text: string) => err.push(text), isTTY: stderrIsTTY },
      env: { XDG_CACHE_HOME: freshCache(), NO_COLOR: '1' },
      cwd: dir,
      readStdin: async () => '',
    },
    out,
    err,
  };
}

/** The bar from its first frame (nothing checked yet) to its last (all checked), each frame after a `\r`. */
const BAR = new RegExp(
  `^\\rindexing sessions \\[-{30}\\] 0/${SESSIONS}(\\r[^\\n]*)?\\rindexing sessions \\[#{30}\\] ${SESSIONS}/${SESSIONS}\\n$`,
  'su',
);

describe('a cold search shows its index update on a terminal', () => {
  it('draws the bar on stderr when it is a terminal, never on stdout (human and --json)', async () => {
    const tty = capture(true);
    expect(await runCli(['search', 'cartTotal', '--root', root, '--limit', '1'], tty.io)).toBe(0);
    expect(tty.err.join('')).toMatch(BAR);
    const out = tty.out.join('');
    expect(out).toContain('cartTotal');
    expect(out).not.toMatch(/indexing|\r/u);
    const json = capture(true);
    expect(await runCli(['search', 'cartTotal', '--root', root, '--limit', '1', '--json'], json.io)).toBe(0);
    expect(json.err.join('')).toMatch(BAR);
    expect((JSON.parse(json.out.join('')) as { results: unknown[] }).results).toHaveLength(1);
  });

  it('prints nothing on stderr when it is not a terminal, or when the root is small', async () => {
    const pipe = capture(false);
    expect(await runCli(['search', 'cartTotal', '--root', root, '--limit', '1'], pipe.io)).toBe(0);
    expect(pipe.err.join('')).toBe('');
    expect(pipe.out.join('')).toContain('cartTotal');
    // The 14 sessions of the fixture root: under the threshold, so no bar even on a terminal.
    const small = join(dir, 'small');
    cpSync(RAW_ROOT, small, { recursive: true });
    const tty = capture(true);
    expect(await runCli(['search', 'file watcher', '--root', small], tty.io)).toBe(0);
    expect(tty.err.join('')).toBe('');
  });

  it('under a real pseudo-terminal: the bar reaches the terminal, the redirected stdout has none of it', async () => {
    const stdoutFile = join(dir, 'pty-stdout.txt');
    const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;
    const command = `${quote(process.execPath)} ${quote(BIN)} search cartTotal --root ${quote(root)} --limit 1 > ${quote(stdoutFile)}`;
    // `script` runs the command on a new pseudo-terminal and copies what reaches it to its own stdout.
    const { stdout: terminal } = await run('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env: { ...process.env, XDG_CACHE_HOME: freshCache(), NO_COLOR: '1' },
    });
    expect(terminal).toContain(`\rindexing sessions [${'-'.repeat(30)}] 0/${SESSIONS}`);
    expect(terminal).toContain(`\rindexing sessions [${'#'.repeat(30)}] ${SESSIONS}/${SESSIONS}`);
    const stdout = readFileSync(stdoutFile, 'utf8');
    expect(stdout).toContain('cartTotal');
    expect(stdout).not.toMatch(/indexing|\r/u);
  });
});

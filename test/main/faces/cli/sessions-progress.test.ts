// A cold `sessionctx sessions` on a root of 210 sessions (issue 27 item 3: "cold listing streamed with progress on a
// terminal"): the listing's header reads draw a bar on stderr when stderr is a terminal (the CLI's TTY seam,
// `CliIo.stderr.isTTY`), erased when the listing is done so the rows stand alone; nothing on a pipe, nothing on a small
// root, never anything on stdout.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../../src/main/faces/cli/cli-io.js';
import { runCli } from '../../../../src/main/faces/cli/run-cli.js';
import { CorpusSession, writeSession } from '../../engine/search/search-corpus.js';

/** Sessions of the large root: above the 200 a listing waits for before it draws a bar. */
const SESSIONS = 210;

let dir: string;
let root: string;
let small: string;
let caches = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-sessions-progress-'));
  root = join(dir, 'root');
  small = join(dir, 'small');
  for (let index = 0; index < SESSIONS; index += 1) {
    const session = new CorpusSession(`s-${String(index).padStart(4, '0')}`, `/work/p${index % 7}`);
    session.turn(`listing take ${index}`, 'listed');
    await writeSession(root, session, 'none');
    if (index < 12) await writeSession(small, session, 'none');
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

/** An in-process CLI with a fresh cache (each listing below is cold) whose stderr is (or is not) a terminal. */
function capture(stderrIsTTY: boolean): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  caches += 1;
  return {
    io: {
      stdout: { write: (text: string) => out.push(text), isTTY: false },
      stderr: { write: (text: string) => err.push(text), isTTY: stderrIsTTY },
      env: { XDG_CACHE_HOME: join(dir, `cache-${caches}`), NO_COLOR: '1' },
      cwd: dir,
      readStdin: async () => '',
    },
    out,
    err,
  };
}

/** The bar from its first frame (nothing checked) through its frames, each after a `\r`, then the line erased. */
const BAR = new RegExp(`^\\rreading sessions \\[-{30}\\] 0/${SESSIONS}(\\r[^\\n]*)?\\r\\x1b\\[2K$`, 'su');

describe('a cold listing shows its progress on a terminal', () => {
  it('draws the bar on stderr when it is a terminal and erases it at the end; stdout holds only the rows', async () => {
    const tty = capture(true);
    expect(await runCli(['sessions', '--root', root], tty.io)).toBe(0);
    expect(tty.err.join('')).toMatch(BAR);
    // The last frame before the erase counted every session.
    expect(tty.err.join('')).toContain(`] ${SESSIONS}/${SESSIONS}`);
    const rows = tty.out
      .join('')
      .split('\n')
      .filter((line) => line !== '');
    expect(rows).toHaveLength(SESSIONS);
    expect(tty.out.join('')).not.toMatch(/reading|\r/u);
  });

  it('prints nothing on stderr when it is not a terminal, nor on a root below the threshold', async () => {
    const pipe = capture(false);
    expect(await runCli(['sessions', '--root', root], pipe.io)).toBe(0);
    expect(pipe.err.join('')).toBe('');
    const few = capture(true);
    expect(await runCli(['sessions', '--root', small], few.io)).toBe(0);
    expect(few.err.join('')).toBe('');
    expect(
      few.out
        .join('')
        .split('\n')
        .filter((line) => line !== ''),
    ).toHaveLength(12);
  });
});

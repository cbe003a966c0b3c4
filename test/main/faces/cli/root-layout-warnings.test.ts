/**
 * A problem of the whole root is reported once, not once per session (issue 26): a root one level too deep (a
 * project directory given as the root) makes every session's log a flat file; the CLI prints the first few
 * skipped entries, one summary counting all of them by code, and a hint naming the parent as the root, while
 * `--json` keeps every problem. A root one level too shallow lists nothing and gets a hint naming the session
 * roots below it. The corpora: a copy of the fixture root, and a project directory of twelve copies of one
 * fixture session (only their paths matter to a root one level too deep).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_ROOT, fixtureSessions } from '../../../support/fixtures.js';
import { runBuiltCli } from '../../../support/cli-process.js';

let scratch: string;
/** A copy of the fixture root. */
let root: string;
/** Its project directory with the most sessions. */
let project: string;
/** A project directory of twelve session directories. */
let crowded: string;
const env = (): NodeJS.ProcessEnv => ({ ...process.env, XDG_CACHE_HOME: join(scratch, 'cache'), NO_COLOR: '1' });

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sessionctx-layout-'));
  root = join(scratch, 'sessions');
  cpSync(RAW_ROOT, root, { recursive: true });
  project = join(root, '--home-dev-projects-webshop--');
  const [first] = fixtureSessions();
  if (first === undefined) throw new Error('no fixture sessions');
  crowded = join(scratch, 'crowded', '--home-dev-crowded--');
  mkdirSync(crowded, { recursive: true });
  for (let at = 0; at < 12; at++)
    cpSync(join(RAW_ROOT, first.projectDir, first.id), join(crowded, `session-copy-${String(at).padStart(2, '0')}`), { recursive: true });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('warnings about a whole root', () => {
  it('a root one level too deep: the first five, a summary by code, a hint; --json lists every one', async () => {
    const sessions = readdirSync(crowded).length;
    expect(sessions).toBe(12);
    const human = await runBuiltCli(['sessions', '--root', crowded], { env: env() });
    expect(human.code).toBe(0);
    const lines = human.stderr.trim().split('\n');
    expect(lines).toHaveLength(5 + 2);
    expect(lines.slice(0, 5).every((line) => line.startsWith(`sessionctx: warning: skipped ${crowded}/`))).toBe(true);
    expect(lines[5]).toBe(
      `sessionctx: warning: skipped 12 entries of ${crowded} in all (SESSION_STORE_FLAT_LAYOUT 12); 7 not shown above, --json lists every one`,
    );
    expect(lines[6]).toMatch(/^sessionctx: warning: hint: .* looks one level too deep: /);

    const json = await runBuiltCli(['sessions', '--root', crowded, '--json'], { env: env() });
    const { problems } = JSON.parse(json.stdout) as { problems: Array<{ code: string }> };
    expect(problems).toHaveLength(12);
    expect(new Set(problems.map((problem) => problem.code))).toEqual(new Set(['SESSION_STORE_FLAT_LAYOUT']));
  });

  it('the too-deep hint names the right root: the parent it names lists every session', async () => {
    const deep = await runBuiltCli(['sessions', '--root', project], { env: env() });
    const hint = deep.stderr.trim().split('\n').at(-1) ?? '';
    expect(hint).toMatch(/ looks one level too deep: /);
    expect(hint.endsWith(`; try --root ${root}`)).toBe(true);
    const listed = await runBuiltCli(['sessions', '--root', root, '--json'], { env: env() });
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { sessions: unknown[] }).sessions).toHaveLength(fixtureSessions().length);
    expect(listed.stderr).toBe('');
  });

  it('a root one level too shallow: no sessions, and a hint naming the session root below it', async () => {
    const crowdedRoot = join(scratch, 'crowded');
    const outcome = await runBuiltCli(['sessions', '--root', scratch], { env: env() });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe(`no sessions under ${scratch}\n`);
    expect(outcome.stderr).toBe(
      `sessionctx: warning: hint: ${scratch} looks one level too shallow: ${crowdedRoot}, ${root} hold project directories; try --root ${crowdedRoot}\n`,
    );
  });

  it('a command that lists several times reports each skipped entry once', async () => {
    // show by a prefix lists to resolve it, then again to name why nothing matched.
    const outcome = await runBuiltCli(['show', 'nothere', '--root', crowded], { env: env() });
    expect(outcome.code).toBe(1);
    const skipped = outcome.stderr.split('\n').filter((line) => line.includes(': skipped '));
    expect(skipped).toHaveLength(new Set(skipped).size);
  });
});

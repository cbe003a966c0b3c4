/**
 * `show` of a session whose log is damaged names the real cause, as `dcp` on the same id does (issue 26), by the
 * full id and by a prefix; `mention` of it does too. Only an id with no artifact at all is not-found.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_ROOT, fixtureSessions } from '../../../support/fixtures.js';
import { runBuiltCli } from '../../../support/cli-process.js';

const ID = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f';
let scratch: string;
let root: string;
const env = (): NodeJS.ProcessEnv => ({ ...process.env, XDG_CACHE_HOME: join(scratch, 'cache'), NO_COLOR: '1' });

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sessionctx-show-damaged-'));
  root = join(scratch, 'raw');
  cpSync(RAW_ROOT, root, { recursive: true });
  const session = fixtureSessions().find((candidate) => candidate.id === ID);
  if (session === undefined) throw new Error(`fixture ${ID} missing`);
  writeFileSync(join(root, session.projectDir, ID, 'session.jsonl'), '{"broken\n');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a damaged log, named by id', () => {
  it('show names the cause dcp names, by the full id and by a prefix; mention too', async () => {
    const dcp = await runBuiltCli(['dcp', 'stats', '--session', ID, '--root', root, '--json'], { env: env() });
    expect(dcp.code).toBe(1);
    const cause = JSON.parse(dcp.stdout) as { error: { code: string; message: string } };
    expect(cause.error.code).not.toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    for (const args of [
      ['show', ID],
      ['show', 'a7eb71e0'],
      ['show', ID, '--log'],
      ['mention', 'a7eb71e0'],
    ]) {
      const outcome = await runBuiltCli([...args, '--root', root, '--json'], { env: env() });
      expect(outcome.code, args.join(' ')).toBe(1);
      expect(JSON.parse(outcome.stdout), args.join(' ')).toEqual(cause);
    }
  });

  it('an id with no artifact is still not-found', async () => {
    const outcome = await runBuiltCli(['show', 'session-nope', '--root', root, '--json'], { env: env() });
    expect(JSON.parse(outcome.stdout).error.code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
  });
});

/**
 * `sessionctx mention` names a session of the root, as every other command that takes an id does (issue 26): a
 * prefix is resolved to the full id it names, so the URI names that session; an id that names no session, and a
 * root that does not exist, fail with their typed codes (exit 1) and print no mention.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RAW_ROOT, fixtureSessions } from '../../../support/fixtures.js';
import { runBuiltCli } from '../../../support/cli-process.js';

const home = mkdtempSync(join(tmpdir(), 'sessionctx-mention-home-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The environment of a machine with no configured root: `~/.dsh/sessions` under an empty home. */
const noRootEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CACHE_HOME: join(home, 'cache') };
  delete env.SESSIONCTX_ROOT;
  delete env.DSH_HOME;
  return env;
};

/** The URI of an id by its definition (SESSION-REFERENCE.md: base64url of the id as a JSON string). */
const uriOf = (id: string): string => `dsh-session:${Buffer.from(JSON.stringify(id), 'utf8').toString('base64url')}`;

const FULL_ID = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f';

describe('sessionctx mention resolves the session it names', () => {
  it('the fixture has exactly one session whose id starts with the prefix used here', () => {
    expect(fixtureSessions().filter((session) => session.id.startsWith('session-a7eb71e0'))).toHaveLength(1);
  });

  it('a prefix with --label is encoded as the full id it names', async () => {
    const outcome = await runBuiltCli(['mention', 'a7eb71e0', '--label', 'the OOM', '--root', RAW_ROOT, '--json']);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual({
      sessionId: FULL_ID,
      label: 'the OOM',
      uri: uriOf(FULL_ID),
      mention: `@[the OOM](${uriOf(FULL_ID)})`,
    });
    const human = await runBuiltCli(['mention', 'a7eb71e0', '--label', 'the OOM', '--root', RAW_ROOT]);
    expect(human.stdout).toBe(`@[the OOM](${uriOf(FULL_ID)})\n`);
  });

  it.each([[['nothere']], [['nothere', '--label', 'x']]])(
    'an id that names no session fails with SESSION_QUERY_SESSION_NOT_FOUND (%j)',
    async (args) => {
      const outcome = await runBuiltCli(['mention', ...args, '--root', RAW_ROOT, '--json']);
      expect(outcome.code).toBe(1);
      expect(JSON.parse(outcome.stdout)).toEqual({
        error: { code: 'SESSION_QUERY_SESSION_NOT_FOUND', message: 'session "nothere" not found' },
      });
      const human = await runBuiltCli(['mention', ...args, '--root', RAW_ROOT]);
      expect(human.code).toBe(1);
      expect(human.stdout).toBe('');
      expect(human.stderr).toContain('(SESSION_QUERY_SESSION_NOT_FOUND)');
    },
  );

  it('without a root (none configured, the default missing) it fails with CLI_ROOT_NOT_FOUND and prints no mention', async () => {
    const env = noRootEnv();
    for (const args of [
      ['mention', 'a7eb71e0', '--json'],
      ['mention', 'a7eb71e0', '--label', 'the OOM', '--json'],
    ]) {
      const outcome = await runBuiltCli(args, { env });
      expect(outcome.code).toBe(1);
      expect(JSON.parse(outcome.stdout).error.code).toBe('CLI_ROOT_NOT_FOUND');
      expect(outcome.stdout).not.toContain('dsh-session:');
    }
  });
});

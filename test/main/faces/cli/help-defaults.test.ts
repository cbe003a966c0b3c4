/**
 * Every default a `--help` prints is the configuration this run resolves (issue 26), not a number written into a
 * description: `prepare --help` shows the `maxReferences` default that `prepare` accepts (and one more is refused),
 * `sessions --help` the `candidateLimit` that discovery uses; a value from the environment or the config file is
 * shown with its source, as `sessionctx config` names it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_ROOT } from '../../../support/fixtures.js';
import { runBuiltCli } from '../../../support/cli-process.js';

let scratch: string;
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const base: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: join(scratch, 'cache'), NO_COLOR: '1', ...extra };
  for (const key of ['SESSIONCTX_MAX_REFERENCES', 'SESSIONCTX_CANDIDATE_LIMIT', 'SESSIONCTX_MAX_REFERENCE_BYTES'])
    if (!(key in extra)) delete base[key];
  return base;
};

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sessionctx-help-defaults-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What `sessionctx config --json` resolves (the independent reading of the configuration). */
async function configured(
  extra: NodeJS.ProcessEnv = {},
  cwd?: string,
): Promise<{ config: Record<string, unknown>; sources: Record<string, string> }> {
  const outcome = await runBuiltCli(['config', '--json'], { env: env(extra), ...(cwd === undefined ? {} : { cwd }) });
  return JSON.parse(outcome.stdout) as { config: Record<string, unknown>; sources: Record<string, string> };
}

/** The help entry of one option, its wrapped lines joined (commander wraps at 80 columns on a pipe). */
function helpLine(help: string, flag: string): string {
  const lines = help.split('\n');
  const at = lines.findIndex((candidate) => candidate.trimStart().startsWith(flag));
  if (at < 0) throw new Error(`no help line for ${flag} in:\n${help}`);
  const entry = [(lines[at] as string).trim()];
  for (const next of lines.slice(at + 1)) {
    if (!/^ {6,}\S/.test(next)) break;
    entry.push(next.trim());
  }
  return entry.join(' ');
}

describe('help defaults come from the resolved configuration', () => {
  it('prepare --help shows the maxReferences prepare accepts; one more is refused', async () => {
    const { config } = await configured();
    const help = (await runBuiltCli(['prepare', '--help'], { env: env() })).stdout;
    expect(helpLine(help, '--max-references')).toMatch(new RegExp(`\\(default: maxReferences = ${String(config.maxReferences)}\\)$`));
    expect(helpLine(help, '--max-bytes')).toMatch(new RegExp(`\\(default: maxReferenceBytes = ${String(config.maxReferenceBytes)}\\)$`));
    const limit = Number(config.maxReferences);
    const accepted = await runBuiltCli(
      ['prepare', '--target', 'session-new', 'hello', '--max-references', String(limit), '--root', RAW_ROOT],
      {
        env: env(),
      },
    );
    expect(accepted.code, accepted.stderr).toBe(0);
    const refused = await runBuiltCli(
      ['prepare', '--target', 'session-new', 'hello', '--max-references', String(limit + 1), '--root', RAW_ROOT],
      {
        env: env(),
      },
    );
    expect(refused.code).not.toBe(0);
  });

  it('mcp --help shows the snapshot budget and page size the server runs with, from the environment when set there', async () => {
    const { config } = await configured();
    const help = (await runBuiltCli(['mcp', '--help'], { env: env() })).stdout;
    expect(helpLine(help, '--max-bytes')).toMatch(new RegExp(`\\(default: maxReferenceBytes = ${String(config.maxReferenceBytes)}\\)$`));
    expect(helpLine(help, '--limit')).toMatch(new RegExp(`\\(default: candidateLimit = ${String(config.candidateLimit)}\\)$`));
    const shown = (await runBuiltCli(['mcp', '--help'], { env: env({ SESSIONCTX_MAX_REFERENCE_BYTES: '4096' }) })).stdout;
    expect(helpLine(shown, '--max-bytes')).toMatch(
      /\(default: maxReferenceBytes = 4096, from environment SESSIONCTX_MAX_REFERENCE_BYTES\)$/,
    );
  });

  it('sessions --help shows the candidateLimit discovery uses, from the environment when set there', async () => {
    const { config } = await configured();
    const help = (await runBuiltCli(['sessions', '--help'], { env: env() })).stdout;
    expect(helpLine(help, '--limit')).toMatch(new RegExp(`\\(default: candidateLimit = ${String(config.candidateLimit)}\\)$`));

    const limited = env({ SESSIONCTX_CANDIDATE_LIMIT: '2' });
    const shown = helpLine((await runBuiltCli(['sessions', '--help'], { env: limited })).stdout, '--limit');
    expect(shown).toMatch(/\(default: candidateLimit = 2, from environment SESSIONCTX_CANDIDATE_LIMIT\)$/);
    const found = await runBuiltCli(['sessions', '--query', '', '--root', RAW_ROOT, '--json'], { env: limited });
    expect((JSON.parse(found.stdout) as { candidates: unknown[] }).candidates).toHaveLength(2);
  });

  it('a value of the config file is shown with the file it came from', async () => {
    const dir = mkdtempSync(join(scratch, 'cwd-'));
    writeFileSync(join(dir, 'sessionctx.config.json'), JSON.stringify({ maxReferences: 2, root: RAW_ROOT }));
    const { sources } = await configured({}, dir);
    expect(sources.maxReferences).toBe('file');
    const help = (await runBuiltCli(['prepare', '--help'], { env: env(), cwd: dir })).stdout;
    expect(helpLine(help, '--max-references')).toMatch(/\(default: maxReferences = 2, from config file ".*sessionctx\.config\.json"\)$/);
    expect(helpLine(help, '--root')).toContain(`here: ${RAW_ROOT})`);
  });

  it("search --help shows the search.defaultLimit a search pages by, and the config file's value with its file", async () => {
    const { config } = await configured();
    const defaultLimit = (config.search as { defaultLimit: number }).defaultLimit;
    const help = (await runBuiltCli(['search', '--help'], { env: env() })).stdout;
    expect(helpLine(help, '--limit')).toMatch(new RegExp(`\\(default: search\\.defaultLimit = ${String(defaultLimit)}\\)$`));

    const dir = mkdtempSync(join(scratch, 'search-limit-'));
    writeFileSync(join(dir, 'sessionctx.config.json'), JSON.stringify({ search: { defaultLimit: 1 }, root: RAW_ROOT }));
    expect((await configured({}, dir)).config.search).toMatchObject({ defaultLimit: 1 });
    const shown = helpLine((await runBuiltCli(['search', '--help'], { env: env(), cwd: dir })).stdout, '--limit');
    expect(shown).toMatch(/\(default: search\.defaultLimit = 1, from config file ".*sessionctx\.config\.json"\)$/);
  });

  it('a configuration that cannot be read still gives the help, with the defaults', async () => {
    const dir = mkdtempSync(join(scratch, 'broken-'));
    writeFileSync(join(dir, 'sessionctx.config.json'), '{ not json');
    const outcome = await runBuiltCli(['prepare', '--help'], { env: env(), cwd: dir });
    expect(outcome.code).toBe(0);
    expect(helpLine(outcome.stdout, '--max-references')).toMatch(/\(default: maxReferences = \d+\)$/);
  });
});

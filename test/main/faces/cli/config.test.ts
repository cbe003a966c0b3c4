/**
 * The composition's configuration: file, SESSIONCTX_* environment and flags, in that order of
 * precedence, each value validated with its source named; `sessionctx config` prints it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionctxConfigError } from '../../../../src/main/engine/config/config-error.js';
import { resolveCompositionConfig } from '../../../../src/main/engine/config/composition-config.js';
import { REPO_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

describe('composition config', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sessionctx-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults: $DSH_HOME/sessions, 3 references, 65536 bytes, 50 candidates, no DCP settings', async () => {
    const { config, sources } = await resolveCompositionConfig({ cwd: dir, env: { DSH_HOME: '/home/u/.dsh' } });
    expect(config).toMatchObject({
      root: '/home/u/.dsh/sessions',
      maxReferences: 3,
      maxReferenceBytes: 65536,
      candidateLimit: 50,
      dcp: {},
    });
    expect(config.poolSize).toBeGreaterThanOrEqual(1);
    expect(config.poolSize).toBeLessThanOrEqual(3);
    expect(Object.values(sources).every((source) => source === 'default')).toBe(true);
  });

  it('flag beats environment beats file beats default, and each source is reported', async () => {
    writeFileSync(
      join(dir, 'sessionctx.config.json'),
      JSON.stringify({ root: 'logs', maxReferences: 1, maxReferenceBytes: 1000, candidateLimit: 7, dcp: { mode: 'manual' } }),
    );
    const resolved = await resolveCompositionConfig({
      cwd: dir,
      env: { SESSIONCTX_MAX_REFERENCE_BYTES: '2000', SESSIONCTX_CANDIDATE_LIMIT: '9' },
      flags: { maxReferenceBytes: 3000 },
    });
    expect(resolved.config).toMatchObject({
      root: join(dir, 'logs'),
      maxReferences: 1,
      maxReferenceBytes: 3000,
      candidateLimit: 9,
      dcp: { mode: 'manual' },
    });
    expect(resolved.sources).toMatchObject({
      root: 'file',
      maxReferences: 'file',
      maxReferenceBytes: 'flag',
      candidateLimit: 'env',
      dcp: 'file',
      poolSize: 'default',
    });
    expect(resolved.file).toBe(join(dir, 'sessionctx.config.json'));
  });

  it.each([
    [{ maxReferences: 4 }, /maxReferences from config file ".*" must not exceed 3, got 4/],
    [{ maxReferenceBytes: 0 }, /maxReferenceBytes from config file ".*" must be a positive safe integer, got 0/],
    [{ candidateLimit: 1.5 }, /candidateLimit from config file ".*" must be a positive safe integer, got 1.5/],
    [{ root: '' }, /root from config file ".*" must be a non-empty path/],
    [{ dcp: [] }, /dcp from config file ".*" must be an object/],
    [{ maxRefs: 2 }, /has unknown key "maxRefs"/],
  ])('a bad file value %j fails loudly, naming key and source', async (values, message) => {
    writeFileSync(join(dir, 'sessionctx.config.json'), JSON.stringify(values));
    const failure = await resolveCompositionConfig({ cwd: dir, env: {} }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SessionctxConfigError);
    expect((failure as SessionctxConfigError).code).toBe('SESSIONCTX_INVALID_CONFIG');
    expect((failure as Error).message).toMatch(message);
  });

  it('bad environment values and unreadable files are reported with their source', async () => {
    await expect(resolveCompositionConfig({ cwd: dir, env: { SESSIONCTX_POOL_SIZE: 'many' } })).rejects.toThrow(
      'poolSize from environment SESSIONCTX_POOL_SIZE must be a positive safe integer, got "many"',
    );
    writeFileSync(join(dir, 'broken.json'), '{not json');
    await expect(resolveCompositionConfig({ cwd: dir, env: {}, configFile: 'broken.json' })).rejects.toThrow(
      /config file ".*broken.json" is not valid JSON/,
    );
    await expect(resolveCompositionConfig({ cwd: dir, env: {}, configFile: 'missing.json' })).rejects.toThrow(
      /cannot read config file ".*missing.json"/,
    );
  });

  it('sessionctx config --json prints the effective values and their sources', async () => {
    writeFileSync(join(dir, 'custom.json'), JSON.stringify({ candidateLimit: 5 }));
    const { stdout } = await run(process.execPath, [BIN, 'config', '--config', join(dir, 'custom.json'), '--root', dir, '--json'], {
      env: { ...process.env, SESSIONCTX_MAX_REFERENCES: '2' },
    });
    const printed = JSON.parse(stdout) as { config: Record<string, unknown>; sources: Record<string, string>; file: string };
    expect(printed.config).toMatchObject({ root: dir, maxReferences: 2, candidateLimit: 5 });
    expect(printed.sources).toMatchObject({ root: 'flag', maxReferences: 'env', candidateLimit: 'file', maxReferenceBytes: 'default' });
    expect(printed.file).toBe(join(dir, 'custom.json'));
  });

  it('a bad configuration fails every command with the JSON error object and exit 1', async () => {
    const failure = await run(process.execPath, [BIN, 'sessions', '--root', dir, '--json'], {
      env: { ...process.env, SESSIONCTX_MAX_REFERENCES: '9' },
    }).catch((error: { code: number; stdout: string }) => error);
    expect((failure as { code: number }).code).toBe(1);
    expect(JSON.parse((failure as { stdout: string }).stdout)).toEqual({
      error: {
        code: 'SESSIONCTX_INVALID_CONFIG',
        message: 'maxReferences from environment SESSIONCTX_MAX_REFERENCES must not exceed 3, got "9"',
      },
    });
  });
});

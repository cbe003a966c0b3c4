/**
 * The `corpusIndex` namespace in the composition's configuration (issue 29): resolved once with the rest, by the
 * fleet's rules; the URL from the file or `SESSIONCTX_DATABASE_URL` (which wins); a bad backend, URL or namespace fails
 * start-up with `FLEET_INVALID_CONFIG` naming the key, never the value; and no printed form of the configuration
 * (`describeConfig`, `sessionctx config --json`'s object) ever carries the password.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeConfig, resolveCompositionConfig } from '../../../../src/main/engine/config/composition-config.js';

const SECRET = 's3cr3t-never-printed';
const FILE_URL = `postgresql://fleet:${SECRET}@db.internal:5433/sessions?sslmode=require`;
const ENV_URL = `postgres://other:${SECRET}-env@10.0.0.9/corpus`;

describe('corpusIndex in the composition', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sessionctx-corpus-index-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function writeConfig(corpusIndex: unknown): void {
    writeFileSync(join(dir, 'sessionctx.config.json'), JSON.stringify({ corpusIndex }));
  }

  it('defaults to the embedded sqlite index', async () => {
    const resolved = await resolveCompositionConfig({ cwd: dir, env: {} });
    expect(resolved.corpusIndex).toEqual({ backend: 'sqlite' });
    expect(resolved.sources.corpusIndex).toBe('default');
  });

  it('postgres with the URL from the file, host named; nothing printed shows the password', async () => {
    writeConfig({ backend: 'postgres', databaseUrl: FILE_URL, host: 'box-7' });
    const resolved = await resolveCompositionConfig({ cwd: dir, env: {} });
    const { corpusIndex } = resolved;
    if (corpusIndex.backend !== 'postgres') throw new Error('expected postgres');
    expect(corpusIndex.databaseUrl.reveal()).toBe(FILE_URL);
    expect(corpusIndex.databaseUrlSource).toBe('file');
    expect(corpusIndex.host).toBe('box-7');
    expect(resolved.sources.corpusIndex).toBe('file');
    const printed = [describeConfig(resolved).join('\n'), JSON.stringify(resolved.config), JSON.stringify(resolved.corpusIndex)];
    for (const text of printed) expect(text).not.toContain(SECRET);
    expect(describeConfig(resolved).find((line) => line.startsWith('corpusIndex = '))).toContain('db.internal:5433/sessions');
  });

  it('SESSIONCTX_DATABASE_URL wins over the file', async () => {
    writeConfig({ backend: 'postgres', databaseUrl: FILE_URL });
    const resolved = await resolveCompositionConfig({ cwd: dir, env: { SESSIONCTX_DATABASE_URL: ENV_URL } });
    if (resolved.corpusIndex.backend !== 'postgres') throw new Error('expected postgres');
    expect(resolved.corpusIndex.databaseUrl.reveal()).toBe(ENV_URL);
    expect(resolved.corpusIndex.databaseUrlSource).toBe('env');
  });

  it('SESSIONCTX_CORPUS_INDEX names the backend over the file', async () => {
    writeConfig({ backend: 'sqlite', host: 'box-8' });
    const resolved = await resolveCompositionConfig({
      cwd: dir,
      env: { SESSIONCTX_CORPUS_INDEX: 'postgres', SESSIONCTX_DATABASE_URL: ENV_URL },
    });
    expect(resolved.corpusIndex).toMatchObject({ backend: 'postgres', host: 'box-8', databaseUrlSource: 'env' });
    // `sessionctx config` shows what is in force, redacted.
    const line = describeConfig(resolved).find((each) => each.startsWith('corpusIndex = '));
    expect(line).toContain('"backend":"postgres"');
    expect(line).toContain('postgres://other:***@10.0.0.9/corpus');
    expect(line).not.toContain(SECRET);
    writeConfig({ backend: 'postgres', databaseUrl: FILE_URL });
    expect((await resolveCompositionConfig({ cwd: dir, env: { SESSIONCTX_CORPUS_INDEX: 'sqlite' } })).corpusIndex).toEqual({
      backend: 'sqlite',
    });
  });

  it.each([
    [{}, { SESSIONCTX_CORPUS_INDEX: 'postgresql' }, "invalid corpusIndex config: SESSIONCTX_CORPUS_INDEX must be 'sqlite' or 'postgres'"],
    [{ backend: 'mysql' }, {}, "invalid corpusIndex config: corpusIndex.backend must be 'sqlite' or 'postgres'"],
    [
      { backend: 'postgres', databaseUrl: `mysql://u:${SECRET}@h/d` },
      {},
      'invalid corpusIndex config: corpusIndex.databaseUrl must be a postgres:// or postgresql:// URL',
    ],
    [
      { backend: 'postgres' },
      {},
      'invalid corpusIndex config: the postgres backend needs corpusIndex.databaseUrl or SESSIONCTX_DATABASE_URL',
    ],
    [
      { backend: 'postgres' },
      { SESSIONCTX_DATABASE_URL: `http://u:${SECRET}@h/` },
      'invalid corpusIndex config: SESSIONCTX_DATABASE_URL must be a postgres:// or postgresql:// URL',
    ],
    [
      { backend: 'postgres', port: 5432 },
      { SESSIONCTX_DATABASE_URL: ENV_URL },
      'invalid corpusIndex config: corpusIndex has unknown keys (port); known: backend, databaseUrl, host',
    ],
  ])('%j with %j fails start-up typed, naming the key and not the value', async (corpusIndex, env, message) => {
    writeConfig(corpusIndex);
    const failure = await resolveCompositionConfig({ cwd: dir, env }).catch((error: unknown) => error as Error & { code?: string });
    expect(failure).toMatchObject({ name: 'FleetError', code: 'FLEET_INVALID_CONFIG' });
    expect((failure as Error).message.startsWith(message)).toBe(true);
    expect((failure as Error).message).not.toContain(SECRET);
  });

  it('a namespace that is not an object is the composition key error', async () => {
    writeConfig('postgres');
    await expect(resolveCompositionConfig({ cwd: dir, env: {} })).rejects.toMatchObject({
      code: 'SESSIONCTX_INVALID_CONFIG',
      message: expect.stringContaining('corpusIndex from config file') as unknown as string,
    });
  });
});

// The `serve` namespace (docs/WEB.md, README configuration table): `{"port": N}` with N a whole number from 0 to 65535,
// default 0 (any free port); any other value fails loudly with SESSIONCTX_INVALID_CONFIG naming the key and the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCompositionConfig } from '../../../../src/main/engine/config/composition-config.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-serve-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function withFile(values: unknown): string {
  const path = join(dir, 'sessionctx.config.json');
  writeFileSync(path, JSON.stringify(values));
  return path;
}

describe('serve.port', () => {
  it('defaults to 0 (any free port)', async () => {
    const resolved = await resolveCompositionConfig({ cwd: dir, env: {} });
    expect(resolved.config.serve).toEqual({ port: 0 });
    expect(resolved.sources.serve).toBe('default');
  });

  it.each([0, 8737, 65535])('%j from the file is taken', async (port) => {
    withFile({ serve: { port } });
    const resolved = await resolveCompositionConfig({ cwd: dir, env: {} });
    expect(resolved.config.serve).toEqual({ port });
    expect(resolved.sources.serve).toBe('file');
  });

  it('an empty serve object keeps the default port', async () => {
    withFile({ serve: {} });
    expect((await resolveCompositionConfig({ cwd: dir, env: {} })).config.serve).toEqual({ port: 0 });
  });

  it.each([-1, 65536, 1.5, '8080', null, true])('port %j fails with SESSIONCTX_INVALID_CONFIG', async (port) => {
    const path = withFile({ serve: { port } });
    const failure = resolveCompositionConfig({ cwd: dir, env: {} });
    await expect(failure).rejects.toMatchObject({ code: 'SESSIONCTX_INVALID_CONFIG' });
    await expect(failure).rejects.toThrow(
      `serve from config file ${JSON.stringify(path)} must be an object whose "port" is a whole number from 0 to 65535`,
    );
  });

  it.each([[8080], [{ port: 1, host: 'x' }]])('serve %j (not an object of port only) fails', async (serve) => {
    const path = withFile({ serve });
    await expect(resolveCompositionConfig({ cwd: dir, env: {} })).rejects.toThrow(
      `serve from config file ${JSON.stringify(path)} must be an object whose only key is "port"`,
    );
  });
});

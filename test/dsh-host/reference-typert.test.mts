/**
 * The Web autocomplete's Remote method for dsh's typert loader (docs/DSH.md §5): the `./typert` export of the
 * installed package is found the way the loader finds it (`<package>/package.json`, `exports["./typert"]`), passes
 * the loader's own manifest validation, registers into dsh's typert registry, and names the method the service
 * marks with dsh's `@Remote('candidates')` decorator.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Context } from '@deepseek-ai/cordis';
import { remoteMethods } from '@deepseek-ai/dsh-typert-protocol';
import { validateTypertManifest } from '@deepseek-ai/dsh-typert-loader';
import TypertRegistry from '@deepseek-ai/dsh-typert-registry';
import SessionStore from '@deepseek-ai/dsh-session';
import SessionQueryEngine from '@deepseek-ai/dsh-session-query';
import SessionctxResolver from 'sessionctx/dsh';
import { describe, expect, it } from 'vitest';

describe('sessionctx/typert for dsh typert loader', () => {
  it('is found, validated and registered as the loader does it, and names the decorated Remote method', async () => {
    const require = createRequire(import.meta.url);
    const packageJson = require.resolve('sessionctx/package.json');
    const exportsField = JSON.parse(readFileSync(packageJson, 'utf8')).exports as Record<string, { default: string }>;
    const artifact = join(dirname(packageJson), exportsField['./typert']?.default ?? '');
    const manifest = validateTypertManifest('sessionctx', (await import(pathToFileURL(artifact).href)).TYPERT);
    expect(manifest.invocations.map((invocation) => `${invocation.namespace}/${invocation.method}`)).toEqual([
      'sessionReferenceResolver/candidates',
    ]);

    const ctx = new Context();
    await ctx.plugin(TypertRegistry);
    await ctx.plugin(SessionStore);
    await ctx.plugin(SessionQueryEngine as never, {} as never);
    await ctx.plugin(SessionctxResolver);
    try {
      const unregister = ctx.typert.register(manifest);
      expect(ctx.typert.getPackage('sessionctx', 'host')).toBeDefined();
      // What the gateway calls: the implementation member the manifest names is the service's decorated Remote method.
      const service = ctx.sessionReferenceResolver;
      expect(remoteMethods(service)).toEqual([
        { method: 'remoteExportCandidates', exportName: 'candidates', invocation: { kind: 'direct' } },
      ]);
      expect(manifest.invocations[0]?.implementation).toBe('remoteExportCandidates');
      expect(service.typertRemote).toMatchObject({ serviceKey: 'sessionReferenceResolver', namespace: 'sessionReferenceResolver' });
      // The result codec accepts what the method returns.
      const target = ctx.sessions.create();
      ctx.sessions.create(undefined, { meta: { cwd: '/w' } });
      const candidates = await service.remoteExportCandidates(
        { id: target.id, session: target } as never,
        '',
        new AbortController().signal,
      );
      expect(candidates).toHaveLength(1);
      expect(() => (manifest.invocations[0]?.result as { schema: { parse(v: unknown): unknown } }).schema.parse(candidates)).not.toThrow();
      unregister();
    } finally {
      await ctx.fiber.dispose();
    }
  });
});

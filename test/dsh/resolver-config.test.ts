/**
 * The `sessionctx/dsh` configuration (docs/DSH.md §3): dsh's three keys keep dsh's rules and messages; sessionctx's
 * own keys are checked in the same voice; the schemastery schema a dsh Loader applies has the same bounds.
 */
import { describe, expect, it } from 'vitest';
import { dshResolverConfigSchema, resolveDshResolverConfig } from '../../src/dsh/resolver-config.js';
import { thrown } from '../support/thrown.js';

function failure(config: unknown): { code: unknown; message: string } {
  const error = thrown(() => resolveDshResolverConfig(config)) as { code?: unknown; message: string };
  return { code: error.code, message: error.message };
}

describe('sessionctx/dsh configuration', () => {
  it('takes dsh defaults and leaves the engine keys unset', () => {
    const resolved = resolveDshResolverConfig({});
    expect(resolved.reference).toEqual({ maxReferences: 3, candidateLimit: 50, maxReferenceBytes: 65536 });
    expect(resolved).toMatchObject({ reads: undefined, root: undefined, compression: undefined, workers: true, poolSize: undefined });
    expect(resolveDshResolverConfig(undefined).reference.maxReferences).toBe(3);
  });

  it("refuses dsh's keys with dsh's messages (SESSION_REFERENCE_INVALID_CONFIG)", () => {
    expect(failure({ maxReferences: 0 })).toEqual({
      code: 'SESSION_REFERENCE_INVALID_CONFIG',
      message: 'session-reference: maxReferences must be a positive safe integer',
    });
    expect(failure({ maxReferences: 4 })).toEqual({
      code: 'SESSION_REFERENCE_INVALID_CONFIG',
      message: 'session-reference: maxReferences must not exceed 3',
    });
    expect(failure({ candidateLimit: 1.5 }).message).toBe('session-reference: candidateLimit must be a positive safe integer');
    expect(failure({ maxReferenceBytes: '65536' }).message).toBe('session-reference: maxReferenceBytes must be a positive safe integer');
  });

  it("refuses sessionctx's keys in the same voice, naming the key", () => {
    const cases: Array<[unknown, string]> = [
      ['not an object', 'session-reference: config must be an object'],
      [{ reads: 'disk' }, 'session-reference: reads must be "engine" or "host"'],
      [{ root: '' }, 'session-reference: root must be a non-empty string'],
      [{ root: 7 }, 'session-reference: root must be a non-empty string'],
      [{ compression: 'gzip' }, 'session-reference: compression must be "zstd" or "none"'],
      [{ workers: 'yes' }, 'session-reference: workers must be a boolean'],
      [{ maxreferences: 2 }, 'session-reference: unknown option "maxreferences"'],
    ];
    for (const [config, message] of cases) expect(failure(config)).toEqual({ code: 'SESSION_REFERENCE_INVALID_CONFIG', message });
    for (const [config, key] of [
      [{ poolSize: 0 }, 'poolSize'],
      [{ sourceCache: { maxBytes: -1 } }, 'sourceCache'],
      [{ corpus: { watch: 'no' } }, 'corpus'],
    ] as const) {
      const found = failure(config);
      expect(found.code).toBe('SESSION_REFERENCE_INVALID_CONFIG');
      expect(found.message.startsWith(`session-reference: ${key} is invalid: `)).toBe(true);
    }
  });

  it('accepts every documented key', () => {
    const resolved = resolveDshResolverConfig({
      maxReferences: 2,
      candidateLimit: 5,
      maxReferenceBytes: 1000,
      reads: 'host',
      root: '/srv/sessions',
      compression: 'none',
      workers: false,
      poolSize: 1,
      sourceCache: false,
      corpus: { watch: false, revalidateMs: 0 },
    });
    expect(resolved).toMatchObject({ reads: 'host', root: '/srv/sessions', compression: 'none', workers: false, poolSize: 1 });
    expect(resolved.reference).toEqual({ maxReferences: 2, candidateLimit: 5, maxReferenceBytes: 1000 });
  });

  it('gives a dsh Loader a schemastery schema with the same defaults and bounds', () => {
    // schemastery fills an all-optional object key with `{}`, which the engine reads as its defaults.
    expect(dshResolverConfigSchema({})).toEqual({
      maxReferences: 3,
      candidateLimit: 50,
      maxReferenceBytes: 65536,
      workers: true,
      corpus: {},
    });
    expect(() => resolveDshResolverConfig(dshResolverConfigSchema({}))).not.toThrow();
    expect(() => dshResolverConfigSchema({ maxReferences: 4 })).toThrow();
    expect(() => dshResolverConfigSchema({ reads: 'disk' } as never)).toThrow();
    expect(dshResolverConfigSchema({ reads: 'host', root: '/r' })).toMatchObject({ reads: 'host', root: '/r' });
    // What the schema lets through, the constructor accepts.
    expect(() => resolveDshResolverConfig(dshResolverConfigSchema({ poolSize: 2, sourceCache: false }))).not.toThrow();
  });
});

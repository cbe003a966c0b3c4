/**
 * Configuration as schemas (issue 14 item 5): each rule is written once and reads the same wherever it applies —
 * the composition (file, environment, flags) and the reference service refuse the same values with the same
 * reason; the DCP namespace reports the first bad key in DCP.md §16 table order even across the `nudge` group's
 * cross-key rule; a resolved DCP configuration is handed on, not resolved again. Expected texts are written out
 * from SESSION-REFERENCE.md §3, DCP.md §16 and the README's list of SESSIONCTX_* variables.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCompositionConfig } from '../../../../src/main/engine/config/composition-config.js';
import { parseStoredDcpCommand } from '../../../../src/main/stand-in/compose/stored-dcp-session.js';
import { dcpPlugin } from '../../../../src/main/engine/dcp/dcp-plugin.js';
import { resolveReferenceConfig } from '../../../../src/main/engine/reference/reference-config.js';
import { resolveDcpConfig } from '../../../../src/protocol/dcp/config.js';
import type { PluginContext } from '../../../../src/main/host-api/host-api.js';

function failureOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

describe('one rule per key across the composition and the reference service', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sessionctx-schemas-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([0, -1, 1.5, 2 ** 53, 'many'])('maxReferenceBytes %j: both say "must be a positive safe integer"', async (value) => {
    const service = failureOf(() => resolveReferenceConfig({ maxReferenceBytes: value }));
    expect(service.message).toBe('session-reference: maxReferenceBytes must be a positive safe integer');
    writeFileSync(join(dir, 'sessionctx.config.json'), JSON.stringify({ maxReferenceBytes: value }));
    await expect(resolveCompositionConfig({ cwd: dir, env: {} })).rejects.toThrow(
      `maxReferenceBytes from config file ${JSON.stringify(join(dir, 'sessionctx.config.json'))} must be a positive safe integer, got ${JSON.stringify(value)}`,
    );
  });

  it('maxReferences 4: both say "must not exceed 3"; 3 is accepted by both', async () => {
    expect(failureOf(() => resolveReferenceConfig({ maxReferences: 4 })).message).toBe(
      'session-reference: maxReferences must not exceed 3',
    );
    await expect(resolveCompositionConfig({ cwd: dir, env: {}, flags: { maxReferences: 4 } })).rejects.toThrow(
      'maxReferences from flag --max-references must not exceed 3, got 4',
    );
    expect(resolveReferenceConfig({ maxReferences: 3 }).maxReferences).toBe(3);
    expect((await resolveCompositionConfig({ cwd: dir, env: {}, flags: { maxReferences: 3 } })).config.maxReferences).toBe(3);
  });

  it('each key has its SESSIONCTX_* variable, and a file names the known keys', async () => {
    const env = {
      SESSIONCTX_ROOT: '/r',
      SESSIONCTX_MAX_REFERENCES: '2',
      SESSIONCTX_MAX_REFERENCE_BYTES: '100',
      SESSIONCTX_CANDIDATE_LIMIT: '7',
      SESSIONCTX_POOL_SIZE: '1',
    };
    const resolved = await resolveCompositionConfig({ cwd: dir, env });
    expect(resolved.config).toEqual({
      root: '/r',
      maxReferences: 2,
      maxReferenceBytes: 100,
      candidateLimit: 7,
      poolSize: 1,
      dcp: {},
      mcp: { tools: true },
      search: {
        enabled: true,
        includeTools: false,
        defaultLimit: 20,
        maxLimit: 100,
        hitsPerSession: 3,
        snippetLength: 160,
        busyTimeoutMs: 5000,
      },
      corpusIndex: {},
      serve: { port: 0 },
    });
    expect(resolved.sources).toEqual({
      root: 'env',
      maxReferences: 'env',
      maxReferenceBytes: 'env',
      candidateLimit: 'env',
      poolSize: 'env',
      dcp: 'default',
      mcp: 'default',
      search: 'default',
      corpusIndex: 'default',
      serve: 'default',
    });
    writeFileSync(join(dir, 'sessionctx.config.json'), JSON.stringify({ limit: 1 }));
    await expect(resolveCompositionConfig({ cwd: dir, env: {} })).rejects.toThrow(
      'known: root, maxReferences, maxReferenceBytes, candidateLimit, poolSize, dcp, mcp, search, corpusIndex, serve',
    );
  });
});

describe('DCP: the first bad key in table order, across the nudge group rule', () => {
  it.each([
    [{ nudge: { minRatio: 0.9, frequencySteps: 1.5 } }, 'dcp config: nudge.minRatio must be a number >= 0 and < nudge.maxRatio (0.8)'],
    [
      { nudge: { maxRatio: 0.5, minRatio: 0.5, iterationThreshold: 1.5 } },
      'dcp config: nudge.minRatio must be a number >= 0 and < nudge.maxRatio (0.5)',
    ],
    [{ nudge: { maxRatio: 1.5, minRatio: 2 } }, 'dcp config: nudge.maxRatio must be a number > 0 and <= 1'],
    [{ nudge: { enabled: 1, minRatio: 2 } }, 'dcp config: nudge.enabled must be a boolean'],
    [{ references: { hintCount: 1.5, maxAliasEntries: -1 } }, 'dcp config: references.maxAliasEntries must be an integer >= 0'],
    [{ enabled: 'yes', compress: 5 }, 'dcp config: compress must be an object'],
    [{ compress: { protectedTools: ['a', 3] } }, 'dcp config: compress.protectedTools must be an array of at most 64 strings'],
  ])('%j', (raw, message) => {
    expect(failureOf(() => resolveDcpConfig(raw)).message).toBe(message);
  });
});

describe('resolved once', () => {
  it('the dcp namespace is resolved with the rest of the configuration: an invalid one fails start-up, a valid one is handed on resolved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-once-'));
    try {
      writeFileSync(join(dir, 'sessionctx.config.json'), JSON.stringify({ dcp: { enabled: 'yes' } }));
      await expect(resolveCompositionConfig({ cwd: dir, env: {} })).rejects.toMatchObject({
        code: 'DCP_CONFIG_INVALID',
        message: 'dcp config: enabled must be a boolean',
      });
      writeFileSync(join(dir, 'sessionctx.config.json'), JSON.stringify({ dcp: { compress: { enabled: false }, nosuchkey: 1 } }));
      const resolved = await resolveCompositionConfig({ cwd: dir, env: {} });
      expect(resolved.dcp.config.compress.enabled).toBe(false);
      expect(resolved.dcp.config.enabled).toBe(true);
      expect(resolved.dcp.warnings).toEqual(['dcp config: unknown keys ignored: nosuchkey']);
      expect(Object.isFrozen(resolved.dcp.config)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a DCP plugin given a resolved configuration mounts with it and never reads ctx.config', () => {
    const read: string[] = [];
    const warnings: string[] = [];
    const sections: unknown[] = [];
    const context: PluginContext = {
      on: () => () => undefined,
      registerTool: () => undefined,
      registerCommand: () => undefined,
      registerSystemSection: (section) => void sections.push(section),
      config: <T>(namespace: string): T | undefined => {
        read.push(namespace);
        return { enabled: 'not a boolean' } as T;
      },
      logger: { debug: () => undefined, info: () => undefined, warn: (text) => void warnings.push(text), error: () => undefined },
      sessions: undefined,
      sessionQuery: undefined,
      storage: undefined,
      dispose: () => undefined,
    };
    const plugin = dcpPlugin({ config: resolveDcpConfig({ compress: { maxRangesPerCall: 2 }, extra: 1 }) });
    plugin.apply(context);
    expect(read).toEqual([]);
    expect(warnings).toEqual(['dcp config: unknown keys ignored: extra']);
    expect(plugin.runtime?.config.compress.maxRangesPerCall).toBe(2);
    expect(sections).toHaveLength(1);
  });

  it('the /dcp line is parsed once, into the line the host logs and its command', () => {
    const parsed = parseStoredDcpCommand(' show b1 --raw ');
    expect(parsed.line).toBe('/dcp show b1 --raw');
    expect(parsed.command).toMatchObject({ kind: 'show', blockRef: 'b1', raw: true });
    expect(parseStoredDcpCommand('').line).toBe('/dcp');
    expect(failureOf(() => parseStoredDcpCommand('frobnicate'))).toMatchObject({ code: 'DCP_COMMAND_USAGE' });
  });
});

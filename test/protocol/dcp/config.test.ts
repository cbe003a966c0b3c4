import { describe, expect, it } from 'vitest';
import { DcpConfigError } from '../../../src/protocol/dcp/config-error.js';
import { resolveDcpConfig } from '../../../src/protocol/dcp/config.js';

// The defaults of DCP.md §16, written out from the table.
const DEFAULTS = {
  enabled: true,
  debug: false,
  compress: {
    enabled: true,
    mode: 'range',
    maxRangesPerCall: 3,
    minNetSavingsTokens: 256,
    retainRecentTurns: 2,
    protectUserMessages: false,
    protectTags: true,
    protectedTools: ['subagent', 'skill', 'todo_write'],
    protectedSources: ['subagent-report', 'subagent-settled'],
  },
  references: { transport: 'marker', maxAliasEntries: 32, hintCount: 3, excerptChars: 80 },
  nudge: { enabled: true, maxRatio: 0.8, minRatio: 0.6, frequencySteps: 8, iterationThreshold: 12 },
  manualMode: { default: false, automaticStrategies: false },
  strategies: {
    runAt: 'turn-start',
    deduplication: { enabled: true, protectedTools: [] },
    purgeErrors: { enabled: false, turns: 4, protectedTools: [] },
  },
  protectedFilePatterns: [],
  expansion: { maxWindowRatio: 0.25, maxTokens: 32000 },
  stats: { invalidationHistory: 10 },
  subagents: { enableCompressionInChild: false, readChildSession: false },
};

function configError(raw: unknown): DcpConfigError {
  try {
    resolveDcpConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(DcpConfigError);
    return error as DcpConfigError;
  }
  throw new Error('expected a DcpConfigError');
}

describe('§18 item 68: configuration', () => {
  it('{} and undefined → the §16 defaults, deep-frozen, no warnings', () => {
    for (const raw of [{}, undefined]) {
      const resolved = resolveDcpConfig(raw);
      expect(resolved.config).toEqual(DEFAULTS);
      expect(resolved.warnings).toEqual([]);
      expect(Object.isFrozen(resolved)).toBe(true);
      expect(Object.isFrozen(resolved.config.compress.protectedTools)).toBe(true);
      expect(Object.isFrozen(resolved.config.strategies.purgeErrors)).toBe(true);
    }
  });

  it('nudge {minRatio:.9, maxRatio:.8} throws; equal ratios throw', () => {
    expect(configError({ nudge: { minRatio: 0.9, maxRatio: 0.8 } }).message).toBe(
      'dcp config: nudge.minRatio must be a number >= 0 and < nudge.maxRatio (0.8)',
    );
    expect(configError({ nudge: { minRatio: 0.5, maxRatio: 0.5 } }).message).toBe(
      'dcp config: nudge.minRatio must be a number >= 0 and < nudge.maxRatio (0.5)',
    );
    expect(resolveDcpConfig({ nudge: { minRatio: 0, maxRatio: 1 } }).config.nudge).toMatchObject({ minRatio: 0, maxRatio: 1 });
    expect(configError({ nudge: { maxRatio: 0 } }).message).toBe('dcp config: nudge.maxRatio must be a number > 0 and <= 1');
  });

  it('maxRangesPerCall: 0 throws', () => {
    const error = configError({ compress: { maxRangesPerCall: 0 } });
    expect(error.message).toBe('dcp config: compress.maxRangesPerCall must be an integer >= 1');
    expect(error.key).toBe('compress.maxRangesPerCall');
    expect(error.code).toBe('DCP_CONFIG_INVALID');
  });

  it("mode:'message' and transport:'context-tool' throw (unsupported in v1)", () => {
    expect(configError({ compress: { mode: 'message' } }).message).toBe('dcp config: compress.mode unsupported in v1');
    expect(configError({ compress: { mode: 'slice' } }).message).toBe("dcp config: compress.mode must be 'range'");
    expect(configError({ references: { transport: 'context-tool' } }).message).toBe('dcp config: references.transport unsupported in v1');
  });

  it('either subagents flag true throws `unsupported in v1`', () => {
    expect(configError({ subagents: { enableCompressionInChild: true } }).message).toBe(
      'dcp config: subagents.enableCompressionInChild unsupported in v1',
    );
    expect(configError({ subagents: { readChildSession: true } }).message).toBe('dcp config: subagents.readChildSession unsupported in v1');
    expect(resolveDcpConfig({ subagents: { readChildSession: false } }).config.subagents.readChildSession).toBe(false);
  });

  it('unknown keys are listed in one warning, as dotted paths', () => {
    const resolved = resolveDcpConfig({
      permission: 'ask',
      compress: { summaryBuffer: 10, permission: 'x', maxRangesPerCall: 2 },
      pruneNotification: true,
      strategies: { deduplication: { extra: 1 } },
    });
    expect(resolved.warnings).toEqual([
      'dcp config: unknown keys ignored: permission, compress.summaryBuffer, compress.permission, pruneNotification, strategies.deduplication.extra',
    ]);
    expect(resolved.config.compress.maxRangesPerCall).toBe(2);
  });

  it('other constraints', () => {
    expect(configError({ enabled: 'yes' }).message).toBe('dcp config: enabled must be a boolean');
    expect(configError({ references: { hintCount: 17 } }).message).toBe(
      'dcp config: references.hintCount must be an integer between 0 and 16',
    );
    expect(resolveDcpConfig({ references: { maxAliasEntries: 0, hintCount: 0 } }).config.references).toMatchObject({
      maxAliasEntries: 0,
      hintCount: 0,
    });
    expect(configError({ stats: { invalidationHistory: 101 } }).message).toBe(
      'dcp config: stats.invalidationHistory must be an integer between 0 and 100',
    );
    expect(configError({ compress: { protectedTools: Array(65).fill('x') } }).message).toBe(
      'dcp config: compress.protectedTools must be an array of at most 64 strings',
    );
    expect(configError({ protectedFilePatterns: [1] }).message).toBe(
      'dcp config: protectedFilePatterns must be an array of at most 64 strings',
    );
    expect(configError({ strategies: { runAt: 'sometimes' } }).message).toBe(
      "dcp config: strategies.runAt must be one of 'turn-start', 'every-step', 'with-compress'",
    );
    expect(configError({ expansion: { maxWindowRatio: 1.5 } }).message).toBe(
      'dcp config: expansion.maxWindowRatio must be a number > 0 and <= 1',
    );
    expect(configError({ compress: 5 }).message).toBe('dcp config: compress must be an object');
    expect(configError('x').message).toBe('dcp config: dcp must be an object');
    expect(configError({ compress: { retainRecentTurns: 1.5 } }).message).toBe(
      'dcp config: compress.retainRecentTurns must be an integer >= 1',
    );
  });

  it('the caller’s arrays are copied, not frozen', () => {
    const tools = ['read'];
    const resolved = resolveDcpConfig({ compress: { protectedTools: tools } });
    expect(resolved.config.compress.protectedTools).toEqual(['read']);
    expect(Object.isFrozen(tools)).toBe(false);
    expect(
      resolveDcpConfig({ strategies: { runAt: 'with-compress', purgeErrors: { enabled: true, turns: 1 } } }).config.strategies,
    ).toEqual({
      runAt: 'with-compress',
      deduplication: { enabled: true, protectedTools: [] },
      purgeErrors: { enabled: true, turns: 1, protectedTools: [] },
    });
  });
});

/**
 * The schemastery `Config` of `sessionctx/dsh-dcp` (docs/DSH-DCP.md §5) against DCP's own table (DCP.md §16): the
 * same keys, DCP's defaults, unknown keys kept for DCP's warning, and every rule left to DCP's own voice.
 */
import { describe, expect, it } from 'vitest';
import { dshDcpConfigSchema } from '../../src/dsh-dcp/dsh-dcp-config.js';
import { dcpConfigKeys, resolveDcpConfig } from '../../src/protocol/dcp/config.js';

/** The dotted leaf keys of a schemastery object schema. */
function schemaKeys(schema: { type: string; dict?: Record<string, unknown> }, prefix = ''): string[] {
  if (schema.type !== 'object' || schema.dict === undefined) return [prefix];
  return Object.entries(schema.dict).flatMap(([key, child]) =>
    schemaKeys(child as { type: string; dict?: Record<string, unknown> }, prefix === '' ? key : `${prefix}.${key}`),
  );
}

describe('the dsh Config of the dcp namespace', () => {
  it("declares exactly DCP's keys, in DCP's order", () => {
    expect(schemaKeys(dshDcpConfigSchema as unknown as { type: string; dict: Record<string, unknown> })).toEqual([...dcpConfigKeys()]);
  });

  it("fills in DCP's defaults: an empty row resolves to DCP's defaults", () => {
    const filled = dshDcpConfigSchema({});
    expect(resolveDcpConfig(filled)).toEqual(resolveDcpConfig(undefined));
    expect(resolveDcpConfig(filled).warnings).toEqual([]);
  });

  it("keeps what a profile wrote, unknown keys included (DCP warns about them), and leaves the rules to DCP's resolution", () => {
    const filled = dshDcpConfigSchema({ compress: { maxRangesPerCall: 0, summaryBuffer: 1 }, permission: 'ask' });
    expect(() => resolveDcpConfig(filled)).toThrow('dcp config: compress.maxRangesPerCall must be an integer >= 1');
    const kept = dshDcpConfigSchema({ compress: { maxRangesPerCall: 5, summaryBuffer: 1 }, permission: 'ask' });
    expect(resolveDcpConfig(kept).warnings).toEqual(['dcp config: unknown keys ignored: compress.summaryBuffer, permission']);
    expect(resolveDcpConfig(kept).config.compress.maxRangesPerCall).toBe(5);
    for (const refused of [
      { compress: { mode: 'message' } },
      { references: { transport: 'context-tool' } },
      { subagents: { readChildSession: true } },
    ]) {
      expect(() => resolveDcpConfig(dshDcpConfigSchema(refused))).toThrow(/^dcp config: .* unsupported in v1$/);
    }
  });
});

/**
 * `sessionctx prepare` over budget: the failure keeps dsh's exact message and code, and says which source did not
 * fit and the least `--max-bytes` that fits it — as `details` with `--json`, as a hint line without. Preparing with
 * that budget succeeds; with one byte less it fails.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatSessionReferenceMention } from '../../../../src/protocol/uri/mention-formatter.js';
import { RAW_ROOT } from '../../../support/fixtures.js';
import { runBuiltCli } from '../../../support/cli-process.js';
import type { CliOutcome } from '../../../support/cli-process.js';

/** The source of the fixtures' recorded over-budget cases. */
const SOURCE = 'session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca';
const DSH_MESSAGE = 'referenced session snapshot cannot fit the configured byte budget';

describe('sessionctx prepare over budget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-prepare-budget-'));
  const root = join(dir, 'root');
  cpSync(RAW_ROOT, root, { recursive: true, filter: (source) => !source.endsWith('.sessionctx-title-index.v1') });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const message = `Build on ${formatSessionReferenceMention({ sessionId: SOURCE, label: 'training' })}`;

  function prepare(maxBytes: number, json: boolean): Promise<CliOutcome> {
    return runBuiltCli([
      'prepare',
      '--root',
      root,
      '--target',
      'session-new-conversation',
      '--max-bytes',
      String(maxBytes),
      message,
      ...(json ? ['--json'] : []),
    ]);
  }

  it('names the source and the least budget; that budget works and one byte less does not', async () => {
    const failed = await prepare(100, true);
    expect(failed.code).toBe(1);
    const error = (
      JSON.parse(failed.stdout) as {
        error: { code: string; message: string; details: { sourceSessionId: string; minimumBudgetBytes: number } };
      }
    ).error;
    expect({ code: error.code, message: error.message }).toEqual({ code: 'SESSION_REFERENCE_BUDGET_EXCEEDED', message: DSH_MESSAGE });
    expect(Object.keys(error.details)).toEqual(['sourceSessionId', 'minimumBudgetBytes']);
    expect(error.details.sourceSessionId).toBe(SOURCE);
    const minimum = error.details.minimumBudgetBytes;
    expect(minimum).toBeGreaterThan(100);

    const fits = await prepare(minimum, true);
    expect(fits.code).toBe(0);
    const prepared = JSON.parse(fits.stdout) as { additionalContext: { source: { references: Array<{ sessionId: string }> } } };
    expect(prepared.additionalContext.source.references.map((reference) => reference.sessionId)).toEqual([SOURCE]);

    const below = await prepare(minimum - 1, false);
    expect(below.code).toBe(1);
    expect(below.stdout).toBe('');
    expect(below.stderr).toBe(
      `sessionctx: error: ${DSH_MESSAGE} (SESSION_REFERENCE_BUDGET_EXCEEDED)\n` +
        `  hint: session ${JSON.stringify(SOURCE)} fits with maxReferenceBytes ${minimum} or more (--max-bytes ${minimum})\n`,
    );
  });
});

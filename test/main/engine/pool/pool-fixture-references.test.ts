/**
 * dsh's expected/references.json (68 cases) through the real worker pool: the pool renderer must give
 * the fixture's bytes (message ids aside, D3 cases as in test/main/engine/reference/fixture-references.test.ts)
 * and exactly what the in-thread renderer gives for the same case, error or context.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ContentBlock } from '../../../../src/protocol/events.js';
import { RAW_ROOT, ZSTD_ROOT, readExpected } from '../../../support/fixtures.js';
import { openStore, serviceWith, testPool } from './pool-builders.js';

interface ReferenceCase {
  name: string;
  target: { id: string; cwd?: string };
  references: unknown[];
  config: Record<string, number>;
  content: ContentBlock[];
  result: {
    content?: unknown;
    additionalContext?: { source: unknown; content: unknown; role: string };
    error?: { name: string; code: string; message: string };
  };
}

/** The cases where SESSION-REFERENCE.md D3 keeps an omission notice that dsh dropped (see the in-thread fixture test). */
const D3_DIVERGENT_CASES = new Set([
  'budget-512:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
  'budget-300:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
  'budget-400-compacted:session-547c4005-0b6e-49a0-9497-6be9b6b464cd',
]);

type Outcome =
  | { value: { content: unknown; additionalContext?: Record<string, unknown> } }
  | { error: { name: string; code: string; message: string; cause?: unknown } };

function targetOf(target: { id: string; cwd?: string }): { id: string; session: { header: { cwd?: string } } } {
  return { id: target.id, session: { header: target.cwd === undefined ? {} : { cwd: target.cwd } } };
}

/** The outcome with the context's random id removed, as comparable JSON. */
function comparable(outcome: Outcome): string {
  if ('error' in outcome) {
    const cause = outcome.error.cause as { name?: unknown; code?: unknown; message?: unknown } | undefined;
    return JSON.stringify({
      name: outcome.error.name,
      code: outcome.error.code,
      message: outcome.error.message,
      cause: cause === undefined ? null : { name: cause.name, code: cause.code, message: cause.message },
    });
  }
  const { additionalContext, ...rest } = outcome.value;
  if (additionalContext === undefined) return JSON.stringify(rest);
  const { id: _id, ...context } = additionalContext;
  return JSON.stringify({ ...rest, additionalContext: context });
}

const pool = testPool();
afterAll(() => pool.close());

describe.each([
  ['raw', RAW_ROOT, 'none' as const],
  ['zstd', ZSTD_ROOT, 'zstd' as const],
])('expected/references.json through the pool (%s)', (_name, root, compression) => {
  const cases = readExpected<ReferenceCase[]>('references.json');

  it('has the 68 cases the fixture README promises', () => {
    expect(cases).toHaveLength(68);
  });

  it.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', async (_caseName, testCase) => {
    const store = await openStore(root, compression);
    const pooled = serviceWith('pool', pool, { storage: store, config: testCase.config }).service;
    const inThread = serviceWith('in-thread', undefined, { storage: store, config: testCase.config }).service;
    const run = (service: typeof pooled): Promise<Outcome> =>
      service.prepare(targetOf(testCase.target), testCase.content, testCase.references).then(
        (value) => ({ value: value as unknown as { content: unknown; additionalContext?: Record<string, unknown> } }),
        (error: unknown) => ({ error: error as { name: string; code: string; message: string } }),
      );
    const [ours, reference] = await Promise.all([run(pooled), run(inThread)]);
    expect(comparable(ours)).toBe(comparable(reference));

    if (testCase.result.error !== undefined) {
      expect('error' in ours).toBe(true);
      const { name, code, message } = (ours as { error: { name: string; code: string; message: string } }).error;
      expect({ name, code, message }).toEqual(testCase.result.error);
      return;
    }
    expect('value' in ours, JSON.stringify((ours as { error?: unknown }).error)).toBe(true);
    const { value } = ours as { value: { content: unknown; additionalContext?: Record<string, unknown> } };
    expect(JSON.stringify(value.content)).toBe(JSON.stringify(testCase.result.content));
    if (testCase.result.additionalContext === undefined) {
      expect(Object.keys(value)).toEqual(['content']);
      return;
    }
    const { id, ...withoutId } = value.additionalContext as Record<string, unknown>;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    if (!D3_DIVERGENT_CASES.has(testCase.name)) expect(JSON.stringify(withoutId)).toBe(JSON.stringify(testCase.result.additionalContext));
  });
});

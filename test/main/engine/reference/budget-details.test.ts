/**
 * `SESSION_REFERENCE_BUDGET_EXCEEDED` keeps dsh's exact text (the dsh-small fixtures pin it) and names the source that
 * did not fit and the least `maxReferenceBytes` that fits it: preparing again with exactly that budget succeeds, and
 * with one byte less fails. The same figures come from every renderer: in-thread, the pool on real worker threads,
 * and the pool renderer on the in-thread runner.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import type { TaskRunner } from '../../../../src/main/engine/pool/task-runner.js';
import type { SessionReferenceService } from '../../../../src/main/engine/reference/session-reference-service.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { SessionReferenceError } from '../../../../src/protocol/reference-errors.js';
import { RAW_ROOT, readExpected } from '../../../support/fixtures.js';
import { inThreadRunner, serviceWith, testPool } from '../pool/pool-builders.js';
import type { RendererKind } from '../pool/pool-builders.js';
import { header, promptData, target, userEvent } from './reference-builders.js';

const pool = testPool();
const fallback = inThreadRunner();
afterAll(() => Promise.all([pool.close(), fallback.close()]));

const RENDERERS: ReadonlyArray<[RendererKind, TaskRunner | undefined]> = [
  ['in-thread', undefined],
  ['pool', pool],
  ['in-thread runner', fallback],
];

/** dsh's text for every budget failure, as the fixtures recorded it. */
const DSH_BUDGET_ERROR = (() => {
  const cases =
    readExpected<Array<{ name: string; result: { error?: { name: string; code: string; message: string } } }>>('references.json');
  const error = cases.find((entry) => entry.name === 'budget-100:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca')?.result.error;
  if (error === undefined) throw new Error('the fixture case budget-100 is missing');
  return error;
})();

/** The fixture sessions of the recorded over-budget cases. */
const SMALL = 'session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca';
const OTHER = 'session-9d029d81-e515-48ac-b168-fef7011f3491';
const CONTENT = [{ type: 'text' as const, text: 'see the referenced sessions' }];

/** The rejection of `promise`, which must be a budget error with dsh's name, code and text. */
async function budgetError(promise: Promise<unknown>): Promise<SessionReferenceError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(SessionReferenceError);
  const typed = error as SessionReferenceError;
  expect({ name: typed.name, code: typed.code, message: typed.message }).toEqual(DSH_BUDGET_ERROR);
  return typed;
}

describe.each(RENDERERS)('renderer: %s', (kind, runner) => {
  const services = new Map<number, SessionReferenceService>();
  async function fixtureService(maxReferenceBytes: number): Promise<SessionReferenceService> {
    const cached = services.get(maxReferenceBytes);
    if (cached !== undefined) return cached;
    const storage = await JsonlSessionStore.open({ root: RAW_ROOT, compression: 'none', titleIndex: false });
    const { service } = serviceWith(kind, runner, { storage, config: { maxReferenceBytes } });
    services.set(maxReferenceBytes, service);
    return service;
  }

  it('a stored source: the least budget fits, one byte less does not', async () => {
    const references = [{ sessionId: SMALL }];
    const error = await budgetError((await fixtureService(100)).prepare(target(), CONTENT, references));
    expect(error.sourceSessionId).toBe(SMALL);
    const minimum = error.minimumBudgetBytes as number;
    expect(Number.isSafeInteger(minimum) && minimum > 100).toBe(true);
    const prepared = await (await fixtureService(minimum)).prepare(target(), CONTENT, references);
    expect(promptData(prepared.additionalContext).map((data) => data['sessionId'])).toEqual([SMALL]);
    const below = await budgetError((await fixtureService(minimum - 1)).prepare(target(), CONTENT, references));
    expect({ sourceSessionId: below.sourceSessionId, minimumBudgetBytes: below.minimumBudgetBytes }).toEqual({
      sourceSessionId: SMALL,
      minimumBudgetBytes: minimum,
    });
  });

  it('two sources that do not fit: the one needing more is named, in either order, and its budget fits both', async () => {
    const alone = async (sessionId: string): Promise<number> =>
      (await budgetError((await fixtureService(100)).prepare(target(), CONTENT, [{ sessionId }]))).minimumBudgetBytes as number;
    const small = await alone(SMALL);
    const other = await alone(OTHER);
    expect(small).not.toBe(other);
    const [larger, largerId] = other > small ? [other, OTHER] : [small, SMALL];
    for (const order of [
      [SMALL, OTHER],
      [OTHER, SMALL],
    ]) {
      const references = order.map((sessionId) => ({ sessionId }));
      const error = await budgetError((await fixtureService(100)).prepare(target(), CONTENT, references));
      expect({ sourceSessionId: error.sourceSessionId, minimumBudgetBytes: error.minimumBudgetBytes }).toEqual({
        sourceSessionId: largerId,
        minimumBudgetBytes: larger,
      });
      const prepared = await (await fixtureService(larger)).prepare(target(), CONTENT, references);
      expect(promptData(prepared.additionalContext).map((data) => data['sessionId'])).toEqual(order);
      await budgetError((await fixtureService(larger - 1)).prepare(target(), CONTENT, references));
    }
  });

  it('a live source whose label alone exceeds the budget: the least budget fits it', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live', 1), events: [userEvent(0, 'live text')] });
    const live = (maxReferenceBytes: number) => serviceWith(kind, runner, { registry, config: { maxReferenceBytes } }).service;
    const references = [{ sessionId: 'live', label: 'L'.repeat(300) }];
    const error = await budgetError(live(200).prepare(target(), CONTENT, references));
    expect(error.sourceSessionId).toBe('live');
    const minimum = error.minimumBudgetBytes as number;
    expect(promptData((await live(minimum).prepare(target(), CONTENT, references)).additionalContext)[0]?.['label']).toBe('L'.repeat(300));
    await budgetError(live(minimum - 1).prepare(target(), CONTENT, references));
  });
});

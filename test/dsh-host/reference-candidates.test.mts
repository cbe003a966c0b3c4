/**
 * Discovery through `ctx.sessionReferenceResolver` in a real dsh host: the 114 recorded discovery cases of
 * test/fixtures/dsh-small/expected/candidates.json (targets, queries, limits, invalid limits), asked of dsh's resolver
 * and of `sessionctx/dsh` in each mode, through `listCandidates` and the Remote face `remoteExportCandidates`, with a
 * live session of the host among the candidates. Every answer and every error must be the same.
 */
import { join } from 'node:path';
import type { Agent } from '@deepseek-ai/dsh-agent';
import { afterAll, describe, expect, it } from 'vitest';
import { bootDshHost } from './harness/dsh-host.mts';
import type { DshHost } from './harness/dsh-host.mts';
import { DSH_SMALL, readExpected } from './harness/fixture-root.mts';
import type { CandidateCase } from './harness/fixture-root.mts';
import { DSH, SESSIONCTX_VARIANTS, copyRoot } from './support/resolver-runs.mts';
import type { ResolverVariant } from './support/resolver-runs.mts';

const CASES = readExpected<CandidateCase[]>('candidates.json');
const removals: Array<() => void> = [];
afterAll(() => {
  for (const remove of removals) remove();
});

/** The agent the resolver sees: its id and its session's header (what both resolvers read of it). */
function agentFor(target: CandidateCase['target']): Agent {
  return { id: target.id, session: { header: target.cwd === undefined ? {} : { cwd: target.cwd } } } as unknown as Agent;
}

async function settle<T>(work: () => Promise<T>): Promise<{ value: T } | { error: { code: unknown; message: string } }> {
  try {
    return { value: await work() };
  } catch (error) {
    return { error: { code: (error as { code?: unknown }).code, message: (error as Error).message } };
  }
}

/** Every case through both faces, on a host with `variant` mounted and one live session in the ml-pipeline cwd. */
async function answers(variant: ResolverVariant): Promise<unknown[]> {
  const { root, remove } = copyRoot(join(DSH_SMALL, 'raw'));
  removals.push(remove);
  const host: DshHost = await bootDshHost({ root, resolver: variant.resolver, resolverConfig: variant.config, replies: [] });
  try {
    const live = await host.createSession({ id: 'session-live-candidate', cwd: '/home/dev/projects/ml-pipeline' });
    const resolver = host.ctx.sessionReferenceResolver;
    const found: unknown[] = [];
    for (const entry of CASES) {
      const agent = agentFor(entry.target);
      found.push(await settle(() => resolver.listCandidates(agent, entry.query, entry.limit)));
      found.push(await settle(() => resolver.remoteExportCandidates(agent, entry.query, new AbortController().signal)));
    }
    // The live session's own view: it is excluded, the others ranked around its cwd.
    found.push(await settle(() => resolver.listCandidates(live.agent)));
    return found;
  } finally {
    await host.dispose();
  }
}

describe('discovery: sessionctx/dsh against dsh-session-reference in the same dsh host', () => {
  it('answers every recorded case as dsh does, through listCandidates and the Remote face', async () => {
    const reference = await answers(DSH);
    // The recorded cases the host reproduces exactly (a live session is a candidate too, so compare where it is not).
    const recorded = CASES.flatMap((entry, index) => (entry.result === undefined ? [] : [{ entry, index }]));
    expect(recorded.length).toBeGreaterThan(100);
    expect(reference.filter((answer) => 'error' in (answer as object)).length).toBeGreaterThan(0);
    for (const variant of SESSIONCTX_VARIANTS) {
      const ours = await answers(variant);
      expect(ours.length).toBe(reference.length);
      for (const [index, answer] of ours.entries()) expect(answer, `${variant.name} #${index}`).toEqual(reference[index]);
    }
  });
});

/**
 * `sessionctx/dsh`'s life in a real dsh host: one provider of `sessionReferenceResolver` (cordis refuses the second,
 * in either order, with its own error, and the first keeps working), configuration refused before publication, the
 * engine started by init and closed by dispose.
 */
import { join } from 'node:path';
import { Context } from '@deepseek-ai/cordis';
import type { Plugin } from '@deepseek-ai/cordis';
import { createUserMessage } from '@deepseek-ai/dsh-llm';
import SessionQueryEngine from '@deepseek-ai/dsh-session-query';
import DshResolver, { formatSessionReferenceMention } from '@deepseek-ai/dsh-session-reference';
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session';
import SessionctxResolver from 'sessionctx/dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { bootDshHost } from './harness/dsh-host.mts';
import type { DshHost } from './harness/dsh-host.mts';
import { DSH_SMALL } from './harness/fixture-root.mts';
import { TARGET, TARGET_CWD, copyRoot } from './support/resolver-runs.mts';

const OOM = SessionId('session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function host(resolver: Plugin | null, resolverConfig: unknown = {}): Promise<DshHost> {
  const { root, remove } = copyRoot(join(DSH_SMALL, 'raw'));
  cleanups.push(remove);
  const booted = await bootDshHost({ root, resolver, resolverConfig, replies: [{ kind: 'text', text: 'ok' }] });
  cleanups.push(booted.dispose);
  return booted;
}

const RESOLVERS = { dsh: DshResolver as unknown as Plugin, sessionctx: SessionctxResolver as unknown as Plugin };

describe('sessionctx/dsh lifecycle in a dsh host', () => {
  for (const [first, second] of [
    ['dsh', 'sessionctx'],
    ['sessionctx', 'dsh'],
  ] as const) {
    it(`refuses ${second}'s resolver beside ${first}'s with cordis's own error, and ${first}'s keeps serving`, async () => {
      const booted = await host(RESOLVERS[first]);
      const firstClass = first === 'dsh' ? 'SessionReferenceResolver' : 'SessionctxReferenceResolver';
      await expect(booted.ctx.plugin(RESOLVERS[second])).rejects.toThrow(
        `service "sessionReferenceResolver" has been registered at <${firstClass}>`,
      );
      const target = await booted.createSession({ id: TARGET, cwd: TARGET_CWD });
      const turn = await booted.runTurn(target, `See ${formatSessionReferenceMention({ sessionId: OOM })}.`);
      expect(turn.outcome).toEqual({ kind: 'completed' });
      expect(turn.requests[0]?.messages.map((message) => message.source.kind)).toEqual(['user', 'session-reference']);
    });
  }

  it('refuses an invalid configuration before the service is published (SESSION_REFERENCE_INVALID_CONFIG)', async () => {
    const booted = await host(null);
    for (const config of [{ maxReferences: 4 }, { reads: 'disk' }, { poolSize: 0 }]) {
      expect(() => new SessionctxResolver(booted.ctx, config as never)).toThrow(
        expect.objectContaining({ code: 'SESSION_REFERENCE_INVALID_CONFIG' }),
      );
    }
    // Nothing was published by the refused constructions.
    expect(booted.ctx.get('sessionReferenceResolver')).toBeUndefined();
    // The Loader's path: cordis applies the schemastery Config first and refuses the mount.
    await expect(booted.ctx.plugin(RESOLVERS.sessionctx, { maxReferences: 9 })).rejects.toThrow();
    expect(booted.ctx.get('sessionReferenceResolver')).toBeUndefined();
  });

  it("reads the configured root over the persistence's, or through the host with reads: host", async () => {
    const booted = await host(null);
    const target = await booted.createSession({ id: TARGET, cwd: TARGET_CWD });
    // A configured root that does not hold the cited session: the engine reads it, so the reference fails to read.
    const emptyRoot = copyRoot(join(DSH_SMALL, 'raw', '_no-cwd'));
    cleanups.push(emptyRoot.remove);
    const fiber = await booted.ctx.plugin(RESOLVERS.sessionctx, { root: emptyRoot.root });
    await expect(
      booted.ctx.sessionReferenceResolver.prepare(target.agent, [{ type: 'text', text: 'x' }], [{ sessionId: OOM }]),
    ).rejects.toThrow(expect.objectContaining({ code: 'SESSION_REFERENCE_READ_FAILED' }));
    await fiber.dispose();
    // The same root through the host's reads: the host's query engine finds the session.
    await booted.ctx.plugin(RESOLVERS.sessionctx, { root: emptyRoot.root, reads: 'host' });
    const prepared = await booted.ctx.sessionReferenceResolver.prepare(target.agent, [{ type: 'text', text: 'x' }], [{ sessionId: OOM }]);
    expect(prepared.additionalContext?.source).toMatchObject({ kind: 'session-reference', references: [{ sessionId: OOM }] });
  });
});

describe("sessionctx/dsh follows the host's live sessions", () => {
  it('attaches the sessions already live when it starts', async () => {
    const booted = await host(null);
    const source = await booted.createSession({ id: 'session-live-before', cwd: TARGET_CWD });
    source.session.append(
      'user/message',
      createUserMessage({ content: [{ type: 'text', text: 'only in memory' }], source: { kind: 'user' } }),
      { surfaceOp: 'append' },
    );
    await booted.ctx.plugin(RESOLVERS.sessionctx);
    const target = await booted.createSession({ id: TARGET, cwd: TARGET_CWD });
    const prepared = await booted.ctx.sessionReferenceResolver.prepare(
      target.agent,
      [{ type: 'text', text: 'x' }],
      [{ sessionId: source.id }],
    );
    expect(JSON.stringify(prepared.additionalContext)).toContain('only in memory');
  });

  it('drops a disposed session: a live session that never reached the disk stops being a candidate, as in dsh', async () => {
    const answers: Record<string, unknown[]> = {};
    for (const [name, resolver] of Object.entries(RESOLVERS)) {
      const booted = await host(resolver);
      const target = await booted.createSession({ id: TARGET, cwd: TARGET_CWD });
      const ephemeral = await booted.createSession({ id: 'session-ephemeral', cwd: TARGET_CWD });
      const ids = async () => (await booted.ctx.sessionReferenceResolver.listCandidates(target.agent, 'ephemeral')).map((c) => c.sessionId);
      const whileLive = await ids();
      await booted.closeSession(ephemeral);
      answers[name] = [whileLive, await ids()];
    }
    expect(answers.dsh).toEqual([['session-ephemeral'], []]);
    expect(answers.sessionctx).toEqual(answers.dsh);
  });
});

describe('sessionctx/dsh in a host without persistence', () => {
  async function bare(): Promise<Context> {
    const ctx = new Context();
    await ctx.plugin(SessionStore);
    await ctx.plugin(SessionQueryEngine as never, {} as never);
    cleanups.push(() => ctx.fiber.dispose());
    return ctx;
  }

  it("reads through the host query engine when no root is configured (as dsh's resolver does)", async () => {
    const ctx = await bare();
    await ctx.plugin(RESOLVERS.sessionctx);
    const target = ctx.sessions.create(SessionId('target'));
    const source = ctx.sessions.create(SessionId('source'));
    source.append('user/message', createUserMessage({ content: [{ type: 'text', text: 'in memory only' }], source: { kind: 'user' } }), {
      surfaceOp: 'append',
    });
    const prepared = await ctx.sessionReferenceResolver.prepare(
      { id: target.id, session: target } as never,
      [{ type: 'text', text: 'go' }],
      [{ sessionId: source.id }],
    );
    expect(JSON.stringify(prepared.additionalContext)).toContain('in memory only');
  });

  it('fails to start with reads: engine and no root, naming both ways out', async () => {
    const ctx = await bare();
    await expect(ctx.plugin(RESOLVERS.sessionctx, { reads: 'engine' })).rejects.toThrow(
      'session-reference: reads "engine" needs a root: set `root`, or mount the JSONL persistence plugin before this one',
    );
  });
});

/**
 * The dsh host harness boots dsh 0.1.0-rc.8's own agent loop with dsh's own session-reference resolver over a
 * temporary copy of test/fixtures/dsh-small/raw, and reproduces what dsh's services recorded in
 * test/fixtures/dsh-small/expected (references.json, candidates.json).
 */
import { join } from 'node:path';
import type { UserMessage } from '@deepseek-ai/dsh-llm';
import { SessionId } from '@deepseek-ai/dsh-session';
import SessionReferenceResolver, { formatSessionReferenceMention } from '@deepseek-ai/dsh-session-reference';
import { afterEach, describe, expect, it } from 'vitest';
import { bootDshHost } from './harness/dsh-host.mts';
import type { DshHost, RecordedRequest, ScriptedReply } from './harness/dsh-host.mts';
import { DSH_SMALL, copyFixtureRoot, readExpected, snapshotTree } from './harness/fixture-root.mts';
import type { CandidateCase, TempRoot } from './harness/fixture-root.mts';

const TARGET = 'session-00000000-0000-4000-8000-000000000000';
const OTHER_TARGET = 'session-ffffffff-ffff-4fff-bfff-ffffffffffff';
const CWD = '/home/dev/projects/ml-pipeline';
const CITED = SessionId('session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f');

interface ReferenceCase {
  readonly name: string;
  readonly result: { readonly content: unknown; readonly additionalContext?: { readonly source: unknown; readonly content: unknown } };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempRoot(): TempRoot {
  const temp = copyFixtureRoot('raw');
  cleanups.push(temp.remove);
  return temp;
}

async function boot(root: string, replies: readonly ScriptedReply[] = [{ kind: 'text', text: 'Noted.' }]): Promise<DshHost> {
  const host = await bootDshHost({ root, resolver: SessionReferenceResolver, replies });
  cleanups.push(host.dispose);
  return host;
}

function textOf(message: RecordedRequest['messages'][number] | undefined): string {
  const block = message?.content[0];
  return block?.type === 'text' ? block.text : '';
}

/** One full run: a fresh target session in CWD cites CITED once. */
async function citeOnce(root: string) {
  const host = await boot(root);
  const target = await host.createSession({ id: TARGET, cwd: CWD });
  const text = `Background for this task: ${formatSessionReferenceMention({ sessionId: CITED })}.`;
  const turn = await host.runTurn(target, text);
  const log = await host.readLog(target);
  return { host, target, turn, log };
}

describe('dsh host with dsh-session-reference 0.1.0-rc.8', () => {
  it('rewrites the canonical mention and places the referenced-sessions context right after it', async () => {
    const { root } = tempRoot();
    const { host, target, turn, log } = await citeOnce(root);

    expect(turn.outcome).toEqual({ kind: 'completed' });
    expect(turn.errors).toEqual([]);
    expect(turn.requests).toHaveLength(1);
    const request = turn.requests[0]!;
    expect(request.sessionId).toBe(TARGET);
    expect(request.system).toBe('You are an AI agent powered by DeepSeek Harness.');
    expect(request.messages).toHaveLength(2);
    const [direct, context] = request.messages;
    expect(direct?.role).toBe('user');
    expect(direct?.source).toEqual({ kind: 'user' });
    expect(direct?.id).toBe(turn.message.id);
    expect(direct?.content).toEqual([{ type: 'text', text: `Background for this task: @${CITED}.` }]);
    expect(context?.role).toBe('user');
    expect(context?.source.kind).toBe('session-reference');
    expect(textOf(context).startsWith('## Referenced sessions')).toBe(true);

    // Byte for byte what dsh's resolver produced for the same case when the fixtures were written.
    const expected = readExpected<ReferenceCase[]>('references.json').find((entry) => entry.name === `alone:${CITED}`);
    expect(expected?.result.content).toEqual(direct?.content);
    expect(context?.source).toEqual(expected?.result.additionalContext?.source);
    expect(context?.content).toEqual(expected?.result.additionalContext?.content);

    // The loop logged both messages as surface user/message events of the new session, and persisted them.
    const userMessages = target.session.events.filter((event) => event.type === 'user/message');
    expect(userMessages.map((event) => (event.data as UserMessage).source.kind)).toEqual(['user', 'session-reference']);
    expect(target.logPath).toBe(`${root}/--home-dev-projects-ml-pipeline--/${TARGET}/session.jsonl`);
    const lines = log.toString('utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'session', id: TARGET, cwd: CWD, createdAt: host.clock.peek() });
    expect(lines).toHaveLength(1 + target.session.events.length);
  });

  it('gives identical requests and identical persisted bytes for identical inputs', async () => {
    const first = tempRoot();
    const second = tempRoot();
    const a = await citeOnce(first.root);
    await a.host.dispose();
    const b = await citeOnce(second.root);
    await b.host.dispose();

    expect(b.turn.requests).toEqual(a.turn.requests);
    expect(JSON.stringify(b.turn.requests)).toBe(JSON.stringify(a.turn.requests));
    expect(b.log.equals(a.log)).toBe(true);
    // Nothing else in the root differs either, and the only change to the fixture copy is the new session's log:
    // dsh read the cited (crashed) session without repairing it on disk.
    const tree = snapshotTree(first.root);
    expect(snapshotTree(second.root)).toEqual(tree);
    const newLog = `--home-dev-projects-ml-pipeline--/${TARGET}/session.jsonl`;
    expect(tree.has(newLog)).toBe(true);
    tree.delete(newLog);
    expect(tree).toEqual(snapshotTree(join(DSH_SMALL, 'raw')));
  });

  it('lists fixture sessions as candidates through ctx.sessionReferenceResolver', async () => {
    const { root } = tempRoot();
    const host = await boot(root, []);
    const resolver = host.ctx.sessionReferenceResolver;

    const inCwd = await host.createSession({ id: TARGET, cwd: CWD });
    const all = await resolver.listCandidates(inCwd.agent, '', 50);
    expect(all).toHaveLength(14);
    expect(all.map((candidate) => candidate.sessionId)).not.toContain(TARGET);
    expect(all.slice(0, 3).every((candidate) => candidate.cwd === CWD)).toBe(true);
    // dsh's recorded listing for the cited session as target is this listing without that session.
    const cases = readExpected<CandidateCase[]>('candidates.json');
    const forCited = cases.find((entry) => entry.target.id === CITED && entry.kind === 'empty' && entry.limit === 50);
    expect(all.filter((candidate) => candidate.sessionId !== CITED)).toEqual(forCited?.result);

    // A target in a directory no fixture uses: every recorded case for it matches exactly. A live session is a
    // candidate even before it has any event, so the first target must leave the corpus first.
    await host.closeSession(inCwd);
    const elsewhere = await host.createSession({ id: OTHER_TARGET, cwd: '/opt/elsewhere' });
    const recorded = cases.filter((entry) => entry.target.id === OTHER_TARGET && entry.result !== undefined);
    expect(recorded.length).toBeGreaterThan(10);
    for (const entry of recorded) {
      expect(await resolver.listCandidates(elsewhere.agent, entry.query, entry.limit), `${entry.kind} ${entry.query}`).toEqual(
        entry.result,
      );
    }
  });

  it('reports a provider error as an error turn with one agent/error', async () => {
    const { root } = tempRoot();
    const host = await boot(root, [{ kind: 'error', message: 'upstream unavailable', code: 'UNAVAILABLE', status: 503 }]);
    const target = await host.createSession({ id: TARGET, cwd: CWD });
    const turn = await host.runTurn(target, 'hello');

    expect(turn.requests).toHaveLength(1);
    expect(turn.outcome).toEqual({ kind: 'error', error: { message: 'upstream unavailable', code: 'UNAVAILABLE', status: 503 } });
    expect(turn.errors).toHaveLength(1);
    expect(turn.errors[0]).toMatchObject({ sessionId: TARGET, turn: 1, step: 1 });
    expect(String(turn.errors[0]?.error)).toBe('LlmError: upstream unavailable');
    expect(turn.events.some((event) => event.type === 'assistant/message')).toBe(false);
  });

  it('cancels a turn while the resolver prepares: aborted, no request, no agent/error', async () => {
    const { root } = tempRoot();
    const host = await boot(root);
    const target = await host.createSession({ id: TARGET, cwd: CWD });
    const text = `See ${formatSessionReferenceMention({ sessionId: CITED })}.`;
    const turn = await host.runTurn(target, text, {
      onPreStep: async ({ cancel }) => {
        await new Promise((resolve) => setImmediate(resolve));
        cancel();
      },
    });

    expect(turn.outcome).toEqual({ kind: 'aborted', reason: { kind: 'user' } });
    expect(turn.requests).toEqual([]);
    expect(turn.errors).toEqual([]);
    expect(turn.events.map((event) => event.type)).toEqual(['agent/inbox/spliced', 'turn/start', 'agent/inbox/spliced', 'turn/end']);
    expect(host.model.pending).toBe(1);

    // The same agent runs its next turn normally.
    const next = await host.runTurn(target, 'plain follow-up');
    expect(next.outcome).toEqual({ kind: 'completed' });
    expect(next.requests[0]?.messages.map((message) => textOf(message))).toEqual(['plain follow-up']);
  });

  it('cancels through an AbortSignal while the model streams', async () => {
    const { root } = tempRoot();
    const controller = new AbortController();
    const host = await boot(root, [
      (request) => {
        setImmediate(() => controller.abort());
        return {
          kind: 'hang',
          chunks: [
            { type: 'block-start', index: 0, blockType: 'text' },
            { type: 'text-delta', index: 0, text: `partial ${request.messages.length}` },
          ],
        };
      },
    ]);
    const target = await host.createSession({ id: TARGET, cwd: CWD });
    const turn = await host.runTurn(target, 'long answer please', { signal: controller.signal });

    expect(turn.requests).toHaveLength(1);
    expect(turn.outcome).toEqual({ kind: 'aborted', reason: { kind: 'user' } });
    expect(turn.errors).toEqual([]);
    const interrupted = turn.events.find((event) => event.type === 'assistant/message');
    expect(interrupted?.data).toMatchObject({ interrupted: true, message: { content: [{ type: 'text', text: 'partial 1' }] } });
  });
});

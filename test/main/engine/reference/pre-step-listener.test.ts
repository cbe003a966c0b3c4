// The outermost pre-step listener: SESSION-REFERENCE.md §13.1–§13.3 (listener side); §15 items 23, 24, 36, 37, 58.
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import type { ReferencePreStepDecision, ReferencePreStepPayload } from '../../../../src/main/engine/reference/reference-types.js';
import type { Message, SessionSurfaceSnapshot } from '../../../../src/protocol/events.js';
import {
  StubQuery,
  deferred,
  directMessage,
  expectReferenceError,
  liveCorpus,
  mention,
  promptData,
  referencesOf,
  rejectionOf,
  service,
  settle,
  snapshotOf,
  target,
  trackUnhandledRejections,
  userEvent,
  within,
} from './reference-builders.js';

let tracker: ReturnType<typeof trackUnhandledRejections> | undefined;
afterEach(() => {
  tracker?.stop();
  tracker = undefined;
});

function payload(messages: readonly Message[], signal?: AbortSignal): ReferencePreStepPayload {
  return signal === undefined ? { agent: target(), messages, turn: 1, step: 1 } : { agent: target(), messages, turn: 1, step: 1, signal };
}

/** The innermost default decision (no runtime context). */
function enterAll(messages: readonly Message[]): () => Promise<ReferencePreStepDecision> {
  return async () => ({ kind: 'enter', messages: [...messages] });
}

function sourcesQuery(ids: readonly string[]): SessionQuery {
  return liveCorpus(ids.map((id) => ({ id, cwd: `/${id}`, events: [userEvent(0, `${id} fact`)] }))).query;
}

function forwarding(query: SessionQuery): StubQuery {
  return new StubQuery({ readSurface: (sessionId, signal) => query.readSurface(sessionId, signal) });
}

function enteredMessages(decision: ReferencePreStepDecision): readonly Message[] {
  expect(decision.kind).toBe('enter');
  return decision.kind === 'enter' ? decision.messages : [];
}

describe('expansion (item 23)', () => {
  it('rewrites the direct message, inserts its context right after it and leaves other messages untouched', async () => {
    const direct = directMessage('direct-1', [
      { type: 'text', text: `compare ${mention('source', 'Research')} now` },
      { type: 'reasoning', text: 'private thought' },
    ]);
    const ordinary = directMessage('ordinary-1', 'no mentions here');
    const plugin = directMessage('plugin-1', `see ${mention('source', 'Research')}`, { kind: 'plugin', plugin: 'goal' });
    const messages = [direct, ordinary, plugin];

    const decision = await service(sourcesQuery(['source'])).preStepListener(payload(messages), enterAll(messages));
    const out = enteredMessages(decision);
    expect(out).toHaveLength(4);

    const rewritten = out[0] as Message;
    expect(rewritten).not.toBe(direct);
    expect(Object.keys(rewritten)).toEqual(Object.keys(direct));
    expect(rewritten.id).toBe('direct-1');
    expect(rewritten.role).toBe('user');
    expect(rewritten.source).toEqual({ kind: 'user' });
    expect(rewritten.content).toEqual([
      { type: 'text', text: 'compare @Research now' },
      { type: 'reasoning', text: 'private thought' },
    ]);
    expect(Object.isFrozen(rewritten)).toBe(true);
    expect(Object.isFrozen(rewritten.content)).toBe(true);
    // The claimed original is not modified.
    expect((direct.content[0] as { text: string }).text).toBe(`compare ${mention('source', 'Research')} now`);

    const context = out[1] as Message;
    expect(context.source['kind']).toBe('session-reference');
    expect(referencesOf(context)).toHaveLength(1);
    expect(referencesOf(context)[0]).toMatchObject({ sessionId: 'source', label: 'Research', inputIndex: 0 });
    expect(promptData(context)[0]).toMatchObject({ sessionId: 'source', label: 'Research', cwd: '/source' });

    expect(out[2]).toBe(ordinary);
    expect(out[3]).toBe(plugin);
  });
});

describe('reject and failures (item 24, §13.3 rule 2)', () => {
  const bad = directMessage('bad-1', 'look at @[bad](dsh-session:not-canonical)');

  it('a downstream reject is returned unchanged; nothing is parsed or read', async () => {
    const stub = new StubQuery({});
    const reject: ReferencePreStepDecision = { kind: 'reject' };
    const decision = await service(stub).preStepListener(payload([bad]), async () => reject);
    expect(decision).toBe(reject);
    expect(stub.surfaceCalls).toHaveLength(0);
  });

  it('a downstream enter with a malformed mention rejects with INVALID_REFERENCE carrying the claimed direct messages', async () => {
    const stub = new StubQuery({});
    const plugin = directMessage('plugin-1', 'plugin text', { kind: 'plugin', plugin: 'goal' });
    const ordinary = directMessage('ordinary-1', 'fine');
    const messages = [ordinary, plugin, bad];
    const error = await expectReferenceError(
      service(stub).preStepListener(payload(messages), enterAll(messages)),
      'SESSION_REFERENCE_INVALID_REFERENCE',
      'invalid session reference URI "dsh-session:not-canonical"',
    );
    expect(error.message).toMatch(/invalid session reference URI/);
    expect(stub.surfaceCalls).toHaveLength(0);
    const claimed = error.claimedDirectMessages as readonly Message[];
    expect(claimed).toHaveLength(2);
    expect(claimed[0]).toBe(ordinary);
    expect(claimed[1]).toBe(bad);
  });

  it('errors thrown by downstream listeners propagate unchanged', async () => {
    const downstream = new Error('downstream listener failed');
    const messages = [directMessage('direct-1', `use ${mention('source', 'S')}`)];
    const error = await rejectionOf(
      service(sourcesQuery(['source'])).preStepListener(payload(messages), async () => Promise.reject(downstream)),
    );
    expect(error).toBe(downstream);
    expect(error.claimedDirectMessages).toBeUndefined();
  });

  it('an aborted turn signal → CANCELLED carrying the claimed direct messages', async () => {
    tracker = trackUnhandledRejections();
    const hanging = deferred<SessionSurfaceSnapshot>();
    const stub = new StubQuery({ readSurface: () => hanging.promise });
    const controller = new AbortController();
    const direct = directMessage('direct-1', `use ${mention('source', 'S')}`);
    const call = service(stub).preStepListener(payload([direct], controller.signal), enterAll([direct]));
    await settle();
    const reason = new Error('turn cancelled');
    controller.abort(reason);
    const error = await expectReferenceError(within(call), 'SESSION_REFERENCE_CANCELLED', 'session reference preparation was cancelled');
    expect(error.cause).toBe(reason);
    expect(error.claimedDirectMessages).toEqual([direct]);
    hanging.reject(new Error('late'));
    await settle();
    expect(tracker.reasons).toEqual([]);
  });
});

describe('several direct messages (item 36)', () => {
  it('each direct message gets its own context right after it and its own limit of 3 references', async () => {
    const d1 = directMessage('d1', `${mention('a', 'A')} ${mention('b', 'B')} ${mention('c', 'C')}`);
    const d2 = directMessage('d2', `${mention('d', 'D')} ${mention('e', 'E')} ${mention('f', 'F')}`);
    const decision = await service(sourcesQuery(['a', 'b', 'c', 'd', 'e', 'f'])).preStepListener(payload([d1, d2]), enterAll([d1, d2]));
    const out = enteredMessages(decision);
    expect(out).toHaveLength(4);
    expect(out[0]?.id).toBe('d1');
    expect(out[2]?.id).toBe('d2');
    expect((out[0]?.content[0] as { text: string }).text).toBe('@A @B @C');
    expect((out[2]?.content[0] as { text: string }).text).toBe('@D @E @F');
    expect(referencesOf(out[1]).map((reference) => [reference['sessionId'], reference['inputIndex']])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
    expect(referencesOf(out[3]).map((reference) => [reference['sessionId'], reference['inputIndex']])).toEqual([
      ['d', 0],
      ['e', 1],
      ['f', 2],
    ]);
  });

  it('one failing message rejects the whole step and aborts the other message’s reads', async () => {
    tracker = trackUnhandledRejections();
    const slowStarted = deferred<AbortSignal | undefined>();
    const slowSeen = { aborted: false };
    const stub = new StubQuery({
      readSurface: (sessionId, signal) => {
        if (sessionId === 'slow') {
          slowStarted.resolve(signal);
          return new Promise((_resolve, reject) => {
            signal?.addEventListener('abort', () => {
              slowSeen.aborted = true;
              reject(signal.reason);
            });
          });
        }
        return new Promise((_resolve, reject) => setTimeout(() => reject(new Error('broken source')), 10));
      },
    });
    const d1 = directMessage('d1', `first ${mention('slow', 'Slow')}`);
    const plugin = directMessage('plugin-1', 'plugin', { kind: 'plugin', plugin: 'goal' });
    const d2 = directMessage('d2', `second ${mention('broken', 'Broken')}`);
    const turn = new AbortController();
    const error = await expectReferenceError(
      within(service(stub).preStepListener(payload([d1, plugin, d2], turn.signal), enterAll([d1, plugin, d2]))),
      'SESSION_REFERENCE_READ_FAILED',
      'failed to read referenced session: broken source',
    );
    const slowSignal = await slowStarted.promise;
    expect(slowSignal?.aborted).toBe(true);
    expect(slowSeen.aborted).toBe(true);
    expect(turn.signal.aborted).toBe(false);
    const claimed = error.claimedDirectMessages as readonly Message[];
    expect(claimed).toHaveLength(2);
    expect(claimed[0]).toBe(d1);
    expect(claimed[1]).toBe(d2);
    await settle();
    expect(tracker.reasons).toEqual([]);
  });
});

describe('outermost placement (item 37)', () => {
  it('expands what downstream listeners finally decided, after they ran', async () => {
    const stub = forwarding(sourcesQuery(['source']));
    const original = directMessage('direct-1', 'plain request');
    const added = directMessage('plugin-added', `plugin cites ${mention('source', 'S')}`, { kind: 'plugin', plugin: 'goal' });
    const downstream = deferred<ReferencePreStepDecision>();
    const call = service(stub).preStepListener(payload([original]), () => downstream.promise);
    await settle();
    // Nothing is read before the downstream decision exists.
    expect(stub.surfaceCalls).toHaveLength(0);
    const rewrittenByDownstream = directMessage('direct-1', `now ${mention('source', 'S')}`);
    downstream.resolve({ kind: 'enter', messages: [rewrittenByDownstream, added] });
    const out = enteredMessages(await within(call));
    expect(out).toHaveLength(3);
    expect(out[0]?.id).toBe('direct-1');
    expect(out[0]?.content).toEqual([{ type: 'text', text: 'now @S' }]);
    expect(referencesOf(out[1])[0]).toMatchObject({ sessionId: 'source', label: 'S' });
    expect(out[2]).toBe(added);
    expect(stub.surfaceCalls.map((call) => call.sessionId)).toEqual(['source']);
  });
});

describe('messages without references (item 58)', () => {
  it('non-text-only and mention-free direct messages are returned as the same objects, with no read', async () => {
    const stub = new StubQuery({ readSurface: async () => snapshotOf('source', 'never read') });
    const uri = 'dsh-session:InNvdXJjZSI';
    const nonText = directMessage('non-text', [
      { type: 'image', url: uri },
      { type: 'reasoning', text: `thinking about ${uri}` },
    ]);
    const plain = directMessage('plain', 'what is a dsh-session: URI?');
    const empty = directMessage('empty', []);
    const messages = [nonText, plain, empty];
    const out = enteredMessages(await service(stub).preStepListener(payload(messages), enterAll(messages)));
    expect(out).toHaveLength(3);
    expect(out[0]).toBe(nonText);
    expect(out[1]).toBe(plain);
    expect(out[2]).toBe(empty);
    expect(stub.surfaceCalls).toHaveLength(0);
  });
});

/**
 * End to end: the host agent loop with a scripted model and the session-reference service mounted
 * outermost. A message citing two sessions (one live, one persisted dsh log) enters the step with
 * its snapshot; the log replays to exactly what the model saw; a failing source logs nothing of
 * that step and keeps the typed code in the turn end.
 */
import { describe, expect, it } from 'vitest';
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { formatSessionReferenceMention } from '../../src/protocol/uri/mention-formatter.js';
import { InMemoryLiveRegistry } from '../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../src/main/engine/corpus/session-query.js';
import { Session } from '../../src/main/stand-in/host/session.js';
import { createTestHarness } from '../../src/main/stand-in/host/test-harness.js';
import { SessionReferenceError } from '../../src/protocol/reference-errors.js';
import { SessionReferenceService } from '../../src/main/engine/reference/session-reference-service.js';
import { sessionReferencePlugin } from '../../src/main/engine/reference/session-reference-plugin.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { RAW_ROOT } from '../support/fixtures.js';

const PERSISTED_SOURCE = 'session-9d029d81-e515-48ac-b168-fef7011f3491';

function liveSource(): Session {
  const session = Session.create('live-source', {
    header: { version: 0, id: asSessionId('live-source'), createdAt: 1, cwd: '/work/live', delegationDepth: 0 },
  });
  session.append('turn/start', { turn: 1 });
  session.append(
    'user/message',
    {
      content: [{ type: 'text', text: 'Why does the cache miss on every deploy?' }],
      source: { kind: 'user' },
      role: 'user',
      id: 'live-u1',
    },
    { surfaceOp: 'append' },
  );
  session.append('step/start', { turn: 1, step: 1 });
  session.append(
    'assistant/message',
    {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'The deploy script rotates the cache key salt.' }],
        source: { kind: 'model', provider: 'p', model: 'm' },
        id: 'live-a1',
      },
    },
    { surfaceOp: 'append' },
  );
  session.append('step/end', { turn: 1, step: 1 });
  session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
  return session;
}

async function referenceService(): Promise<{ service: SessionReferenceService; source: Session }> {
  const registry = new InMemoryLiveRegistry();
  const source = liveSource();
  registry.attach(source);
  const storage = await JsonlSessionStore.open({ root: RAW_ROOT, compression: 'none' });
  return { service: new SessionReferenceService({ sessionQuery: new SessionQuery({ registry, storage }) }), source };
}

function typesOf(events: readonly SessionEvent[]): string[] {
  return events.map((event) => event.type);
}

describe('host loop with the session-reference service', () => {
  it('a message citing two sessions enters its step with the snapshot right after it, and the log replays to what the model saw', async () => {
    const { service, source } = await referenceService();
    const harness = createTestHarness({
      plugins: [sessionReferencePlugin(service)],
      script: [{ text: 'Both issues come from the salt.' }],
    });
    const text = `Compare ${formatSessionReferenceMention({ sessionId: 'live-source', label: 'cache bug' })} with ${formatSessionReferenceMention({ sessionId: PERSISTED_SOURCE, label: 'tests' })} please`;
    const prompt = harness.prompt(text);
    await harness.runUntilIdle();

    expect(harness.errors).toEqual([]);
    expect(harness.model.dispatchCount).toBe(1);
    const seen = harness.model.requests[0]?.messages ?? [];
    expect(seen).toHaveLength(2);
    const [direct, context] = seen as unknown as [
      { id: string; content: Array<{ text: string }>; source: { kind: string } },
      {
        content: Array<{ text: string }>;
        source: { kind: string; references: Array<{ sessionId: string; label: string; inputIndex: number }> };
      },
    ];
    expect(direct.id).toBe(prompt.id);
    expect(direct.content[0]?.text).toBe('Compare @cache bug with @tests please');
    expect(context.source.kind).toBe('session-reference');
    expect(context.source.references.map((reference) => [reference.sessionId, reference.label, reference.inputIndex])).toEqual([
      ['live-source', 'cache bug', 0],
      [PERSISTED_SOURCE, 'tests', 1],
    ]);
    const prompted = context.content[0]?.text ?? '';
    expect(prompted).toContain('The deploy script rotates the cache key salt.');
    expect(prompted).toContain('<referenced-sessions>\n[{"sessionId":"live-source"');

    // The log holds exactly the two messages the model saw, appended right after step/start.
    const events = harness.session.events;
    const stepStart = events.findIndex((event) => event.type === 'step/start');
    expect(typesOf(events.slice(stepStart, stepStart + 3))).toEqual(['step/start', 'user/message', 'user/message']);
    expect(JSON.stringify(harness.session.deriveMessages().slice(0, 2))).toBe(JSON.stringify(seen));
    // Replay never consults the source: a reload derives the same messages after the source moves on.
    source.append('turn/start', { turn: 2 });
    source.append(
      'user/message',
      { content: [{ type: 'text', text: 'a later secret' }], source: { kind: 'user' }, role: 'user', id: 'live-u2' },
      { surfaceOp: 'append' },
    );
    const reloaded = harness.reload();
    expect(JSON.stringify(reloaded.deriveMessages())).toBe(JSON.stringify(harness.session.deriveMessages()));
    expect(JSON.stringify(reloaded.deriveMessages())).not.toContain('a later secret');
  });

  it('a failing source logs no message of that step and ends the turn with the typed code', async () => {
    const { service } = await referenceService();
    const harness = createTestHarness({ plugins: [sessionReferencePlugin(service)], script: [] });
    const prompt = harness.prompt(
      `see ${formatSessionReferenceMention({ sessionId: 'live-source' })} and ${formatSessionReferenceMention({ sessionId: 'session-missing' })}`,
    );
    await harness.runUntilIdle();

    expect(harness.model.dispatchCount).toBe(0);
    expect(typesOf(harness.session.events)).toEqual(['turn/start', 'turn/end']);
    const end = harness.session.events[1]?.data as { reason: { kind: string; error: { code: string; message: string } } };
    expect(end.reason.kind).toBe('error');
    expect(end.reason.error.code).toBe('SESSION_REFERENCE_READ_FAILED');
    expect(end.reason.error.message).toMatch(/^failed to read referenced session: session "session-missing" not found/);
    expect(harness.errors).toHaveLength(1);
    const error = harness.errors[0]?.error;
    expect(error).toBeInstanceOf(SessionReferenceError);
    expect((error as SessionReferenceError).claimedDirectMessages).toEqual([prompt]);
    expect((error as SessionReferenceError).claimedDirectMessages?.[0]).toBe(prompt);
  });

  it('D8: an aborted turn during preparation ends aborted with the turn signal reason; a non-reference failure is UNKNOWN', async () => {
    const registry = new InMemoryLiveRegistry();
    let releaseRead: (() => void) | undefined;
    const hanging = {
      listSessions: async () => [],
      readTitleSnapshots: async () => [],
      readSurface: () =>
        new Promise<never>((_resolve, reject) => {
          releaseRead = () => reject(new Error('released late'));
        }),
    };
    const service = new SessionReferenceService({ sessionQuery: hanging as unknown as SessionQuery });
    const harness = createTestHarness({ plugins: [sessionReferencePlugin(service)], script: [] });
    harness.prompt(`see ${formatSessionReferenceMention({ sessionId: 'anything' })}`);
    const idle = harness.runUntilIdle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    harness.agent.abort({ kind: 'user' });
    await idle;
    releaseRead?.();
    expect(typesOf(harness.session.events)).toEqual(['turn/start', 'turn/end']);
    expect((harness.session.events[1]?.data as { reason: unknown }).reason).toEqual({ kind: 'aborted', reason: { kind: 'user' } });

    const failing = createTestHarness({
      plugins: [
        sessionReferencePlugin(new SessionReferenceService({ sessionQuery: new SessionQuery({ registry }) })),
        {
          name: 'broken',
          apply: (context) =>
            void context.on('agent/pre-step', () => {
              throw new Error('downstream broke');
            }),
        },
      ],
      script: [],
    });
    failing.prompt('no references here');
    await failing.runUntilIdle();
    expect((failing.session.events[1]?.data as { reason: unknown }).reason).toEqual({
      kind: 'error',
      error: { message: 'downstream broke', code: 'UNKNOWN' },
    });
  });
});

// Replay of a target that recorded references: SESSION-REFERENCE.md §1 step 5, §8 guarantees, §12; §15 items 34, 55.
// No host here: the direct and context messages are appended to the target log as ordinary `user/message` events.
import { describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import { deriveModelMessages, foldSurface } from '../../../../src/protocol/surface-fold.js';
import type { SessionReferenceService } from '../../../../src/main/engine/reference/session-reference-service.js';
import {
  assistantEvent,
  checkpointEvent,
  directMessage,
  expectReferenceError,
  liveCorpus,
  mention,
  messageEvent,
  renderHistory,
  service,
  target,
  userEvent,
} from './reference-builders.js';

function derived(events: readonly SessionEvent[]): Message[] {
  return deriveModelMessages(events, foldSurface(events));
}

/** Runs the listener for `messages` and appends its output to `log` as the host would. */
async function runStep(resolver: SessionReferenceService, log: SessionEvent[], messages: readonly Message[]): Promise<void> {
  const decision = await resolver.preStepListener({ agent: target(), messages, turn: 1, step: 1 }, async () => ({
    kind: 'enter',
    messages: [...messages],
  }));
  expect(decision.kind).toBe('enter');
  if (decision.kind !== 'enter') return;
  for (const logged of decision.messages) log.push(messageEvent(log.length, logged));
}

describe('replay independence (item 34)', () => {
  it('the target replays the same messages after the source is appended to, compacted and detached', async () => {
    const { registry, query, sessions } = liveCorpus([
      { id: 'source', cwd: '/source', events: [userEvent(0, 'durable referenced fact'), assistantEvent(1, 'noted')] },
    ]);
    const resolver = service(query);
    const targetLog: SessionEvent[] = [userEvent(0, 'earlier question'), assistantEvent(1, 'earlier answer')];
    await runStep(resolver, targetLog, [directMessage('direct-1', `use ${mention('source', 'source')}`)]);
    expect(targetLog).toHaveLength(4);

    const before = JSON.stringify(derived(targetLog));
    expect(before).toContain('durable referenced fact');
    expect(before).toContain('use @source');
    const messages = derived(targetLog);
    expect(messages.map((message) => message.source.kind)).toEqual(['user', 'model', 'user', 'session-reference']);

    const source = sessions.get('source');
    source?.events.push(userEvent(2, 'later mutation'));
    source?.events.push(checkpointEvent(3, '<compacted-summary>rewritten history</compacted-summary>', 0, 2, [0, 1, 2]));
    expect(registry.detach(asSessionId('source'))).toBe(true);

    const after = JSON.stringify(derived(targetLog));
    expect(after).toBe(before);
    expect(after).not.toContain('later mutation');
    expect(after).not.toContain('rewritten history');

    // A session rebuilt from the target's events (as from its JSONL lines) derives the same messages.
    const rebuilt = JSON.parse(JSON.stringify(targetLog)) as SessionEvent[];
    expect(JSON.stringify(derived(rebuilt))).toBe(before);

    // The source really is gone: preparing it again fails, replay did not need it.
    await expectReferenceError(
      resolver.prepare(target(), [{ type: 'text', text: 'again' }], [{ sessionId: 'source' }]),
      'SESSION_REFERENCE_READ_FAILED',
      'failed to read referenced session: session "source" not found',
    );
  });
});

describe('history association (item 55)', () => {
  it('each session-reference context attaches to the direct message immediately before it', async () => {
    const { query } = liveCorpus([
      { id: 'alpha', events: [userEvent(0, 'alpha fact')] },
      { id: 'beta', events: [userEvent(0, 'beta fact')] },
    ]);
    const resolver = service(query);
    const targetLog: SessionEvent[] = [userEvent(0, 'hello'), assistantEvent(1, 'hi')];
    await runStep(resolver, targetLog, [
      directMessage('d1', `compare ${mention('alpha', 'Alpha')}`),
      directMessage('d2', `and ${mention('beta', 'Beta')}`),
    ]);
    targetLog.push(assistantEvent(targetLog.length, 'compared'));
    await runStep(resolver, targetLog, [directMessage('d3', 'no references')]);

    const rows = renderHistory(derived(JSON.parse(JSON.stringify(targetLog)) as SessionEvent[]));
    expect(rows.map((row) => [row.message.id, row.sources])).toEqual([
      ['user-0', []],
      ['assistant-1', []],
      ['d1', [{ sessionId: 'alpha', label: 'Alpha' }]],
      ['d2', [{ sessionId: 'beta', label: 'Beta' }]],
      ['assistant-6', []],
      ['d3', []],
    ]);
    expect(rows.some((row) => row.message.source.kind === 'session-reference')).toBe(false);
    expect((rows[2]?.message.content[0] as { text: string }).text).toBe('compare @Alpha');
  });
});

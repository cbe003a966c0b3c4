// A representative subset of the reference-service tests (test/reference-service/*), run over every
// renderer: the in-thread renderer over SessionQuery, the pool renderer on real worker threads, and the
// pool renderer on the in-thread runner (the --no-workers fallback). Expected values come from
// SESSION-REFERENCE.md §8–§13 and the fixture files, as in the originals.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import type { LiveSession } from '../../../../src/main/engine/corpus/live-registry.js';
import { LiveLogTracker } from '../../../../src/main/engine/live/live-log-tracker.js';
import type { TaskRunner } from '../../../../src/main/engine/pool/task-runner.js';
import type { SessionReferenceConfigInput } from '../../../../src/main/engine/reference/reference-config.js';
import type { ReferencePreStepDecision } from '../../../../src/main/engine/reference/reference-types.js';
import { SessionQueryError } from '../../../../src/protocol/errors.js';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import { RAW_ROOT, ZSTD_ROOT } from '../../../support/fixtures.js';
import { newSession, userData } from '../../stand-in/host/host-builders.js';
import {
  METADATA_KEYS,
  SPEC_PROMPT_PREFIX,
  SPEC_PROMPT_SUFFIX,
  assistantEvent,
  chunkEvent,
  directMessage,
  expectReferenceError,
  header,
  mention,
  promptData,
  promptText,
  referencesOf,
  target,
  titleEvent,
  userEvent,
} from '../reference/reference-builders.js';
import { inThreadRunner, openStore, serviceWith, testPool } from './pool-builders.js';
import type { RendererKind } from './pool-builders.js';

const pool = testPool();
const fallback = inThreadRunner();
afterAll(() => Promise.all([pool.close(), fallback.close()]));

const RENDERERS: ReadonlyArray<[RendererKind, TaskRunner | undefined]> = [
  ['in-thread', undefined],
  ['pool', pool],
  ['in-thread runner', fallback],
];

const CONTENT = [{ type: 'text' as const, text: 'use @source' }];

/** A service over live sessions `specs` (and optionally a store) with the renderer under test. */
function liveService(
  kind: RendererKind,
  runner: TaskRunner | undefined,
  sessions: readonly LiveSession[],
  config?: SessionReferenceConfigInput,
  storage?: Awaited<ReturnType<typeof openStore>>,
) {
  const registry = new InMemoryLiveRegistry();
  for (const session of sessions) registry.attach(session);
  return serviceWith(kind === 'in-thread runner' ? 'pool' : kind, runner, {
    registry,
    ...(config === undefined ? {} : { config }),
    ...(storage === undefined ? {} : { storage }),
  }).service;
}

describe.each(RENDERERS)('renderer: %s', (kind, runner) => {
  it('item 40: exact context message shape, prompt bytes, metadata and freezing', async () => {
    const source = { header: header('source', 1, '/source'), events: [userEvent(0, 'question'), assistantEvent(1, 'answer')] };
    const prepared = await liveService(kind, runner, [source]).prepare(target(), CONTENT, [{ sessionId: 'source', label: 'Research' }]);
    const context = prepared.additionalContext as Message;
    expect(Object.keys(context)).toEqual(['source', 'content', 'role', 'id']);
    expect(Object.keys(context.source)).toEqual(['kind', 'form', 'version', 'references']);
    const references = referencesOf(context);
    expect(Object.keys(references[0] as object)).toEqual([...METADATA_KEYS]);
    expect(references[0]).toEqual({
      sessionId: 'source',
      label: 'Research',
      capturedThroughSeq: 1,
      compacted: false,
      originalMessages: 2,
      retainedMessages: 2,
      omittedMessages: 0,
      omittedBytes: 0,
      truncated: false,
      inputIndex: 0,
    });
    const data = {
      sessionId: 'source',
      label: 'Research',
      cwd: '/source',
      capturedThroughSeq: 1,
      conversation: [
        { role: 'user', text: 'question' },
        { role: 'assistant', text: 'answer' },
      ],
    };
    expect(promptText(context)).toBe(SPEC_PROMPT_PREFIX + JSON.stringify([data]) + SPEC_PROMPT_SUFFIX);
    for (const part of [context, context.content, context.content[0], context.source, references, references[0]])
      expect(Object.isFrozen(part)).toBe(true);
  });

  it('item 26/42: nested snapshots never propagate; checkpoints kept; interrupted text kept; Phase A drops the first ordinary item', async () => {
    const nested = { kind: 'session-reference', form: 'recall', version: 1, references: [] };
    const events: SessionEvent[] = [
      userEvent(0, 'summary', { kind: 'plugin', plugin: 'compact' }),
      userEvent(1, 'nested snapshot secret', nested),
      userEvent(2, 'q'),
      assistantEvent(3, [{ type: 'reasoning', text: 'hidden reasoning' }]),
      assistantEvent(4, 'partial answer', { interrupted: true }),
      userEvent(5, 'last'),
    ];
    const full = {
      sessionId: 'source',
      label: 'source',
      cwd: null,
      capturedThroughSeq: 5,
      conversation: [
        { role: 'user', text: 'summary' },
        { role: 'user', text: 'q' },
        { role: 'assistant', text: 'partial answer' },
        { role: 'user', text: 'last' },
      ],
    };
    const prepared = await liveService(kind, runner, [{ header: header('source', 1), events }]).prepare(target(), CONTENT, [
      { sessionId: 'source' },
    ]);
    expect(promptData(prepared.additionalContext)).toEqual([full]);
    expect(promptText(prepared.additionalContext)).not.toContain('nested snapshot secret');
    expect(promptText(prepared.additionalContext)).not.toContain('hidden reasoning');
    const budget = Buffer.byteLength(JSON.stringify(full)) - 1;
    const dropped = await liveService(kind, runner, [{ header: header('source', 1), events }], { maxReferenceBytes: budget }).prepare(
      target(),
      CONTENT,
      [{ sessionId: 'source' }],
    );
    expect(promptData(dropped.additionalContext)[0]?.['conversation']).toEqual(full.conversation.filter((item) => item.text !== 'q'));
    expect(referencesOf(dropped.additionalContext)[0]).toMatchObject({
      compacted: true,
      originalMessages: 4,
      retainedMessages: 3,
      omittedMessages: 1,
      omittedBytes: 1,
      truncated: true,
    });
  });

  it('item 41: a live source counts trailing log-only events; a later append shows up in the next call only', async () => {
    const source = {
      header: header('source', 1),
      events: [userEvent(0, 'q'), chunkEvent(1), assistantEvent(2, 'a'), titleEvent(3, 'A title'), chunkEvent(4)],
    };
    const resolver = liveService(kind, runner, [source]);
    const prepared = await resolver.prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    expect(referencesOf(prepared.additionalContext)[0]?.['capturedThroughSeq']).toBe(4);
    const before = JSON.stringify(prepared.additionalContext);
    source.events.push(chunkEvent(5), userEvent(6, 'later'));
    expect(JSON.stringify(prepared.additionalContext)).toBe(before);
    const again = await resolver.prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    expect(referencesOf(again.additionalContext)[0]?.['capturedThroughSeq']).toBe(6);
  });

  it.each([
    ['raw', RAW_ROOT, 'none' as const, 'session.jsonl'],
    ['zstd', ZSTD_ROOT, 'zstd' as const, 'session.jsonl.zstd'],
  ])(
    'item 41: a crashed persisted source (%s) counts the three synthetic closers; the artifact is unchanged',
    async (_name, root, compression, file) => {
      const id = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f';
      const path = join(root, '--home-dev-projects-ml-pipeline--', id, file);
      const rawLines = readFileSync(join(RAW_ROOT, '--home-dev-projects-ml-pipeline--', id, 'session.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      const last = JSON.parse(rawLines.at(-1) as string) as { seq: number };
      const bytes = readFileSync(path);
      const statBefore = statSync(path);
      const prepared = await liveService(kind, runner, [], undefined, await openStore(root, compression)).prepare(target(), CONTENT, [
        { sessionId: id },
      ]);
      expect(referencesOf(prepared.additionalContext)[0]?.['capturedThroughSeq']).toBe(last.seq + 3);
      expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(statSync(path).mtimeMs).toBe(statBefore.mtimeMs);
    },
  );

  it('§8 steps 5 and 7: a missing source → READ_FAILED (query error as cause); BUDGET_EXCEEDED only when every read succeeded', async () => {
    const sessions = ['one', 'two', 'three'].map((id) => ({ header: header(id, 1), events: [userEvent(0, `${id} text`)] }));
    const error = await expectReferenceError(
      liveService(kind, runner, sessions).prepare(target(), CONTENT, [{ sessionId: 'one' }, { sessionId: 'missing' }]),
      'SESSION_REFERENCE_READ_FAILED',
      'failed to read referenced session: session "missing" not found',
    );
    expect(error.cause).toBeInstanceOf(SessionQueryError);
    expect((error.cause as SessionQueryError).code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    const oversized = { sessionId: 'one', label: 'L'.repeat(300) };
    const tight = liveService(kind, runner, sessions, { maxReferenceBytes: 200 });
    await expectReferenceError(
      tight.prepare(target(), CONTENT, [{ sessionId: 'two' }, oversized]),
      'SESSION_REFERENCE_BUDGET_EXCEEDED',
      'referenced session snapshot cannot fit the configured byte budget',
    );
    await expectReferenceError(
      tight.prepare(target(), CONTENT, [oversized, { sessionId: 'missing' }]),
      'SESSION_REFERENCE_READ_FAILED',
      'failed to read referenced session: session "missing" not found',
    );
    const prepared = await tight.prepare(target(), CONTENT, [{ sessionId: 'two' }, { sessionId: 'three' }]);
    expect(promptData(prepared.additionalContext).map((data) => data['sessionId'])).toEqual(['two', 'three']);
  });

  it('items 28/59: duplicates keep the first label; live and persisted sources mix in input order', async () => {
    const store = await openStore(RAW_ROOT, 'none');
    const persisted = 'session-24445f64-0c0f-4d8f-8925-279091e56cc1';
    const resolver = liveService(kind, runner, [{ header: header('live', 1), events: [userEvent(0, 'live text')] }], undefined, store);
    const prepared = await resolver.prepare(target(), CONTENT, [
      { sessionId: persisted, label: 'first' },
      { sessionId: persisted, label: 'ignored duplicate' },
      { sessionId: 'live' },
    ]);
    const references = referencesOf(prepared.additionalContext);
    expect(references.map((reference) => [reference['sessionId'], reference['label'], reference['inputIndex']])).toEqual([
      [persisted, 'first', 0],
      ['live', 'live', 1],
    ]);
    expect(promptData(prepared.additionalContext)[1]?.['conversation']).toEqual([{ role: 'user', text: 'live text' }]);
  });

  it('item 23: the pre-step listener expands a message citing a host Session whose log keeps growing', async () => {
    const source = newSession('source');
    source.append('user/message', userData('first fact'), { surfaceOp: 'append' });
    const registry = new InMemoryLiveRegistry();
    registry.attach(source);
    const liveLogs = new LiveLogTracker();
    liveLogs.track(source);
    const service = serviceWith(kind === 'in-thread runner' ? 'pool' : kind, runner, { registry, liveLogs }).service;
    const direct = directMessage('direct-1', `compare ${mention('source', 'Research')} now`);
    const next = async (): Promise<ReferencePreStepDecision> => ({ kind: 'enter', messages: [direct] });
    const decision = await service.preStepListener({ agent: target(), messages: [direct], turn: 1, step: 1 }, next);
    const messages = decision.kind === 'enter' ? decision.messages : [];
    expect(messages).toHaveLength(2);
    expect(messages[0]?.content).toEqual([{ type: 'text', text: 'compare @Research now' }]);
    expect(promptData(messages[1])[0]?.['conversation']).toEqual([{ role: 'user', text: 'first fact' }]);
    source.append('user/message', userData('second fact'), { surfaceOp: 'append' });
    const later = await service.preStepListener({ agent: target(), messages: [direct], turn: 1, step: 2 }, next);
    expect(promptData(later.kind === 'enter' ? later.messages[1] : undefined)[0]?.['conversation']).toEqual([
      { role: 'user', text: 'first fact' },
      { role: 'user', text: 'second fact' },
    ]);
  });
});

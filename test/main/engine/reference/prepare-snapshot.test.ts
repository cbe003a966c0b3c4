// The snapshot prepare() records: SESSION-REFERENCE.md §9 (projection), §10.1 (data object), §11, §12 (context
// message and metadata), D10; §15 items 26, 40, 41, 42, 57.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { parseSessionReferenceText } from '../../../../src/protocol/uri/mention-parser.js';
import { encodeSessionReferenceUri } from '../../../../src/protocol/uri/session-uri.js';
import { RAW_ROOT } from '../../../support/fixtures.js';
import {
  METADATA_KEYS,
  SPEC_PROMPT_PREFIX,
  SPEC_PROMPT_SUFFIX,
  assistantEvent,
  chunkEvent,
  liveCorpus,
  promptData,
  promptText,
  referencesOf,
  service,
  target,
  titleEvent,
  userEvent,
} from './reference-builders.js';

const CONTENT = [{ type: 'text' as const, text: 'use @source' }];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('context message shape (item 40)', () => {
  it('has the exact keys, values, prompt bytes and freezing of §10.1, §11.1 and §12', async () => {
    const { query } = liveCorpus([{ id: 'source', cwd: '/source', events: [userEvent(0, 'question'), assistantEvent(1, 'answer')] }]);
    const prepared = await service(query).prepare(target(), CONTENT, [{ sessionId: 'source', label: 'Research' }]);
    const context = prepared.additionalContext;
    expect(context).toBeDefined();
    if (context === undefined) return;

    expect(Object.keys(context)).toEqual(['source', 'content', 'role', 'id']);
    expect(context.role).toBe('user');
    expect(context.id).toMatch(UUID);
    expect(Object.keys(context.source)).toEqual(['kind', 'form', 'version', 'references']);
    expect(context.source).toMatchObject({ kind: 'session-reference', form: 'recall', version: 1 });
    expect(context.content).toHaveLength(1);
    expect(Object.keys(context.content[0] as object)).toEqual(['type', 'text']);

    const references = referencesOf(context);
    expect(references).toHaveLength(1);
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
    // Exact bytes: key order of the data object and its items, framing literals, no '<' to escape.
    expect(promptText(context)).toBe(SPEC_PROMPT_PREFIX + JSON.stringify([data]) + SPEC_PROMPT_SUFFIX);
    expect(Buffer.byteLength(SPEC_PROMPT_PREFIX)).toBe(287);
    expect(Buffer.byteLength(SPEC_PROMPT_SUFFIX)).toBe(23);

    for (const part of [context, context.content, context.content[0], context.source, references, references[0]]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (context as { id: string }).id = 'other';
    }).toThrow(TypeError);
  });

  it('each call creates a fresh context id', async () => {
    const { query } = liveCorpus([{ id: 'source', events: [userEvent(0, 'question')] }]);
    const resolver = service(query);
    const first = await resolver.prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    const second = await resolver.prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    expect(first.additionalContext?.id).not.toBe(second.additionalContext?.id);
  });
});

describe('data fields (item 57)', () => {
  it('a source without cwd → cwd null; a mention label reaches data and metadata unchanged', async () => {
    const { query } = liveCorpus([{ id: 'source', events: [userEvent(0, 'fact')] }]);
    // The parser unescapes `\]`; BEL, quotes and '<' stay raw in the label (§5.1 rule 6, §6.3).
    const parsed = parseSessionReferenceText(`see @[Re\\]search \u0007 "q" <b>](${encodeSessionReferenceUri('source')})`);
    const label = 'Re]search \u0007 "q" <b>';
    expect(parsed.references).toEqual([{ sessionId: 'source', label }]);
    const prepared = await service(query).prepare(target(), [{ type: 'text', text: parsed.text }], parsed.references);
    const [data] = promptData(prepared.additionalContext);
    expect(data).toEqual({ sessionId: 'source', label, cwd: null, capturedThroughSeq: 0, conversation: [{ role: 'user', text: 'fact' }] });
    expect(referencesOf(prepared.additionalContext)[0]?.['label']).toBe(label);
    expect(prepared.content).toEqual([{ type: 'text', text: `see @${label}` }]);
  });
});

describe('projection (items 26, 42)', () => {
  it('a session-reference context in the source never propagates (item 26)', async () => {
    const nested = {
      kind: 'session-reference',
      form: 'recall',
      version: 1,
      references: [
        {
          sessionId: 'elsewhere',
          label: 'elsewhere',
          capturedThroughSeq: 0,
          compacted: false,
          originalMessages: 1,
          retainedMessages: 1,
          omittedMessages: 0,
          omittedBytes: 0,
          truncated: false,
          inputIndex: 0,
        },
      ],
    };
    const { query } = liveCorpus([
      {
        id: 'source',
        cwd: '/source',
        events: [userEvent(0, 'nested snapshot secret', nested), userEvent(1, 'direct source question')],
      },
    ]);
    const prepared = await service(query).prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    const [data] = promptData(prepared.additionalContext);
    expect(data?.['conversation']).toEqual([{ role: 'user', text: 'direct source question' }]);
    expect(promptText(prepared.additionalContext)).not.toContain('nested snapshot secret');
    expect(referencesOf(prepared.additionalContext)[0]).toMatchObject({ capturedThroughSeq: 1, originalMessages: 1, compacted: false });
  });

  /** Checkpoints first so that Phase A would drop them if they were not recognised. */
  function projectionLog() {
    return [
      userEvent(0, 'summary without id', { kind: 'plugin', plugin: 'compact' }),
      userEvent(1, 'summary with extras', { kind: 'plugin', plugin: 'compact', compactionId: 'c-1', note: 'extra', level: 2 }),
      userEvent(2, 'q'),
      userEvent(3, 'goal text', { kind: 'plugin', plugin: 'goal' }),
      assistantEvent(4, [{ type: 'reasoning', text: 'hidden reasoning' }]),
      assistantEvent(5, [{ type: 'text', text: '' }]),
      assistantEvent(6, 'partial answer', { interrupted: true }),
      userEvent(7, 'last'),
    ];
  }

  const fullData = {
    sessionId: 'source',
    label: 'source',
    cwd: null,
    capturedThroughSeq: 7,
    conversation: [
      { role: 'user', text: 'summary without id' },
      { role: 'user', text: 'summary with extras' },
      { role: 'user', text: 'q' },
      { role: 'assistant', text: 'partial answer' },
      { role: 'user', text: 'last' },
    ],
  };

  it('interrupted assistant text is kept, empty assistant text skipped, compact plugin messages are checkpoints (item 42)', async () => {
    const { query } = liveCorpus([{ id: 'source', events: projectionLog() }]);
    const prepared = await service(query).prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    expect(promptData(prepared.additionalContext)).toEqual([fullData]);
    expect(referencesOf(prepared.additionalContext)[0]).toMatchObject({
      compacted: true,
      originalMessages: 5,
      retainedMessages: 5,
      omittedMessages: 0,
      omittedBytes: 0,
      truncated: false,
    });
    expect(promptText(prepared.additionalContext)).not.toContain('hidden reasoning');
    expect(promptText(prepared.additionalContext)).not.toContain('goal text');
  });

  it('Phase A skips both checkpoints and drops the first ordinary item', async () => {
    const { query } = liveCorpus([{ id: 'source', events: projectionLog() }]);
    // One byte below the whole data object (tag-safe JSON = plain JSON here: no '<') forces one drop.
    const budget = Buffer.byteLength(JSON.stringify(fullData)) - 1;
    const prepared = await service(query, { maxReferenceBytes: budget }).prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    const [data] = promptData(prepared.additionalContext);
    expect(data?.['conversation']).toEqual(fullData.conversation.filter((item) => item.text !== 'q'));
    expect(referencesOf(prepared.additionalContext)[0]).toMatchObject({
      compacted: true,
      originalMessages: 5,
      retainedMessages: 4,
      omittedMessages: 1,
      omittedBytes: 1,
      truncated: true,
    });
  });
});

describe('capturedThroughSeq (item 41, D10)', () => {
  it('a live source counts its trailing log-only events (chunks, titles)', async () => {
    const events = [userEvent(0, 'q'), chunkEvent(1), assistantEvent(2, 'a'), titleEvent(3, 'A title'), chunkEvent(4)];
    const { query, sessions } = liveCorpus([{ id: 'source', events }]);
    const resolver = service(query);
    const prepared = await resolver.prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    expect(referencesOf(prepared.additionalContext)[0]?.['capturedThroughSeq']).toBe(4);
    expect(promptData(prepared.additionalContext)[0]?.['capturedThroughSeq']).toBe(4);
    const before = JSON.stringify(prepared.additionalContext);

    // A later append to the source leaves the recorded context unchanged.
    sessions.get('source')?.events.push(chunkEvent(5), userEvent(6, 'later'));
    expect(JSON.stringify(prepared.additionalContext)).toBe(before);
    const again = await resolver.prepare(target(), CONTENT, [{ sessionId: 'source' }]);
    expect(referencesOf(again.additionalContext)[0]?.['capturedThroughSeq']).toBe(6);
  });

  it('a persisted crashed source counts the three synthetic closers; the artifact is unchanged', async () => {
    const id = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f';
    const path = join(RAW_ROOT, '--home-dev-projects-ml-pipeline--', id, 'session.jsonl');
    const bytes = readFileSync(path);
    const lines = bytes
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '');
    const last = JSON.parse(lines.at(-1) as string) as { type: string; seq: number };
    // The fixture ends inside an open step, after one recorded tool call without result.
    expect(last.type).toBe('tool/call');
    const statBefore = statSync(path);

    const store = await JsonlSessionStore.open({ root: RAW_ROOT, compression: 'none' });
    const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
    const prepared = await service(query).prepare(target(), CONTENT, [{ sessionId: id }]);
    // Tool result, step end, turn end.
    expect(referencesOf(prepared.additionalContext)[0]?.['capturedThroughSeq']).toBe(last.seq + 3);
    expect(promptData(prepared.additionalContext)[0]?.['capturedThroughSeq']).toBe(last.seq + 3);

    const after = readFileSync(path);
    expect(createHash('sha256').update(after).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
    const statAfter = statSync(path);
    expect(statAfter.size).toBe(statBefore.size);
    expect(statAfter.mtimeMs).toBe(statBefore.mtimeMs);
  });
});

// prepare() input handling: SESSION-REFERENCE.md §8 steps 1–4 and 7, §14; §15 items 28, 29, 59.
import { describe, expect, it } from 'vitest';
import type { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import { SessionQueryError } from '../../../../src/protocol/errors.js';
import type { ContentBlock } from '../../../../src/protocol/events.js';
import {
  StubQuery,
  assistantEvent,
  expectReferenceError,
  liveCorpus,
  promptData,
  referencesOf,
  service,
  target,
  userEvent,
} from './reference-builders.js';

/** target, one, two, three as live sessions, each with one user message. */
function sources(): SessionQuery {
  return liveCorpus([
    { id: 'target', events: [userEvent(0, 'target text')] },
    { id: 'one', events: [userEvent(0, 'one text'), assistantEvent(1, 'one answer')] },
    { id: 'two', events: [userEvent(0, 'two text')] },
    { id: 'three', events: [userEvent(0, 'three text')] },
  ]).query;
}

/** The query layer behind a stub that records readSurface calls. */
function counted(query: SessionQuery): StubQuery {
  return new StubQuery({ readSurface: (sessionId, signal) => query.readSurface(sessionId, signal) });
}

const CONTENT: ContentBlock[] = [
  { type: 'text', text: 'use @one' },
  { type: 'reasoning', text: 'kept as is' },
];

describe('no references (item 28)', () => {
  it('returns a fresh deep copy of the content and no additionalContext key', async () => {
    const stub = counted(sources());
    const prepared = await service(stub, { maxReferences: 2 }).prepare(target(), CONTENT, []);
    expect(Object.keys(prepared)).toEqual(['content']);
    expect(prepared.content).toEqual(CONTENT);
    expect(prepared.content).not.toBe(CONTENT);
    expect(prepared.content[0]).not.toBe(CONTENT[0]);
    expect(prepared.content[1]).not.toBe(CONTENT[1]);
    expect(stub.surfaceCalls).toHaveLength(0);
  });

  it('does not consult an aborted signal when nothing is kept', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('late'));
    const prepared = await service(sources()).prepare(target(), CONTENT, [], aborted.signal);
    expect(Object.keys(prepared)).toEqual(['content']);
  });
});

describe('normalisation (items 28, 29, 59)', () => {
  it('first appearance wins, duplicates do not count, inputIndex follows the deduplicated list', async () => {
    const prepared = await service(sources(), { maxReferences: 2 }).prepare(target(), CONTENT, [
      { sessionId: 'one', label: 'first' },
      { sessionId: 'one', label: 'ignored duplicate' },
      { sessionId: 'two' },
    ]);
    const references = referencesOf(prepared.additionalContext);
    expect(references.map((reference) => reference['label'])).toEqual(['first', 'two']);
    expect(references.map((reference) => reference['sessionId'])).toEqual(['one', 'two']);
    expect(references.map((reference) => reference['inputIndex'])).toEqual([0, 1]);
    expect(promptData(prepared.additionalContext).map((data) => data['label'])).toEqual(['first', 'two']);
  });

  it('only duplicates of one id → one reference, inputIndex 0, first label (item 59)', async () => {
    const prepared = await service(sources()).prepare(target(), CONTENT, [
      { sessionId: 'one', label: 'the first label' },
      { sessionId: 'one', label: 'second' },
      { sessionId: 'one' },
    ]);
    const references = referencesOf(prepared.additionalContext);
    expect(references).toHaveLength(1);
    expect(references[0]).toMatchObject({ sessionId: 'one', label: 'the first label', inputIndex: 0 });
    const data = promptData(prepared.additionalContext);
    expect(data).toHaveLength(1);
    expect(data[0]?.['label']).toBe('the first label');
  });

  it('a self reference → SELF_REFERENCE with the JSON-quoted id', async () => {
    const stub = counted(sources());
    await expectReferenceError(
      service(stub, { maxReferences: 2 }).prepare(target(), CONTENT, [{ sessionId: 'target' }]),
      'SESSION_REFERENCE_SELF_REFERENCE',
      'session "target" cannot reference itself',
    );
    await expectReferenceError(
      service(stub).prepare(target('quote"d'), CONTENT, [{ sessionId: 'quote"d' }]),
      'SESSION_REFERENCE_SELF_REFERENCE',
      'session "quote\\"d" cannot reference itself',
    );
    expect(stub.surfaceCalls).toHaveLength(0);
  });

  it.each([
    ['null', null, 'session reference must be an object'],
    ['1', 1, 'session reference must be an object'],
    ['a string', 'one', 'session reference must be an object'],
    ['{sessionId: 1}', { sessionId: 1 }, 'session reference must contain a string sessionId and optional string label'],
    [
      "{sessionId: 'x', label: 5}",
      { sessionId: 'x', label: 5 },
      'session reference must contain a string sessionId and optional string label',
    ],
    [
      "{sessionId: 'x', label: null}",
      { sessionId: 'x', label: null },
      'session reference must contain a string sessionId and optional string label',
    ],
    ['{}', {}, 'session reference must contain a string sessionId and optional string label'],
  ])('%s → INVALID_REFERENCE', async (_name, reference, text) => {
    const stub = counted(sources());
    await expectReferenceError(
      service(stub, { maxReferences: 2 }).prepare(target(), CONTENT, [reference]),
      'SESSION_REFERENCE_INVALID_REFERENCE',
      text,
    );
    expect(stub.surfaceCalls).toHaveLength(0);
  });

  it('more distinct references than maxReferences → TOO_MANY and no read', async () => {
    const stub = counted(sources());
    await expectReferenceError(
      service(stub, { maxReferences: 2 }).prepare(target(), CONTENT, [{ sessionId: 'one' }, { sessionId: 'two' }, { sessionId: 'three' }]),
      'SESSION_REFERENCE_TOO_MANY',
      'a message may reference at most 2 sessions',
    );
    await expectReferenceError(
      service(stub).prepare(target(), CONTENT, [{ sessionId: 'one' }, { sessionId: 'two' }, { sessionId: 'three' }, { sessionId: 'four' }]),
      'SESSION_REFERENCE_TOO_MANY',
      'a message may reference at most 3 sessions',
    );
    expect(stub.surfaceCalls).toHaveLength(0);
  });

  it('precedence: the first invalid or self input wins over TOO_MANY (item 29)', async () => {
    const stub = counted(sources());
    const resolver = service(stub, { maxReferences: 2 });
    await expectReferenceError(
      resolver.prepare(target(), CONTENT, [{ sessionId: 'two' }, { sessionId: 'three' }, { sessionId: 'target' }]),
      'SESSION_REFERENCE_SELF_REFERENCE',
      'session "target" cannot reference itself',
    );
    await expectReferenceError(
      resolver.prepare(target(), CONTENT, [null, { sessionId: 'target' }]),
      'SESSION_REFERENCE_INVALID_REFERENCE',
      'session reference must be an object',
    );
    await expectReferenceError(
      resolver.prepare(target(), CONTENT, [{ sessionId: 'one' }, { sessionId: 'two' }, { sessionId: 'three' }, { sessionId: 5 }]),
      'SESSION_REFERENCE_INVALID_REFERENCE',
      'session reference must contain a string sessionId and optional string label',
    );
    expect(stub.surfaceCalls).toHaveLength(0);
  });

  it('validation runs before the signal is consulted', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('late'));
    await expectReferenceError(
      service(sources()).prepare(target(), CONTENT, [{ sessionId: 'target' }], aborted.signal),
      'SESSION_REFERENCE_SELF_REFERENCE',
      'session "target" cannot reference itself',
    );
  });
});

describe('reads and budget (items 28, §8 steps 5 and 7)', () => {
  it('a missing source → READ_FAILED with the query error as cause', async () => {
    const error = await expectReferenceError(
      service(sources(), { maxReferences: 2 }).prepare(target(), CONTENT, [{ sessionId: 'one' }, { sessionId: 'missing' }]),
      'SESSION_REFERENCE_READ_FAILED',
      'failed to read referenced session: session "missing" not found',
    );
    expect(error.cause).toBeInstanceOf(SessionQueryError);
    expect((error.cause as SessionQueryError).code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
  });

  it('a source that cannot fit → BUDGET_EXCEEDED; a failed read of any source wins over it', async () => {
    // A 300-byte label alone exceeds a 200-byte budget, and 'one text' cannot shrink below its notice.
    const oversized = { sessionId: 'one', label: 'L'.repeat(300) };
    const resolver = service(sources(), { maxReferenceBytes: 200 });
    await expectReferenceError(
      resolver.prepare(target(), CONTENT, [{ sessionId: 'two' }, oversized]),
      'SESSION_REFERENCE_BUDGET_EXCEEDED',
      'referenced session snapshot cannot fit the configured byte budget',
    );
    await expectReferenceError(
      resolver.prepare(target(), CONTENT, [oversized, { sessionId: 'missing' }]),
      'SESSION_REFERENCE_READ_FAILED',
      'failed to read referenced session: session "missing" not found',
    );
    // The same sources fit when the budget allows it.
    const prepared = await resolver.prepare(target(), CONTENT, [{ sessionId: 'two' }, { sessionId: 'three' }]);
    expect(promptData(prepared.additionalContext).map((data) => data['sessionId'])).toEqual(['two', 'three']);
  });
});

import { describe, expect, it } from 'vitest';
import { SessionLogError } from '../../src/protocol/errors.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { checkAppendCandidate, validateSeedEvent, validateSeedEvents } from '../../src/protocol/envelope.js';
import { SurfaceFold, foldSurface } from '../../src/protocol/surface-fold.js';
import { assistantMessage, expectError, logOnly, replace, toolResult, userMessage } from './event-builders.js';

const requestHeader = (seq: number, data: unknown = { header: { config: { provider: 'p', model: 'm' } } }): SessionEvent => ({
  type: 'request/header',
  seq,
  time: 1,
  data,
});

/** Validates `events` as a seed and asserts the exact error message and code. */
function expectSeedError(events: readonly unknown[], message: string, code: string): void {
  expectError(() => validateSeedEvents(events), { message, code, type: SessionLogError, name: 'Error' });
}

describe('§2.3 seed/restore envelope validation', () => {
  it('accepts a valid log and returns its fold', () => {
    const fold = validateSeedEvents([userMessage(0, 'x'), requestHeader(1), logOnly(2), { ...logOnly(3), ignorable: true }]);
    expect(fold.surfaceSeqs()).toEqual([0]);
    expect(fold.nextSeq).toBe(4);
  });

  it('rule 1: request/header-delta, before any other rule', () => {
    expectSeedError(
      [userMessage(0, 'x'), { type: 'request/header-delta', extra: 1 }],
      'seed event at index 1 uses unsupported legacy request/header-delta format',
      'SESSION_LOG_LEGACY_FORMAT',
    );
  });

  it('rule 2: an own key outside the seven envelope keys', () => {
    expectSeedError(
      [{ ...userMessage(0, 'x'), meta: {} }],
      'seed event at index 0 has an invalid event envelope',
      'SESSION_LOG_INVALID_ENVELOPE',
    );
  });

  it('rule 3: field types', () => {
    const base = logOnly(0);
    const bad: unknown[] = [
      { ...base, type: 5 },
      { ...base, seq: -1 },
      { ...base, seq: 0.5 },
      { ...base, seq: '0' },
      { ...base, time: 1.5 },
      { ...base, time: '1' },
      { type: base.type, seq: 0, time: 1 },
      { ...base, data: undefined },
      { ...base, ignorable: false },
      { ...base, ignorable: 'true' },
      { ...base, seq: 2 ** 53 },
    ];
    for (const event of bad) {
      expectSeedError([event], 'seed event at index 0 has an invalid event envelope', 'SESSION_LOG_INVALID_ENVELOPE');
    }
    // Negative times pass validation.
    expect(() => validateSeedEvents([{ ...base, time: -5 }])).not.toThrow();
  });

  it('rule 4: request-header checks and message shapes with subject "seed <type> at index <N>"', () => {
    expectSeedError(
      [logOnly(0), requestHeader(1, { header: {} })],
      'seed request/header at index 1 lacks provider/model',
      'SESSION_LOG_INVALID_MESSAGE',
    );
    const badTool = toolResult(0, 'c', 'x');
    (badTool.data as { message: { id: string } }).message.id = '';
    expectSeedError([badTool], 'seed tool/result at index 0 lacks an identified message', 'SESSION_LOG_INVALID_MESSAGE');
    const badAssistant = assistantMessage(0, 'x');
    (badAssistant.data as { message: { source: unknown } }).message.source = { kind: 'model' };
    expectSeedError([badAssistant], 'seed assistant/message at index 0 message must have model source', 'SESSION_LOG_INVALID_MESSAGE');
  });

  it('rule 5: request/header reason "fallback" (after the shape checks)', () => {
    expectSeedError(
      [requestHeader(0, { header: { config: { provider: 'p', model: 'm' } }, reason: 'fallback' })],
      'seed event at index 0 uses unsupported legacy request/header reason "fallback"',
      'SESSION_LOG_LEGACY_FORMAT',
    );
    expectSeedError(
      [requestHeader(0, { header: {}, reason: 'fallback' })],
      'seed request/header at index 0 lacks provider/model',
      'SESSION_LOG_INVALID_MESSAGE',
    );
  });

  it('rule 6: seq equals the index', () => {
    expectSeedError(
      [logOnly(0), logOnly(5)],
      'seed event at index 1 has seq 5 (expected 1); seed must be contiguous from 0',
      'SESSION_LOG_INVALID_ENVELOPE',
    );
  });

  it('rule 7: surface failures are wrapped with the index and keep the cause', () => {
    const error = expectError(
      () => validateSeedEvents([userMessage(0, 'x'), userMessage(1, 'y', { surfaceOp: replace(5, 5), sourceEventSeqs: [0] })]),
      {
        message: 'invalid seed event at index 1: surface replace: start seq 5 not found in surface',
        code: 'SESSION_LOG_INVALID_SURFACE',
      },
    );
    expect((error.cause as Error).message).toBe('surface replace: start seq 5 not found in surface');
    expectSeedError(
      [userMessage(0, 'x', {})],
      'invalid seed event at index 0: session event "user/message" is surface-eligible and requires a surfaceOp marker',
      'SESSION_LOG_INVALID_SURFACE',
    );
  });

  it('validateSeedEvent applies the event to the given fold on success only', () => {
    const fold = new SurfaceFold();
    validateSeedEvent(userMessage(0, 'x'), 0, fold);
    expect(fold.surfaceSeqs()).toEqual([0]);
    expect(() => validateSeedEvent({ ...logOnly(1), extra: 1 }, 1, fold)).toThrow('seed event at index 1 has an invalid event envelope');
    expect(fold.nextSeq).toBe(1);
  });
});

describe('§2.4 live-append checks', () => {
  const fold = foldSurface([userMessage(0, 'x'), toolResult(1, 'c', 'out')]);
  const expectAppendError = (run: () => void, message: string, code: string): void => {
    expectError(run, { message, code, type: SessionLogError });
  };

  it('accepts a valid candidate without applying it', () => {
    checkAppendCandidate('assistant/message', assistantMessage(2, 'x').data, { surfaceOp: 'append', sourceEventSeqs: [0] }, fold);
    checkAppendCandidate('turn/start', { turn: 1 }, {}, fold);
    expect(fold.nextSeq).toBe(2);
  });

  it('rule 2: non-JSON data', () => {
    class Point {
      x = 1;
    }
    for (const data of [undefined, { a: undefined }, 1n, -0, NaN, new Map(), new Date(0), new Point(), [1, , 2], () => 1]) {
      expectAppendError(
        () => checkAppendCandidate('turn/start', data, {}, fold),
        'session event "turn/start" carries non-JSON-serializable data',
        'SESSION_LOG_INVALID_APPEND',
      );
    }
  });

  it('rule 3: retired request-header vocabulary', () => {
    expectAppendError(
      () => checkAppendCandidate('request/header-delta', {}, {}, fold),
      'session event "request/header-delta" uses unsupported legacy request/header-delta format',
      'SESSION_LOG_LEGACY_FORMAT',
    );
    expectAppendError(
      () => checkAppendCandidate('request/header', { reason: 'fallback', header: {} }, {}, fold),
      'session event "request/header" uses unsupported legacy request/header reason "fallback"',
      'SESSION_LOG_LEGACY_FORMAT',
    );
  });

  it('rule 4: non-JSON surface metadata (after rule 3)', () => {
    expectAppendError(
      () => checkAppendCandidate('user/message', userMessage(2, 'x').data, { surfaceOp: 'append', sourceEventSeqs: [0, undefined] }, fold),
      'session event "user/message" carries non-JSON-serializable surface metadata',
      'SESSION_LOG_INVALID_APPEND',
    );
    expectAppendError(
      () => checkAppendCandidate('user/message', userMessage(2, 'x').data, { surfaceOp: { op: 'replace', start: 0, end: -0 } }, fold),
      'session event "user/message" carries non-JSON-serializable surface metadata',
      'SESSION_LOG_INVALID_APPEND',
    );
    expectAppendError(
      () => checkAppendCandidate('request/header-delta', {}, { surfaceOp: new Map() }, fold),
      'session event "request/header-delta" uses unsupported legacy request/header-delta format',
      'SESSION_LOG_LEGACY_FORMAT',
    );
  });

  it('rule 6: surface rules on the candidate, messages unwrapped', () => {
    expectAppendError(
      () => checkAppendCandidate('user/message', userMessage(2, 'x').data, {}, fold),
      'session event "user/message" is surface-eligible and requires a surfaceOp marker',
      'SESSION_LOG_INVALID_SURFACE',
    );
    expectAppendError(
      () => checkAppendCandidate('turn/start', { turn: 1 }, { surfaceOp: 'append' }, fold),
      'session event "turn/start" is not surface-eligible and cannot carry surfaceOp',
      'SESSION_LOG_INVALID_SURFACE',
    );
    const rewritten = structuredClone(toolResult(1, 'c', 'out').data) as { turn: number };
    rewritten.turn = 2;
    expectAppendError(
      () => checkAppendCandidate('tool/result', rewritten, { sourceEventSeqs: [1], surfaceOp: replace(1, 1) }, fold),
      'tool/result surface replacement may change only content',
      'SESSION_LOG_INVALID_SURFACE',
    );
    // An explicit `undefined` metadata value counts as absent.
    checkAppendCandidate('turn/start', { turn: 1 }, { surfaceOp: undefined, sourceEventSeqs: undefined }, fold);
  });
});

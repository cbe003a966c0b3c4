import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/protocol/events.js';
import {
  SessionReferenceError,
  budgetExceededError,
  cancelledError,
  candidateLimitError,
  configMaxReferencesTooLargeError,
  configNotPositiveSafeIntegerError,
  invalidReferenceUriError,
  readFailedError,
  referenceNotObjectError,
  referenceShapeError,
  selfReferenceError,
  tooManyReferencesError,
} from '../../src/protocol/reference-errors.js';

describe('SessionReferenceError (§14)', () => {
  it('is an Error named SessionReferenceError with a code and no cause or claimed messages by default', () => {
    const error = new SessionReferenceError('SESSION_REFERENCE_TOO_MANY', 'boom');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SessionReferenceError');
    expect(error.code).toBe('SESSION_REFERENCE_TOO_MANY');
    expect(error.message).toBe('boom');
    expect(String(error)).toBe('SessionReferenceError: boom');
    expect('cause' in error).toBe(false);
    expect('claimedDirectMessages' in error).toBe(false);
  });

  it('keeps a given cause, even a falsy one, and the claimed direct messages', () => {
    const claimed: Message[] = [{ id: 'm1', role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } }];
    const error = new SessionReferenceError('SESSION_REFERENCE_READ_FAILED', 'x', { cause: 0, claimedDirectMessages: claimed });
    expect(error.cause).toBe(0);
    expect(error.claimedDirectMessages).toBe(claimed);
  });

  it('lets the listener attach claimed messages later', () => {
    const error = budgetExceededError({ sourceSessionId: 's', minimumBudgetBytes: 17 });
    error.claimedDirectMessages = [];
    expect(error.claimedDirectMessages).toEqual([]);
  });
});

describe('factories produce the exact §14 texts and codes', () => {
  const cases: [SessionReferenceError, string, string][] = [
    [
      configNotPositiveSafeIntegerError('maxReferences'),
      'SESSION_REFERENCE_INVALID_CONFIG',
      'session-reference: maxReferences must be a positive safe integer',
    ],
    [
      configNotPositiveSafeIntegerError('candidateLimit'),
      'SESSION_REFERENCE_INVALID_CONFIG',
      'session-reference: candidateLimit must be a positive safe integer',
    ],
    [
      configNotPositiveSafeIntegerError('maxReferenceBytes'),
      'SESSION_REFERENCE_INVALID_CONFIG',
      'session-reference: maxReferenceBytes must be a positive safe integer',
    ],
    [configMaxReferencesTooLargeError(), 'SESSION_REFERENCE_INVALID_CONFIG', 'session-reference: maxReferences must not exceed 3'],
    [invalidReferenceUriError('dsh-session:IiJ'), 'SESSION_REFERENCE_INVALID_REFERENCE', 'invalid session reference URI "dsh-session:IiJ"'],
    [invalidReferenceUriError('a"b\n'), 'SESSION_REFERENCE_INVALID_REFERENCE', 'invalid session reference URI "a\\"b\\n"'],
    [referenceNotObjectError(), 'SESSION_REFERENCE_INVALID_REFERENCE', 'session reference must be an object'],
    [
      referenceShapeError(),
      'SESSION_REFERENCE_INVALID_REFERENCE',
      'session reference must contain a string sessionId and optional string label',
    ],
    [candidateLimitError(), 'SESSION_REFERENCE_INVALID_REFERENCE', 'candidate limit must be a positive safe integer'],
    [selfReferenceError('target'), 'SESSION_REFERENCE_SELF_REFERENCE', 'session "target" cannot reference itself'],
    [selfReferenceError('a"b'), 'SESSION_REFERENCE_SELF_REFERENCE', 'session "a\\"b" cannot reference itself'],
    [tooManyReferencesError(2), 'SESSION_REFERENCE_TOO_MANY', 'a message may reference at most 2 sessions'],
    [tooManyReferencesError(3), 'SESSION_REFERENCE_TOO_MANY', 'a message may reference at most 3 sessions'],
    [
      readFailedError('non-error read failure'),
      'SESSION_REFERENCE_READ_FAILED',
      'failed to read referenced session: non-error read failure',
    ],
    [readFailedError(new Error('broken')), 'SESSION_REFERENCE_READ_FAILED', 'failed to read referenced session: broken'],
    [
      budgetExceededError({ sourceSessionId: 's', minimumBudgetBytes: 17 }),
      'SESSION_REFERENCE_BUDGET_EXCEEDED',
      'referenced session snapshot cannot fit the configured byte budget',
    ],
    [cancelledError('host cancelled'), 'SESSION_REFERENCE_CANCELLED', 'session reference preparation was cancelled'],
  ];
  it.each(cases)('%#: %s', (error, code, message) => {
    expect(error).toBeInstanceOf(SessionReferenceError);
    expect(error.name).toBe('SessionReferenceError');
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });

  it("only a budget error carries the source and the minimum budget, as readonly data next to dsh's text", () => {
    const error = budgetExceededError({ sourceSessionId: 'session-big', minimumBudgetBytes: 4242 });
    expect(error.message).toBe('referenced session snapshot cannot fit the configured byte budget');
    expect({ sourceSessionId: error.sourceSessionId, minimumBudgetBytes: error.minimumBudgetBytes }).toEqual({
      sourceSessionId: 'session-big',
      minimumBudgetBytes: 4242,
    });
    for (const other of [readFailedError('x'), tooManyReferencesError(3), cancelledError('c')]) {
      expect('sourceSessionId' in other).toBe(false);
      expect('minimumBudgetBytes' in other).toBe(false);
    }
  });

  it('sets causes exactly where §4, §8 and §14 say', () => {
    expect('cause' in invalidReferenceUriError('x')).toBe(false);
    const parseFailure = new SyntaxError('bad json');
    expect(invalidReferenceUriError('x', parseFailure).cause).toBe(parseFailure);
    const broken = new Error('broken');
    expect(readFailedError(broken).cause).toBe(broken);
    expect(readFailedError('non-error read failure').cause).toBe('non-error read failure');
    expect(cancelledError('host cancelled').cause).toBe('host cancelled');
    for (const error of [
      configMaxReferencesTooLargeError(),
      referenceShapeError(),
      selfReferenceError('t'),
      tooManyReferencesError(3),
      budgetExceededError({ sourceSessionId: 's', minimumBudgetBytes: 17 }),
    ]) {
      expect('cause' in error).toBe(false);
    }
  });
});

// errorChain and turnEndReasonForStepFailure (SESSION-REFERENCE.md §13.3 rules 3 and 4).
import { describe, expect, it } from 'vitest';
import { errorChain, turnEndReasonForStepFailure } from '../../../../src/protocol/error-chain.js';
import { cancelledError, invalidReferenceUriError, readFailedError } from '../../../../src/protocol/reference-errors.js';

describe('errorChain — the §13.3 rule 4 examples', () => {
  it('READ_FAILED with cause Error("broken") renders the cause after the message', () => {
    expect(errorChain(readFailedError(new Error('broken')))).toBe('failed to read referenced session: broken: broken');
  });

  it('CANCELLED with reason "host cancelled" renders the string reason', () => {
    expect(errorChain(cancelledError('host cancelled'))).toBe('session reference preparation was cancelled: host cancelled');
  });

  it('an invalid URI with a canonical-check cause', () => {
    const error = invalidReferenceUriError('dsh-session:IiJ', new Error('URI is not canonical'));
    expect(errorChain(error)).toBe('invalid session reference URI "dsh-session:IiJ": URI is not canonical');
  });
});

describe('errorChain — rule 4 clause by clause', () => {
  it('uses the name when the message is empty', () => {
    expect(errorChain(new TypeError(''))).toBe('TypeError');
  });

  it('renders AggregateError members joined by "; " in brackets, before the cause', () => {
    const error = new AggregateError([new Error('a'), 'b', { message: 'c' }], 'many', { cause: new Error('root') });
    expect(errorChain(error)).toBe('many [a; b; c]: root');
  });

  it('omits the brackets for an AggregateError without members', () => {
    expect(errorChain(new AggregateError([], 'none'))).toBe('none');
  });

  it('skips a null, undefined, empty or message-equal cause', () => {
    expect(errorChain(new Error('m', { cause: null }))).toBe('m');
    expect(errorChain(new Error('m', { cause: undefined }))).toBe('m');
    expect(errorChain(new Error('m', { cause: '' }))).toBe('m');
    expect(errorChain(new Error('same', { cause: new Error('same') }))).toBe('same');
  });

  it('renders nested causes recursively', () => {
    expect(errorChain(new Error('a', { cause: new Error('b', { cause: 'c' }) }))).toBe('a: b: c');
  });

  it('renders a cause cycle as <circular cause>', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(errorChain(a)).toBe('a: b: <circular cause>');
  });

  it('renders an aggregate that contains itself as <circular cause>', () => {
    const members: unknown[] = [];
    const error = new AggregateError(members, 'self');
    (error as { errors: unknown[] }).errors = [error];
    expect(errorChain(error)).toBe('self [<circular cause>]');
  });

  it('renders the same error twice when it is not on the current path (siblings)', () => {
    const shared = new Error('x');
    expect(errorChain(new AggregateError([shared, shared], 'pair'))).toBe('pair [x; x]');
  });

  it('uses a non-Error own string data property message, else String(value)', () => {
    expect(errorChain({ message: 'plain' })).toBe('plain');
    expect(errorChain({ message: 42 })).toBe('[object Object]');
    expect(errorChain(Object.create({ message: 'inherited' }))).toBe('[object Object]');
    expect(errorChain(Object.defineProperty({}, 'message', { get: () => 'getter' }))).toBe('[object Object]');
    expect(errorChain(7)).toBe('7');
    expect(errorChain(undefined)).toBe('undefined');
  });

  it('renders a node whose rendering throws as <unrenderable value>', () => {
    expect(errorChain(Object.create(null))).toBe('<unrenderable value>');
    const error = new Error('outer', { cause: Object.create(null) });
    expect(errorChain(error)).toBe('outer: <unrenderable value>');
    const throwing = new Error('x');
    Object.defineProperty(throwing, 'message', {
      get: () => {
        throw new Error('no');
      },
    });
    expect(errorChain(new AggregateError([throwing], 'agg'))).toBe('agg [<unrenderable value>]');
  });
});

describe('turnEndReasonForStepFailure (§13.3 rule 3)', () => {
  it('is aborted with signal.reason when the signal is aborted, whatever the error', () => {
    const controller = new AbortController();
    controller.abort({ kind: 'user' });
    expect(turnEndReasonForStepFailure(readFailedError(new Error('x')), controller.signal)).toEqual({
      kind: 'aborted',
      reason: { kind: 'user' },
    });
  });

  it('keeps a SESSION_REFERENCE_* code with the errorChain message', () => {
    expect(turnEndReasonForStepFailure(readFailedError(new Error('broken')), new AbortController().signal)).toEqual({
      kind: 'error',
      error: { message: 'failed to read referenced session: broken: broken', code: 'SESSION_REFERENCE_READ_FAILED' },
    });
  });

  it('records UNKNOWN for any other error, including other codes', () => {
    const other = Object.assign(new Error('boom'), { code: 'HOST_TURN' });
    expect(turnEndReasonForStepFailure(other, undefined)).toEqual({ kind: 'error', error: { message: 'boom', code: 'UNKNOWN' } });
    expect(turnEndReasonForStepFailure('text', undefined)).toEqual({ kind: 'error', error: { message: 'text', code: 'UNKNOWN' } });
  });
});

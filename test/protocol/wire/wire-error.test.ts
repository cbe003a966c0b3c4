// Errors across the thread boundary: SESSION-LOG.md §10.6 rule 4 (same name, message, code, and the
// cause's name and message), so that the §10.1 classification is unchanged.
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  SessionFormatUnsupportedError,
  SessionLogError,
  SessionPersistenceCorruptionError,
  SessionQueryError,
} from '../../../src/protocol/errors.js';
import { SessionReferenceError } from '../../../src/protocol/reference-errors.js';
import { SessionPoolError } from '../../../src/protocol/wire/pool-errors.js';
import { isWireError, rebuildError, serializeError } from '../../../src/protocol/wire/wire-error.js';
import { inspectionFailure } from '../../../src/main/engine/corpus/storage-error-mapping.js';

/** Posts a value through a real MessageChannel (structured clone) and returns what arrives. */
function throughPort<T>(value: T): T {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(value);
  const received = receiveMessageOnPort(port2);
  port1.close();
  port2.close();
  return received?.message as T;
}

function roundTrip(error: unknown): unknown {
  return rebuildError(throughPort(serializeError(error)));
}

describe('rebuilt errors keep name, message, code and cause', () => {
  it('SessionPersistenceCorruptionError: name, wrapped message, code, cause chain and class', () => {
    const inner = new SessionLogError('SESSION_LOG_INVALID_SURFACE', 'session event seq 3 is not contiguous; expected 2');
    const original = new SessionPersistenceCorruptionError('s-1', inner);
    const rebuilt = roundTrip(original) as Error & { code?: unknown; cause?: Error & { code?: unknown } };
    expect(rebuilt).toBeInstanceOf(SessionPersistenceCorruptionError);
    expect(rebuilt.name).toBe('SessionPersistenceCorruptionError');
    expect(rebuilt.message).toBe('stored session "s-1" failed validation: Error: session event seq 3 is not contiguous; expected 2');
    expect(rebuilt.code).toBe('SESSION_PERSISTENCE_CORRUPT');
    expect(rebuilt.cause).toBeInstanceOf(SessionLogError);
    expect(rebuilt.cause?.name).toBe('Error');
    expect(rebuilt.cause?.message).toBe('session event seq 3 is not contiguous; expected 2');
    expect(rebuilt.cause?.code).toBe('SESSION_LOG_INVALID_SURFACE');
    expect(String(rebuilt.cause)).toBe('Error: session event seq 3 is not contiguous; expected 2');
  });

  it('the §10.1 mapping classifies a rebuilt corruption exactly like the original', () => {
    const original = new SessionPersistenceCorruptionError('s-2', new TypeError("Cannot read properties of null (reading 'turn')"));
    const direct = inspectionFailure('s-2', original);
    const viaThread = inspectionFailure('s-2', roundTrip(original));
    expect({ code: viaThread.code, message: viaThread.message }).toEqual({ code: direct.code, message: direct.message });
    expect(viaThread.code).toBe('SESSION_QUERY_CORRUPT_SESSION');
    expect(viaThread.message).toBe(
      'stored session "s-2" is corrupt: stored session "s-2" failed validation: TypeError: Cannot read properties of null (reading \'turn\')',
    );
  });

  it('SessionFormatUnsupportedError stays PERSISTENCE_FAILED after the round trip', () => {
    const original = new SessionFormatUnsupportedError(
      'session "v" uses log format v2, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it',
    );
    const rebuilt = roundTrip(original);
    expect(rebuilt).toBeInstanceOf(SessionFormatUnsupportedError);
    expect(inspectionFailure('v', rebuilt).code).toBe('SESSION_QUERY_PERSISTENCE_FAILED');
    expect((rebuilt as { code?: unknown }).code).toBe('SESSION_FORMAT_UNSUPPORTED');
  });

  it('SessionQueryError, SessionReferenceError and SessionPoolError keep their classes and codes', () => {
    const cases: Array<[Error & { code: string }, abstract new (...args: never[]) => Error]> = [
      [new SessionQueryError('SESSION_QUERY_SOURCE_CONFLICT', 'session source headers conflict for session "x"'), SessionQueryError],
      [
        new SessionReferenceError('SESSION_REFERENCE_CANCELLED', 'session reference preparation was cancelled', { cause: 'why' }),
        SessionReferenceError,
      ],
      [new SessionPoolError('SESSION_POOL_WORKER_FAILED', 'worker thread failed'), SessionPoolError],
    ];
    for (const [original, type] of cases) {
      const rebuilt = roundTrip(original) as Error & { code?: unknown };
      expect(rebuilt).toBeInstanceOf(type);
      expect({ name: rebuilt.name, message: rebuilt.message, code: rebuilt.code }).toEqual({
        name: original.name,
        message: original.message,
        code: original.code,
      });
    }
  });

  it('native errors keep their class; a Node system error keeps its string code', () => {
    const typeError = roundTrip(new TypeError('not iterable')) as Error;
    expect(typeError).toBeInstanceOf(TypeError);
    expect(String(typeError)).toBe('TypeError: not iterable');
    const system = Object.assign(new Error("ENOENT: no such file or directory, stat '/x'"), { code: 'ENOENT' });
    const rebuilt = roundTrip(system) as Error & { code?: unknown };
    expect(rebuilt.code).toBe('ENOENT');
    expect(rebuilt.message).toBe("ENOENT: no such file or directory, stat '/x'");
  });

  it('name and cause stay non-enumerable own properties, as on the originals', () => {
    const rebuilt = roundTrip(
      new SessionQueryError('SESSION_QUERY_INVALID_SURFACE', 'invalid session surface: x', { cause: new Error('x') }),
    ) as Error;
    expect(Object.getOwnPropertyDescriptor(rebuilt, 'name')?.enumerable).toBe(false);
    expect(Object.getOwnPropertyDescriptor(rebuilt, 'cause')?.enumerable).toBe(false);
    expect(Object.hasOwn(roundTrip(new Error('no cause')) as object, 'cause')).toBe(false);
  });

  it('thrown primitives come back as themselves (errorMessage stays "unknown error"); other objects as an Error of their text', () => {
    expect(roundTrip('not an error')).toBe('not an error');
    expect(roundTrip(undefined)).toBeUndefined();
    expect(roundTrip(42)).toBe(42);
    const object = roundTrip({ toString: () => 'custom thrown object' }) as Error;
    expect(object).toBeInstanceOf(Error);
    expect(object.message).toBe('custom thrown object');
    expect(inspectionFailure('p', roundTrip('not an error')).message).toBe('failed to inspect session "p": unknown error');
  });

  it('a cyclic cause chain is cut instead of hanging', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    let depth = 0;
    for (let current: unknown = roundTrip(error); current instanceof Error; current = (current as { cause?: unknown }).cause) depth += 1;
    expect(depth).toBeGreaterThan(1);
    expect(depth).toBeLessThanOrEqual(10);
  });
});

describe('isWireError validates what a worker sent', () => {
  it('accepts serialised errors and rejects malformed ones', () => {
    expect(isWireError(serializeError(new SessionPersistenceCorruptionError('x', new Error('y'))))).toBe(true);
    expect(isWireError({ kind: 'primitive', value: 'x' })).toBe(true);
    expect(isWireError({ kind: 'error', name: 'Error' })).toBe(false);
    expect(isWireError({ kind: 'error', name: 'Error', message: 'm', code: {} })).toBe(false);
    expect(isWireError({ kind: 'error', name: 'Error', message: 'm', cause: { kind: 'bogus' } })).toBe(false);
    expect(isWireError({ kind: 'primitive', value: {} })).toBe(false);
    expect(isWireError(null)).toBe(false);
  });
});

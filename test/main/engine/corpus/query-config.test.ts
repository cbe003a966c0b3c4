// Configuration of the session query layer: SESSION-LOG.md §10.2, SESSION-REFERENCE.md §15 item 78 (config part).
import { describe, expect, it } from 'vitest';
import { SessionQueryError } from '../../../../src/protocol/errors.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import {
  DEFAULT_PERSISTED_INSPECT_CONCURRENCY,
  DEFAULT_READ_WINDOW_MAX,
  resolveSessionQueryConfig,
} from '../../../../src/main/engine/corpus/query-config.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';

const READ_WINDOW_TEXT = 'session-query: readWindowMax must be a non-negative integer';
const CONCURRENCY_TEXT = 'session-query: persistedInspectConcurrency must be a positive safe integer';

function configError(run: () => unknown): SessionQueryError {
  try {
    run();
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(SessionQueryError);
    return error as SessionQueryError;
  }
  throw new Error('expected the configuration to be rejected');
}

describe('resolveSessionQueryConfig', () => {
  it('applies the §10.2 defaults 50 and 4', () => {
    expect(DEFAULT_READ_WINDOW_MAX).toBe(50);
    expect(DEFAULT_PERSISTED_INSPECT_CONCURRENCY).toBe(4);
    expect(resolveSessionQueryConfig()).toEqual({ readWindowMax: 50, persistedInspectConcurrency: 4, damagedLogErrors: 'corruption' });
    expect(resolveSessionQueryConfig({})).toEqual({ readWindowMax: 50, persistedInspectConcurrency: 4, damagedLogErrors: 'corruption' });
  });

  it('treats null like an absent key', () => {
    expect(resolveSessionQueryConfig({ readWindowMax: null, persistedInspectConcurrency: null })).toEqual({
      readWindowMax: 50,
      persistedInspectConcurrency: 4,
      damagedLogErrors: 'corruption',
    });
  });

  it('accepts the boundary values', () => {
    expect(resolveSessionQueryConfig({ readWindowMax: 0, persistedInspectConcurrency: 1 })).toEqual({
      readWindowMax: 0,
      persistedInspectConcurrency: 1,
      damagedLogErrors: 'corruption',
    });
    expect(resolveSessionQueryConfig({ persistedInspectConcurrency: Number.MAX_SAFE_INTEGER }).persistedInspectConcurrency).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('returns a frozen configuration', () => {
    expect(Object.isFrozen(resolveSessionQueryConfig())).toBe(true);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3', true])('rejects readWindowMax %s with the exact text', (value) => {
    const error = configError(() => resolveSessionQueryConfig({ readWindowMax: value }));
    expect(error.code).toBe('SESSION_QUERY_INVALID_CONFIG');
    expect(error.message).toBe(READ_WINDOW_TEXT);
    expect(error.name).toBe('SessionQueryError');
  });

  it.each([0, -1, 2 ** 53, 1.5, Number.NaN, '4'])('rejects persistedInspectConcurrency %s with the exact text', (value) => {
    const error = configError(() => resolveSessionQueryConfig({ persistedInspectConcurrency: value }));
    expect(error.code).toBe('SESSION_QUERY_INVALID_CONFIG');
    expect(error.message).toBe(CONCURRENCY_TEXT);
  });

  it('takes damagedLogErrors corruption (default) or dsh, and refuses anything else with the exact text', () => {
    expect(resolveSessionQueryConfig({ damagedLogErrors: 'dsh' }).damagedLogErrors).toBe('dsh');
    for (const value of ['DSH', 'plain', 1, true]) {
      const error = configError(() => resolveSessionQueryConfig({ damagedLogErrors: value }));
      expect(error.code).toBe('SESSION_QUERY_INVALID_CONFIG');
      expect(error.message).toBe('session-query: damagedLogErrors must be "corruption" or "dsh"');
    }
  });

  it('checks readWindowMax before persistedInspectConcurrency', () => {
    const error = configError(() => resolveSessionQueryConfig({ readWindowMax: -1, persistedInspectConcurrency: 0 }));
    expect(error.message).toBe(READ_WINDOW_TEXT);
  });
});

describe('SessionQuery construction (item 78)', () => {
  const registry = new InMemoryLiveRegistry();

  it('refuses readWindowMax -1, persistedInspectConcurrency 0 and 2^53', () => {
    expect(configError(() => new SessionQuery({ registry, config: { readWindowMax: -1 } })).message).toBe(READ_WINDOW_TEXT);
    expect(configError(() => new SessionQuery({ registry, config: { persistedInspectConcurrency: 0 } })).message).toBe(CONCURRENCY_TEXT);
    expect(configError(() => new SessionQuery({ registry, config: { persistedInspectConcurrency: 2 ** 53 } })).code).toBe(
      'SESSION_QUERY_INVALID_CONFIG',
    );
  });

  it('constructs with defaults', () => {
    expect(new SessionQuery({ registry }).config).toEqual({
      readWindowMax: 50,
      persistedInspectConcurrency: 4,
      damagedLogErrors: 'corruption',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError, SessionLogError, SessionQueryError } from '../../src/protocol/errors.js';
import type { SessionHeader } from '../../src/protocol/events.js';
import { asSessionId } from '../../src/protocol/events.js';
import { assertCompatibleHeaders, formatVersionRefusal, validateSessionHeader } from '../../src/protocol/session-header.js';
import { expectError } from './event-builders.js';

const valid = (): Record<string, unknown> => ({ version: 0, id: 's1', createdAt: 1767225600000, cwd: '/w', delegationDepth: 0 });

function expectHeaderError(header: unknown, message: string): void {
  expectError(() => validateSessionHeader(header, 's1'), {
    message,
    code: 'SESSION_LOG_INVALID_HEADER',
    type: SessionLogError,
    name: 'Error',
  });
}

describe('§7.2 restored header validation', () => {
  it('returns the same header, deep-frozen', () => {
    const header = { ...valid(), parentSession: 'p', seedLength: 3, origin: 'subagent', agentPreset: 'x' };
    const result = validateSessionHeader(header, 's1');
    expect(result).toBe(header);
    expect(Object.isFrozen(result)).toBe(true);
    expect(() => validateSessionHeader({ version: 0, id: 's1', createdAt: 0 }, 's1')).not.toThrow();
  });

  it('1. not a plain record', () => {
    class Header {
      version = 0;
      id = 's1';
      createdAt = 0;
    }
    for (const header of [null, [], 'x', 5, new Header(), new Map()]) {
      expectHeaderError(header, 'session header is not a plain JSON record');
    }
    expect(() => validateSessionHeader(Object.assign(Object.create(null), valid()), 's1')).not.toThrow();
  });

  it('2. version must be 0', () => {
    expectHeaderError({ ...valid(), version: 1 }, 'session header version must be 0, got 1');
    expectHeaderError({ ...valid(), version: undefined }, 'session header version must be 0, got undefined');
    expectHeaderError({ ...valid(), version: '0' }, 'session header version must be 0, got 0');
  });

  it('3. id must match (raw, String-rendered)', () => {
    expectHeaderError({ ...valid(), id: 's2' }, 'session header id "s2" does not match session id "s1"');
    expectHeaderError({ ...valid(), id: 7 }, 'session header id "7" does not match session id "s1"');
  });

  it('4. createdAt', () => {
    for (const createdAt of [undefined, -1, 1.5, '1', 2 ** 53]) {
      expectHeaderError({ ...valid(), createdAt }, 'session header createdAt must be a non-negative safe integer');
    }
  });

  it('5. cwd must be a string and POSIX-absolute', () => {
    expectHeaderError({ ...valid(), cwd: 5 }, 'session header cwd must be a string');
    expectHeaderError({ ...valid(), cwd: null }, 'session header cwd must be a string');
    expectHeaderError({ ...valid(), cwd: 'relative/dir' }, 'session header cwd must be an absolute path, got "relative/dir"');
    expectHeaderError({ ...valid(), cwd: '' }, 'session header cwd must be an absolute path, got ""');
    expectHeaderError({ ...valid(), cwd: 'C:\\work' }, 'session header cwd must be an absolute path, got "C:\\work"');
  });

  it('6.–10. optional fields', () => {
    expectHeaderError({ ...valid(), parentSession: 1 }, 'session header parentSession must be a string');
    expectHeaderError({ ...valid(), seedLength: -1 }, 'session header seedLength must be a non-negative safe integer');
    expectHeaderError({ ...valid(), origin: 'user' }, 'session header origin must be "subagent"');
    expectHeaderError({ ...valid(), delegationDepth: 0.5 }, 'session header delegationDepth must be a non-negative safe integer');
    expectHeaderError({ ...valid(), agentPreset: null }, 'session header agentPreset must be a string');
  });

  it('checks in order', () => {
    expectHeaderError({ version: 0, id: 's1', createdAt: -1, cwd: 5 }, 'session header createdAt must be a non-negative safe integer');
    expectHeaderError({ ...valid(), seedLength: -1, origin: 'x' }, 'session header seedLength must be a non-negative safe integer');
  });
});

describe('§7.3 header compatibility', () => {
  const base: SessionHeader = { version: 0, id: asSessionId('s1'), createdAt: 1, cwd: '/w' };

  it('accepts equal headers, ignoring origin and agentPreset, with delegationDepth absent = 0', () => {
    expect(() => assertCompatibleHeaders(base, { ...base, origin: 'subagent', agentPreset: 'x', delegationDepth: 0 })).not.toThrow();
  });

  it('rejects any difference in the compared fields', () => {
    const variants: SessionHeader[] = [
      { ...base, createdAt: 2 },
      { ...base, cwd: '/x' },
      { version: 0, id: asSessionId('s1'), createdAt: 1 },
      { ...base, parentSession: 'p' },
      { ...base, seedLength: 0 },
      { ...base, delegationDepth: 1 },
      { ...base, id: asSessionId('s2') },
    ];
    for (const other of variants) {
      expectError(() => assertCompatibleHeaders(base, other), {
        message: 'session source headers conflict for session "s1"',
        code: 'SESSION_QUERY_SOURCE_CONFLICT',
        name: 'SessionQueryError',
        type: SessionQueryError,
      });
    }
  });
});

describe('§7.4 format version refusal', () => {
  it('newer and older texts, with and without the path', () => {
    const newer = formatVersionRefusal('abc', 1, '/root/--w--/abc/session.jsonl');
    expect(newer).toBeInstanceOf(SessionFormatUnsupportedError);
    expect(newer.name).toBe('SessionFormatUnsupportedError');
    expect(newer.message).toBe(
      'session "abc" uses log format v1, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: /root/--w--/abc/session.jsonl)',
    );
    expect(formatVersionRefusal('abc', -2).message).toBe(
      'session "abc" uses log format v-2, older than the supported v0, and this build ships no upgrade path for it',
    );
    expect(formatVersionRefusal(42, 3).message).toBe(
      'session "42" uses log format v3, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it',
    );
  });
});

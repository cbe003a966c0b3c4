// SESSION-REFERENCE.md §15 item 83 (header-line parts): writer key order, what counts as a header line,
// retired fields, and the full-read first-record parse with the §7.4 refusal (SESSION-LOG.md §9.6).
import { describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError, SessionLogError } from '../../src/protocol/errors.js';
import { asSessionId } from '../../src/protocol/events.js';
import { headerRecordFromLine, isHeaderLine, parseHeaderRecord, serializeHeaderLine } from '../../src/protocol/header-line.js';
import { thrown } from '../support/thrown.js';

const PATH = '/root/--w--/abc/session.jsonl';

describe('serializeHeaderLine', () => {
  it('reproduces the example of SESSION-LOG.md §9.6 (delegationDepth 0 written for a top-level session)', () => {
    expect(serializeHeaderLine({ version: 0, id: asSessionId('abc'), createdAt: 1767225600000, cwd: '/w' })).toBe(
      '{"type":"session","version":0,"id":"abc","createdAt":1767225600000,"cwd":"/w","delegationDepth":0}',
    );
  });

  it('writes every field in writer order whatever the input order, omitting absent ones', () => {
    const header = {
      agentPreset: 'review',
      delegationDepth: 2,
      origin: 'subagent' as const,
      seedLength: 4,
      parentSession: 'p',
      cwd: '/w',
      createdAt: 5,
      id: asSessionId('child'),
      version: 0 as const,
    };
    expect(serializeHeaderLine(header)).toBe(
      '{"type":"session","version":0,"id":"child","createdAt":5,"cwd":"/w","parentSession":"p","seedLength":4,"origin":"subagent","delegationDepth":2,"agentPreset":"review"}',
    );
    expect(serializeHeaderLine({ version: 0, id: asSessionId('x'), createdAt: 1 })).toBe(
      '{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":0}',
    );
  });
});

describe('isHeaderLine', () => {
  const valid = { type: 'session', version: 0, id: 'a', createdAt: 1, delegationDepth: 0 };
  it('accepts a minimal header and one with origin/agentPreset', () => {
    expect(isHeaderLine(valid)).toBe(true);
    expect(isHeaderLine({ ...valid, origin: 'subagent', agentPreset: 'p', cwd: 42 })).toBe(true);
    expect(isHeaderLine({ ...valid, version: 7 })).toBe(true);
  });
  it.each([
    ['missing delegationDepth', { type: 'session', version: 0, id: 'a', createdAt: 1 }],
    ['createdAt -0', { ...valid, createdAt: -0 }],
    ['delegationDepth -0', { ...valid, delegationDepth: -0 }],
    ['negative createdAt', { ...valid, createdAt: -1 }],
    ['fractional delegationDepth', { ...valid, delegationDepth: 0.5 }],
    ['unsafe createdAt', { ...valid, createdAt: 2 ** 53 }],
    ['string version', { ...valid, version: '0' }],
    ['numeric id', { ...valid, id: 1 }],
    ['other type', { ...valid, type: 'turn/start' }],
    ['origin not subagent', { ...valid, origin: 'user' }],
    ['agentPreset not a string', { ...valid, agentPreset: 1 }],
    ['null', null],
    ['array', [valid]],
  ])('rejects %s', (_name, value) => {
    expect(isHeaderLine(value)).toBe(false);
  });
  it('sees -0 in a parsed line (JSON.parse keeps it)', () => {
    expect(isHeaderLine(JSON.parse('{"type":"session","version":0,"id":"a","createdAt":-0,"delegationDepth":0}'))).toBe(false);
  });
});

describe('headerRecordFromLine', () => {
  it('copies header fields in header order, drops type and unknown keys, keeps delegationDepth', () => {
    const record = headerRecordFromLine({
      extra: true,
      agentPreset: 'p',
      delegationDepth: 1,
      origin: 'subagent',
      cwd: '/w',
      createdAt: 3,
      id: 'i',
      version: 0,
      type: 'session',
    });
    expect(JSON.stringify(record)).toBe(
      '{"version":0,"id":"i","createdAt":3,"cwd":"/w","origin":"subagent","delegationDepth":1,"agentPreset":"p"}',
    );
  });
  it.each(['sandboxMode', 'approvalPolicy'])('throws the retired-fields error for an own %s key', (key) => {
    const error = thrown(() =>
      headerRecordFromLine({ type: 'session', version: 0, id: 'a', createdAt: 1, delegationDepth: 0, [key]: null }),
    );
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error).toMatchObject({ code: 'SESSION_LOG_INVALID_HEADER', message: 'session header uses retired policy baseline fields' });
  });
});

describe('parseHeaderRecord (full-read first record)', () => {
  it('returns the header record of a valid header line', () => {
    expect(parseHeaderRecord('{"type":"session","version":0,"id":"a","createdAt":1,"cwd":"/w","delegationDepth":0}\n')).toEqual({
      version: 0,
      id: 'a',
      createdAt: 1,
      cwd: '/w',
      delegationDepth: 0,
    });
  });

  it.each([
    ['empty', ''],
    ['no LF', '{"type":"session"}'],
    ['two LFs', '{"type":"session"}\n{}\n'],
  ])('%s → empty or header-less session log', (_name, text) => {
    expect(thrown(() => parseHeaderRecord(text))).toMatchObject({
      code: 'SESSION_LOG_CORRUPT',
      message: 'empty or header-less session log',
    });
  });

  it('invalid JSON (including a BOM) → header line is not valid JSON', () => {
    for (const text of ['{"type":\n', '\uFEFF{"type":"session","version":0,"id":"a","createdAt":1,"delegationDepth":0}\n']) {
      expect(thrown(() => parseHeaderRecord(text))).toMatchObject({
        code: 'SESSION_LOG_CORRUPT',
        message: 'corrupt session log: header line is not valid JSON',
      });
    }
  });

  it('not a header → first line is not a session header', () => {
    for (const text of ['{"type":"session","version":0,"id":"a","createdAt":1}\n', '[1]\n', 'null\n', '{"type":"turn/start","seq":0}\n']) {
      expect(thrown(() => parseHeaderRecord(text))).toMatchObject({
        code: 'SESSION_LOG_INVALID_HEADER',
        message: 'corrupt session log: first line is not a session header',
      });
    }
  });

  it('a v1 header is refused with the newer-harness text and the raw-log suffix, before the shape check', () => {
    // Missing createdAt/delegationDepth: the version refusal must still win.
    const error = thrown(() => parseHeaderRecord('{"type":"session","version":1,"id":"abc"}\n', PATH));
    expect(error).toBeInstanceOf(SessionFormatUnsupportedError);
    expect((error as Error).name).toBe('SessionFormatUnsupportedError');
    expect((error as Error).message).toBe(
      `session "abc" uses log format v1, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${PATH})`,
    );
  });

  it('a negative version gets the no-upgrade-path text; a non-string id is rendered with String()', () => {
    const error = thrown(() => parseHeaderRecord('{"type":"session","version":-1,"id":7,"createdAt":1,"delegationDepth":0}\n', PATH));
    expect(error).toBeInstanceOf(SessionFormatUnsupportedError);
    expect((error as Error).message).toBe(
      `session "7" uses log format v-1, older than the supported v0, and this build ships no upgrade path for it (raw log: ${PATH})`,
    );
    const noPath = thrown(() => parseHeaderRecord('{"version":2}\n'));
    expect((noPath as Error).message).toBe(
      'session "undefined" uses log format v2, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it',
    );
  });

  it('retired fields in an otherwise valid v0 header throw', () => {
    expect(
      thrown(() => parseHeaderRecord('{"type":"session","version":0,"id":"a","createdAt":1,"delegationDepth":0,"sandboxMode":"x"}\n')),
    ).toMatchObject({ message: 'session header uses retired policy baseline fields' });
  });
});

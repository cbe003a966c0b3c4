import fc from 'fast-check';
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { SessionReferenceError } from '../../../src/protocol/reference-errors.js';
import { SESSION_REFERENCE_SCHEME, decodeSessionReferenceUri, encodeSessionReferenceUri } from '../../../src/protocol/uri/session-uri.js';
import { arbitraryJsString } from './string-arbitraries.js';

/** The §4 encoding table (item 1). */
const ENCODINGS: [string, string][] = [
  ['', 'dsh-session:IiI'],
  ['abc', 'dsh-session:ImFiYyI'],
  ['source', 'dsh-session:InNvdXJjZSI'],
  ['source]', 'dsh-session:InNvdXJjZV0i'],
  ['unicode/引号"/slash\\/line\n', 'dsh-session:InVuaWNvZGUv5byV5Y-3XCIvc2xhc2hcXC9saW5lXG4i'],
  ['a\u001bb', 'dsh-session:ImFcdTAwMWJiIg'],
  ['\ud800', 'dsh-session:Ilx1ZDgwMCI'],
  ['id', 'dsh-session:ImlkIg'],
];

type CauseExpectation = 'none' | 'syntax' | 'not-a-string' | 'not-canonical';

/** Asserts the §4 failure: code, exact message, and the cause of the failing step. */
function expectInvalidUri(uri: string, cause: CauseExpectation): void {
  let thrown: unknown;
  try {
    decodeSessionReferenceUri(uri);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SessionReferenceError);
  const error = thrown as SessionReferenceError;
  expect(error.name).toBe('SessionReferenceError');
  expect(error.code).toBe('SESSION_REFERENCE_INVALID_REFERENCE');
  expect(error.message).toBe(`invalid session reference URI ${JSON.stringify(uri)}`);
  switch (cause) {
    case 'none':
      expect('cause' in error).toBe(false);
      break;
    case 'syntax':
      expect(error.cause).toBeInstanceOf(SyntaxError);
      break;
    case 'not-a-string':
      expect(error.cause).toBeInstanceOf(TypeError);
      expect((error.cause as Error).message).toBe('decoded session id is not a string');
      break;
    case 'not-canonical':
      expect(error.cause).toBeInstanceOf(TypeError);
      expect((error.cause as Error).message).toBe('URI is not canonical');
      break;
    default: {
      const unreachable: never = cause;
      throw new Error(`unhandled cause expectation ${String(unreachable)}`);
    }
  }
}

describe('URI codec (§4)', () => {
  it('exposes the scheme', () => {
    expect(SESSION_REFERENCE_SCHEME).toBe('dsh-session:');
  });

  it.each(ENCODINGS)('encodes %j as %s and decodes it back', (id, uri) => {
    expect(encodeSessionReferenceUri(id)).toBe(uri);
    expect(decodeSessionReferenceUri(uri)).toBe(id);
  });

  it('round-trips the item 1 id', () => {
    const id = 'unicode/引号"/slash\\/line\n';
    expect(decodeSessionReferenceUri(encodeSessionReferenceUri(id))).toBe(id);
  });

  it('round-trips a lone low surrogate and a reversed pair', () => {
    for (const id of ['\udc00', '\udc00\ud800', 'x\ud83d', '\ude80y']) {
      expect(decodeSessionReferenceUri(encodeSessionReferenceUri(id))).toBe(id);
    }
  });

  describe('rejects the §4 inputs (item 6) with the exact message and cause', () => {
    const rejected: [string, CauseExpectation][] = [
      ['https://example.test', 'none'],
      ['dsh-session:', 'none'],
      ['dsh-session:%%%', 'none'],
      ['dsh-session:IiJ', 'not-canonical'],
      ['dsh-session:x', 'syntax'],
      ['dsh-session:eyJpZCI6IngifQ', 'not-a-string'],
      ['dsh-session:ICJhYmMi', 'not-canonical'],
      ['dsh-session:Ilx1MDA2MSI', 'not-canonical'],
    ];
    it.each(rejected)('%s (cause: %s)', (uri, cause) => expectInvalidUri(uri, cause));
  });

  describe('rejects further malformed inputs', () => {
    const rejected: [string, CauseExpectation][] = [
      // Scheme is case-sensitive and must be a prefix.
      ['DSH-SESSION:IiI', 'none'],
      [' dsh-session:IiI', 'none'],
      ['', 'none'],
      // Payload alphabet: padding, standard base64 characters, whitespace.
      ['dsh-session:IiI=', 'none'],
      ['dsh-session:Ij8/Pj4i', 'none'],
      ['dsh-session:Ij8+Pj4i', 'none'],
      ['dsh-session:IiI ', 'none'],
      ['dsh-session:IiI\n', 'none'],
      // Decoded JSON that is not a string: number, array, null, true.
      ['dsh-session:MTIz', 'not-a-string'],
      ['dsh-session:WyJhIl0', 'not-a-string'],
      ['dsh-session:bnVsbA', 'not-a-string'],
      ['dsh-session:dHJ1ZQ', 'not-a-string'],
      // Broken JSON.
      ['dsh-session:eyJhIg', 'syntax'],
      ['dsh-session:ImFiYw', 'syntax'],
      // `"\/"` is valid JSON for "/" but JSON.stringify spells it `"/"`.
      ['dsh-session:IlwvIg', 'not-canonical'],
      // Trailing whitespace after the JSON string.
      ['dsh-session:ImFiYyIg', 'not-canonical'],
      // The explicit-mention test of §5.3.
      ['dsh-session:not-canonical', 'syntax'],
    ];
    it.each(rejected)('%j (cause: %s)', (uri, cause) => expectInvalidUri(uri, cause));

    it('rejects invalid UTF-8 (decoded as U+FFFD, then not canonical)', () => {
      // `"` 0xFF `"`: the lone 0xFF decodes to U+FFFD, whose canonical encoding is EF BF BD.
      const uri = SESSION_REFERENCE_SCHEME + Buffer.from([0x22, 0xff, 0x22]).toString('base64url');
      expect(uri).toBe('dsh-session:Iv8i');
      expectInvalidUri(uri, 'not-canonical');
      // A CESU-style encoded surrogate (ED A0 80) is invalid UTF-8 as well.
      expectInvalidUri(SESSION_REFERENCE_SCHEME + Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]).toString('base64url'), 'not-canonical');
    });

    it('rejects a UTF-8 byte-order mark before the JSON', () => {
      const uri = SESSION_REFERENCE_SCHEME + Buffer.from([0xef, 0xbb, 0xbf, 0x22, 0x61, 0x22]).toString('base64url');
      expect(() => decodeSessionReferenceUri(uri)).toThrow(`invalid session reference URI ${JSON.stringify(uri)}`);
    });

    it('quotes the URI with JSON rules in the message', () => {
      expect(() => decodeSessionReferenceUri('x"\\\n\ud800')).toThrow('invalid session reference URI "x\\"\\\\\\n\\ud800"');
    });
  });

  it('accepts the empty id', () => {
    expect(decodeSessionReferenceUri('dsh-session:IiI')).toBe('');
  });

  describe('properties', () => {
    it('decode(encode(id)) === id for arbitrary strings, lone surrogates included', () => {
      fc.assert(
        fc.property(arbitraryJsString(60), (id) => {
          expect(decodeSessionReferenceUri(encodeSessionReferenceUri(id))).toBe(id);
        }),
        { numRuns: 2000 },
      );
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), (id) => {
          expect(decodeSessionReferenceUri(encodeSessionReferenceUri(id))).toBe(id);
        }),
        { numRuns: 1000 },
      );
    });

    it('encode always yields dsh-session: followed by unpadded base64url', () => {
      fc.assert(
        fc.property(arbitraryJsString(60), (id) => {
          expect(encodeSessionReferenceUri(id)).toMatch(/^dsh-session:[A-Za-z0-9_-]+$/);
        }),
        { numRuns: 2000 },
      );
    });

    it('every accepted URI is the canonical encoding of its id', () => {
      fc.assert(
        fc.property(fc.string({ unit: fc.constantFrom(...'ABCIJQRSZabcdeijkwxyz0189-_'), minLength: 1, maxLength: 16 }), (payload) => {
          const uri = SESSION_REFERENCE_SCHEME + payload;
          let id: string | undefined;
          try {
            id = decodeSessionReferenceUri(uri);
          } catch (error) {
            // Most random payloads are rejected; the property is about the accepted ones.
            expect(error).toBeInstanceOf(SessionReferenceError);
            return;
          }
          expect(encodeSessionReferenceUri(id)).toBe(uri);
        }),
        { numRuns: 3000 },
      );
    });
  });
});

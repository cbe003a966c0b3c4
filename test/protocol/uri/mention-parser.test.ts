import { describe, expect, it } from 'vitest';
import type { ContentBlock } from '../../../src/protocol/events.js';
import { SessionReferenceError } from '../../../src/protocol/reference-errors.js';
import { formatSessionReferenceMention } from '../../../src/protocol/uri/mention-formatter.js';
import { parseMessageContent, parseSessionReferenceText } from '../../../src/protocol/uri/mention-parser.js';

/** `<u>` of §5.3: the URI of id `id`. */
const U_ID = 'dsh-session:ImlkIg';
/** The §4 id with quotes, slashes, a backslash and a newline, and its URI. */
const WEIRD_ID = 'unicode/引号"/slash\\/line\n';
const WEIRD_URI = 'dsh-session:InVuaWNvZGUv5byV5Y-3XCIvc2xhc2hcXC9saW5lXG4i';
const ID_REFERENCE = { sessionId: 'id', label: 'id' };

/** Asserts that parsing `text` throws INVALID_REFERENCE naming `uri`. */
function expectParseRejects(text: string, uri: string): SessionReferenceError {
  let thrown: unknown;
  try {
    parseSessionReferenceText(text);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SessionReferenceError);
  const error = thrown as SessionReferenceError;
  expect(error.code).toBe('SESSION_REFERENCE_INVALID_REFERENCE');
  expect(error.message).toBe(`invalid session reference URI ${JSON.stringify(uri)}`);
  return error;
}

describe('parseSessionReferenceText: §5.3 table and items 2–9, 12', () => {
  it('item 2: formatter mention with an escaped `]` label, then the bare URI', () => {
    const mention = formatSessionReferenceMention({ sessionId: WEIRD_ID, label: '源]会话' });
    expect(mention).toBe(`@[源\\]会话](${WEIRD_URI})`);
    expect(parseSessionReferenceText(`compare ${mention} and ${WEIRD_URI}`)).toEqual({
      text: `compare @源]会话 and @${WEIRD_ID}`,
      references: [
        { sessionId: WEIRD_ID, label: '源]会话' },
        { sessionId: WEIRD_ID, label: WEIRD_ID },
      ],
    });
  });

  it('item 4: bare URIs followed by punctuation and inside backticks', () => {
    expect(parseSessionReferenceText(`see ${U_ID}. and \`${U_ID}\``)).toEqual({
      text: 'see @id. and `@id`',
      references: [ID_REFERENCE, ID_REFERENCE],
    });
  });

  it('item 5: an empty or punctuation payload is ordinary text', () => {
    for (const text of ['what is a dsh-session: URI?', 'see dsh-session:%%%', 'dsh-session:... and dsh-session:!!!']) {
      expect(parseSessionReferenceText(text)).toEqual({ text, references: [] });
    }
  });

  it('items 6/7: invalid URIs make the whole parse throw', () => {
    expect((expectParseRejects('see dsh-session:IiJ', 'dsh-session:IiJ').cause as Error).message).toBe('URI is not canonical');
    expect('cause' in expectParseRejects('@[bad](dsh-session:%%%)', 'dsh-session:%%%')).toBe(false);
    expect('cause' in expectParseRejects('@[x](dsh-session:)', 'dsh-session:')).toBe(false);
    expect(expectParseRejects('@[bad](dsh-session:not-canonical)', 'dsh-session:not-canonical').cause).toBeInstanceOf(SyntaxError);
    // A valid mention before the invalid one does not rescue the call.
    expectParseRejects(`@[ok](${U_ID}) then dsh-session:IiJ`, 'dsh-session:IiJ');
  });

  it('item 8 (D9): no left boundary, greedy payload', () => {
    expect(parseSessionReferenceText(`http://h/${U_ID}`)).toEqual({ text: 'http://h/@id', references: [ID_REFERENCE] });
    expect(parseSessionReferenceText(`x${U_ID}`)).toEqual({ text: 'x@id', references: [ID_REFERENCE] });
    expectParseRejects(`${U_ID}abc`, `${U_ID}abc`);
    expectParseRejects(`${U_ID}-x`, `${U_ID}-x`);
    expectParseRejects(`${U_ID}_`, `${U_ID}_`);
    expect(parseSessionReferenceText(`@[x](${U_ID} )`)).toEqual({ text: '@[x](@id )', references: [ID_REFERENCE] });
    expect(parseSessionReferenceText(`@[a\\\nb](${U_ID})`)).toEqual({ text: '@[a\\\nb](@id)', references: [ID_REFERENCE] });
  });

  it('item 9: the empty id', () => {
    expect(parseSessionReferenceText('@[x](dsh-session:IiI)')).toEqual({ text: '@x', references: [{ sessionId: '', label: 'x' }] });
    expect(parseSessionReferenceText('id dsh-session:IiI end')).toEqual({ text: 'id @ end', references: [{ sessionId: '', label: '' }] });
  });

  it('item 12: parsed labels keep raw controls', () => {
    expect(parseSessionReferenceText(`@[a\u0007b](${U_ID})`)).toEqual({
      text: '@a\u0007b',
      references: [{ sessionId: 'id', label: 'a\u0007b' }],
    });
  });

  it('a bare URI label is the raw id, newline included (§5.4 item 4)', () => {
    expect(parseSessionReferenceText(`see ${WEIRD_URI} now`)).toEqual({
      text: `see @${WEIRD_ID} now`,
      references: [{ sessionId: WEIRD_ID, label: WEIRD_ID }],
    });
  });
});

describe('parseSessionReferenceText: grammar details (§5.1)', () => {
  it('unescapes every backslash + code point in labels, astral code points whole', () => {
    expect(parseSessionReferenceText(`@[\\a\\\\b\\]\\🚀\\[](${U_ID})`).references).toEqual([{ sessionId: 'id', label: 'a\\b]🚀[' }]);
  });

  it('allows line terminators as plain label atoms but not after a backslash', () => {
    for (const terminator of ['\n', '\r', '\u2028', '\u2029']) {
      expect(parseSessionReferenceText(`@[a${terminator}b](${U_ID})`)).toEqual({
        text: `@a${terminator}b`,
        references: [{ sessionId: 'id', label: `a${terminator}b` }],
      });
      expect(parseSessionReferenceText(`@[a\\${terminator}b](${U_ID})`)).toEqual({
        text: `@[a\\${terminator}b](@id)`,
        references: [ID_REFERENCE],
      });
    }
  });

  it('stops the explicit URI at any JavaScript whitespace, then matches the bare URI', () => {
    for (const space of ['\u00a0', '\ufeff', '\u2028', '\u2029', '\t', '\u3000']) {
      expect(parseSessionReferenceText(`@[x](${U_ID}${space})`)).toEqual({ text: `@[x](@id${space})`, references: [ID_REFERENCE] });
    }
  });

  it('inserts labels literally, never as `$` replacement patterns', () => {
    expect(parseSessionReferenceText(`a @[$&$1$$$\`$'](${U_ID}) b`)).toEqual({
      text: "a @$&$1$$$`$' b",
      references: [{ sessionId: 'id', label: "$&$1$$$`$'" }],
    });
    // The bare form inserts the raw id: `$&` is the URI of id "$&".
    expect(parseSessionReferenceText('x dsh-session:IiQmIg y')).toEqual({
      text: 'x @$& y',
      references: [{ sessionId: '$&', label: '$&' }],
    });
  });

  it('lists references in appearance order, duplicates kept', () => {
    expect(parseSessionReferenceText(`${U_ID} @[one](dsh-session:IiI) @[two](${U_ID}) dsh-session:ImFiYyI`)).toEqual({
      text: '@id @one @two @abc',
      references: [ID_REFERENCE, { sessionId: '', label: 'one' }, { sessionId: 'id', label: 'two' }, { sessionId: 'abc', label: 'abc' }],
    });
  });

  it('keeps working after a throwing parse (no leaked regex state)', () => {
    expectParseRejects(`${U_ID} dsh-session:IiJ`, 'dsh-session:IiJ');
    expect(parseSessionReferenceText(`z ${U_ID}`)).toEqual({ text: 'z @id', references: [ID_REFERENCE] });
  });

  it('leaves text without references unchanged', () => {
    expect(parseSessionReferenceText('')).toEqual({ text: '', references: [] });
    expect(parseSessionReferenceText('@[x](https://e) DSH-SESSION:IiI')).toEqual({
      text: '@[x](https://e) DSH-SESSION:IiI',
      references: [],
    });
  });
});

describe('parseMessageContent (§5.2)', () => {
  const reasoning = Object.freeze({ type: 'reasoning', text: `thinking about ${U_ID}` });
  const toolCall = Object.freeze({ type: 'tool-call', id: 'c1', name: 'read', arguments: `{"u":"${U_ID}"}` });
  const plain = Object.freeze({ type: 'text', text: 'no mention here' });

  it('rewrites only text blocks, keeps other blocks as the same objects, concatenates references in block order', () => {
    const first = Object.freeze({ type: 'text', text: `use @[A](dsh-session:ImFiYyI)`, cacheHint: true });
    const last = Object.freeze({ type: 'text', text: `and ${U_ID}` });
    const content: readonly ContentBlock[] = Object.freeze([first, reasoning, plain, toolCall, last]);
    const parsed = parseMessageContent(content);
    expect(parsed.changed).toBe(true);
    expect(parsed.content).not.toBe(content);
    expect(parsed.content).toEqual([
      { type: 'text', text: 'use @A', cacheHint: true },
      reasoning,
      plain,
      toolCall,
      { type: 'text', text: 'and @id' },
    ]);
    expect(Object.keys(parsed.content[0] ?? {})).toEqual(['type', 'text', 'cacheHint']);
    expect(parsed.content[1]).toBe(reasoning);
    expect(parsed.content[2]).toBe(plain);
    expect(parsed.content[3]).toBe(toolCall);
    expect(parsed.references).toEqual([{ sessionId: 'abc', label: 'A' }, ID_REFERENCE]);
    // The input is untouched.
    expect(first.text).toBe('use @[A](dsh-session:ImFiYyI)');
  });

  it('returns the same array when no text block holds a reference', () => {
    const content: readonly ContentBlock[] = [plain, reasoning, toolCall];
    const parsed = parseMessageContent(content);
    expect(parsed).toEqual({ content, references: [], changed: false });
    expect(parsed.content).toBe(content);
    const empty: readonly ContentBlock[] = [];
    expect(parseMessageContent(empty).content).toBe(empty);
  });

  it('throws INVALID_REFERENCE when any text block holds a malformed URI', () => {
    expect(() =>
      parseMessageContent([
        { type: 'text', text: U_ID },
        { type: 'text', text: 'dsh-session:IiJ' },
      ]),
    ).toThrow('invalid session reference URI "dsh-session:IiJ"');
  });
});

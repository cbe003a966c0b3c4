/**
 * dsh's own outputs (`dsh-small/expected/mentions.json`) for URI encodings, formatted mentions and
 * parses. Every case must match byte for byte except the formatter on labels containing characters
 * of the display set E (SESSION-REFERENCE.md D5, §6): there the documented escaped form is expected.
 */
import { describe, expect, it } from 'vitest';
import { SessionReferenceError } from '../../../src/protocol/reference-errors.js';
import { formatSessionReferenceMention } from '../../../src/protocol/uri/mention-formatter.js';
import { parseSessionReferenceText } from '../../../src/protocol/uri/mention-parser.js';
import { SESSION_REFERENCE_SCHEME, decodeSessionReferenceUri, encodeSessionReferenceUri } from '../../../src/protocol/uri/session-uri.js';
import { readExpected } from '../../support/fixtures.js';

interface ParseResult {
  text: string;
  references: { sessionId: string; label: string }[];
}

interface MentionsFixture {
  constants: { SESSION_REFERENCE_SCHEME: string };
  ids: {
    sessionId: string;
    uri: string;
    decoded: { sessionId: string };
    mention: string;
    parsedMention: ParseResult;
    labelled: { label: string; mention: string; parsed: ParseResult };
    parsedBareUri: ParseResult;
  }[];
  labels: { sessionId: string; label?: string; mention: string; parsed: ParseResult }[];
  texts: { name: string; text: string; result: ParseResult | { error: { name: string; code: string; message: string } } }[];
}

const fixture = readExpected<MentionsFixture>('mentions.json');

/** The display set E of §6.1, as listed there. */
const DISPLAY_SET_E = /[\u0000-\u001F\u007F-\u009F\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/g;

function hasDisplayControls(text: string): boolean {
  return text.search(DISPLAY_SET_E) !== -1;
}

/**
 * The documented D5 form derived from dsh's mention: dsh escapes only `\` and `]`, so each raw E
 * character of its label becomes `\u{XXXX}` with the backslash escaped as the formatter does (§6.2).
 */
function documentedMention(dshMention: string): string {
  return dshMention.replace(DISPLAY_SET_E, (character) => `\\\\u{${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`);
}

/** The label text the parser returns for the documented mention: the `\u{XXXX}` escapes, unescaped once. */
function documentedLabel(rawLabel: string): string {
  return rawLabel.replace(DISPLAY_SET_E, (character) => `\\u{${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`);
}

function parseOutcome(text: string): ParseResult | { error: { name: string; code: string; message: string } } {
  try {
    return parseSessionReferenceText(text);
  } catch (error) {
    expect(error).toBeInstanceOf(SessionReferenceError);
    const typed = error as SessionReferenceError;
    return { error: { name: typed.name, code: typed.code, message: typed.message } };
  }
}

const tally = { exact: 0, divergent: 0 };

describe('dsh mentions fixture', () => {
  it('has the documented shape', () => {
    expect(fixture.constants.SESSION_REFERENCE_SCHEME).toBe(SESSION_REFERENCE_SCHEME);
    expect([fixture.ids.length, fixture.labels.length, fixture.texts.length]).toEqual([43, 19, 48]);
  });

  it('ids: URI, decode, mentions and parses match dsh (mentions of ids with E characters: D5 form)', () => {
    for (const entry of fixture.ids) {
      expect(encodeSessionReferenceUri(entry.sessionId)).toBe(entry.uri);
      expect(decodeSessionReferenceUri(entry.uri)).toBe(entry.decoded.sessionId);
      tally.exact += 2;

      const mention = formatSessionReferenceMention({ sessionId: entry.sessionId });
      if (hasDisplayControls(entry.sessionId)) {
        expect(mention).not.toBe(entry.mention);
        expect(mention).toBe(documentedMention(entry.mention));
        // Our mention parses to the visible escapes of the label and the original id.
        expect(parseSessionReferenceText(mention)).toEqual({
          text: `@${documentedLabel(entry.sessionId)}`,
          references: [{ sessionId: entry.sessionId, label: documentedLabel(entry.sessionId) }],
        });
        tally.divergent += 1;
      } else {
        expect(mention).toBe(entry.mention);
        tally.exact += 1;
      }
      // The parser does not differ: dsh's own mention parses exactly as dsh parsed it.
      expect(parseSessionReferenceText(entry.mention)).toEqual(entry.parsedMention);
      tally.exact += 1;

      expect(hasDisplayControls(entry.labelled.label)).toBe(false);
      expect(formatSessionReferenceMention({ sessionId: entry.sessionId, label: entry.labelled.label })).toBe(entry.labelled.mention);
      expect(parseSessionReferenceText(entry.labelled.mention)).toEqual(entry.labelled.parsed);
      tally.exact += 2;

      // The fixture records the bare-URI parse of `see <uri> now`.
      expect(parseSessionReferenceText(`see ${entry.uri} now`)).toEqual(entry.parsedBareUri);
      tally.exact += 1;
    }
  });

  it('labels: formatter and parser match dsh (labels with E characters: D5 form)', () => {
    for (const entry of fixture.labels) {
      const input = entry.label === undefined ? { sessionId: entry.sessionId } : { sessionId: entry.sessionId, label: entry.label };
      const mention = formatSessionReferenceMention(input);
      const rawLabel = entry.label ?? entry.sessionId;
      if (hasDisplayControls(rawLabel)) {
        expect(mention).not.toBe(entry.mention);
        expect(mention).toBe(documentedMention(entry.mention));
        expect(parseSessionReferenceText(mention).references).toEqual([{ sessionId: entry.sessionId, label: documentedLabel(rawLabel) }]);
        tally.divergent += 1;
      } else {
        expect(mention).toBe(entry.mention);
        tally.exact += 1;
      }
      expect(parseSessionReferenceText(entry.mention)).toEqual(entry.parsed);
      tally.exact += 1;
    }
  });

  it('texts: every parse result and error matches dsh', () => {
    for (const entry of fixture.texts) {
      expect(parseOutcome(entry.text), entry.name).toEqual(entry.result);
      tally.exact += 1;
    }
  });

  it('counts: 378 comparisons byte-identical to dsh, 9 documented D5 divergences (formatter only)', () => {
    // 43 ids × 7 comparisons + 19 labels × 2 + 48 texts = 387; divergent: 6 ids and 3 labels with E characters.
    console.info(`mentions.json: ${tally.exact} exact, ${tally.divergent} documented divergences`);
    expect(tally).toEqual({ exact: 378, divergent: 9 });
  });
});

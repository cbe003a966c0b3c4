import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeDisplayText } from '../../../src/protocol/uri/display-escape.js';
import { formatSessionReferenceMention } from '../../../src/protocol/uri/mention-formatter.js';
import { parseSessionReferenceText } from '../../../src/protocol/uri/mention-parser.js';
import { decodeSessionReferenceUri } from '../../../src/protocol/uri/session-uri.js';
import { arbitraryJsString } from './string-arbitraries.js';

const WEIRD_ID = 'unicode/引号"/slash\\/line\n';
const WEIRD_URI = 'dsh-session:InVuaWNvZGUv5byV5Y-3XCIvc2xhc2hcXC9saW5lXG4i';
const SOURCE_URI = 'dsh-session:InNvdXJjZSI';

describe('formatSessionReferenceMention (§6.2)', () => {
  it('escapes `]` in the §6.2 example', () => {
    expect(formatSessionReferenceMention({ sessionId: 'source]', label: 'source]' })).toBe('@[source\\]](dsh-session:InNvdXJjZV0i)');
  });

  it('item 3: without a label the id is the label, `\\`→`\\\\`, `]`→`\\]`, and the newline shown as an escape (D5)', () => {
    // dsh would emit the raw LF here; D5 makes it `\u{000A}`, whose backslash is then escaped.
    expect(formatSessionReferenceMention({ sessionId: WEIRD_ID })).toBe(`@[unicode/引号"/slash\\\\/line\\\\u{000A}](${WEIRD_URI})`);
    const withoutControls = 'a]b\\c';
    expect(formatSessionReferenceMention({ sessionId: withoutControls })).toContain('@[a\\]b\\\\c]');
  });

  it('item 10: the §6.2 control-character example and its parse', () => {
    const label = 'a\u001bb\nc\u202ed\u007f\u0085';
    const mention = formatSessionReferenceMention({ sessionId: 'source', label });
    expect(mention).toBe(`@[a\\\\u{001B}b\\\\u{000A}c\\\\u{202E}d\\\\u{007F}\\\\u{0085}](${SOURCE_URI})`);
    expect(parseSessionReferenceText(mention)).toEqual({
      text: '@a\\u{001B}b\\u{000A}c\\u{202E}d\\u{007F}\\u{0085}',
      references: [{ sessionId: 'source', label: 'a\\u{001B}b\\u{000A}c\\u{202E}d\\u{007F}\\u{0085}' }],
    });
  });

  it('item 10: formatting an already escaped label changes nothing', () => {
    const label = 'x\u202ey\t';
    expect(formatSessionReferenceMention({ sessionId: 's', label: escapeDisplayText(label) })).toBe(
      formatSessionReferenceMention({ sessionId: 's', label }),
    );
  });

  it('keeps an empty label empty; an absent or null label means the id', () => {
    expect(formatSessionReferenceMention({ sessionId: 'abc', label: '' })).toBe('@[](dsh-session:ImFiYyI)');
    expect(formatSessionReferenceMention({ sessionId: 'abc' })).toBe('@[abc](dsh-session:ImFiYyI)');
    expect(formatSessionReferenceMention({ sessionId: 'abc', label: null as unknown as string })).toBe('@[abc](dsh-session:ImFiYyI)');
  });

  it('escapes nothing but `\\` and `]` in labels without E characters (dsh bytes)', () => {
    expect(formatSessionReferenceMention({ sessionId: 'source', label: '[x] (y) \\n $& <b> 🚀 \u2028 \u200d \ud800' })).toBe(
      `@[[x\\] (y) \\\\n $& <b> 🚀 \u2028 \u200d \ud800](${SOURCE_URI})`,
    );
  });

  it('round-trips through the parser: escaped label, original id (item 10)', () => {
    fc.assert(
      fc.property(arbitraryJsString(40), fc.option(arbitraryJsString(40), { nil: undefined }), (sessionId, label) => {
        const mention = formatSessionReferenceMention({ sessionId, label });
        const expectedLabel = escapeDisplayText(label ?? sessionId);
        expect(parseSessionReferenceText(mention)).toEqual({
          text: `@${expectedLabel}`,
          references: [{ sessionId, label: expectedLabel }],
        });
        // The URI part is the canonical one and names the raw id.
        const uri = mention.slice(mention.lastIndexOf('](') + 2, -1);
        expect(uri).toMatch(/^dsh-session:[A-Za-z0-9_-]+$/);
        expect(decodeSessionReferenceUri(uri)).toBe(sessionId);
      }),
      { numRuns: 3000 },
    );
  });
});

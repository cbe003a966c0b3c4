/**
 * String generators for the reference property tests. JavaScript strings are UTF-16, so besides
 * whole code points they must include lone surrogates and the characters the grammar treats
 * specially (controls of the display set, `\`, `]`, `(`, `)`, whitespace, line terminators).
 */
import fc from 'fast-check';

/** Characters with a role in the mention grammar, display escaping or JSON escaping. */
const SPECIAL_UNITS = [
  '\\',
  ']',
  '[',
  '(',
  ')',
  '@',
  '<',
  '>',
  '"',
  '$',
  '&',
  '`',
  ' ',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u0000',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u200e',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u2060',
  '\u2066',
  '\u206f',
  '\ufeff',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '界',
  '🚀',
  'dsh-session:',
  'u{001B}',
] as const;

/** One UTF-16 code unit of any value, so lone surrogates (high or low) are frequent. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** Strings mixing whole code points (astral included), single code units and special characters. */
export function arbitraryJsString(maxLength = 40): fc.Arbitrary<string> {
  return fc.string({
    unit: fc.oneof(fc.constantFrom(...SPECIAL_UNITS), anyCodeUnit, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
    maxLength,
  });
}

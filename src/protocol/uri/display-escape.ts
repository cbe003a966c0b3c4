/**
 * Display escaping of control and invisible characters (SESSION-REFERENCE.md §6.1, decision D5).
 * Applied to candidate labels/cwds and formatter labels only; ids, URIs and parsed labels stay raw.
 */

/**
 * The set E: C0, DEL, C1, and the invisible/bidi controls dsh's title writer strips (U+200B,
 * U+200E, U+200F, U+202A–U+202E, U+2060–U+2064, U+2066–U+206F, U+FEFF). All are BMP code points, so
 * a non-unicode class never splits a surrogate pair and leaves lone surrogates alone.
 */
const DISPLAY_ESCAPED = /[\u0000-\u001F\u007F-\u009F\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/g;

function visibleEscape(character: string): string {
  return `\\u{${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`;
}

/**
 * Replaces every code point of E by `\u{XXXX}` (uppercase hex, at least 4 digits); everything else,
 * including `\`, `]`, ZWNJ/ZWJ and lone surrogates, is kept. Idempotent: escapes are printable ASCII.
 */
export function escapeDisplayText(text: string): string {
  return text.replace(DISPLAY_ESCAPED, visibleEscape);
}

/** E without the line feed and the tab, which multi-line terminal output keeps as layout. */
const TERMINAL_ESCAPED = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/g;

/**
 * {@link escapeDisplayText} for whole lines of terminal output: every code point of E is made visible except
 * `\n` and `\t`, so text from a log (a title with `ESC[2J`, a carriage return) can never move the cursor,
 * clear the screen or reorder what a person reads.
 * @param text - output text, possibly several lines.
 * @returns the text with every control but line feed and tab as a visible `\u{XXXX}` escape.
 */
export function escapeTerminalText(text: string): string {
  return text.replace(TERMINAL_ESCAPED, visibleEscape);
}

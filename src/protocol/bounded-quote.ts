/**
 * A foreign value quoted into an error or log text, bounded: a client can send a 1 MB id, and a diagnostic that
 * echoes it whole is a 1 MB line (issue 26). The quote keeps the start of the value, says how long it was, and is
 * JSON-escaped, so control characters stay visible.
 */

/** The most UTF-16 units of a value a quote keeps. */
export const QUOTE_MAX_UNITS = 120;

/**
 * `"value"` when short; `"start…" (N characters)` when longer than `max` (cut on a code point, never inside a
 * surrogate pair).
 * @param value - the text to quote.
 * @param max - the most units kept (default {@link QUOTE_MAX_UNITS}).
 */
export function boundedQuote(value: string, max: number = QUOTE_MAX_UNITS): string {
  if (value.length <= max) return JSON.stringify(value);
  let end = max;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${JSON.stringify(`${value.slice(0, end)}…`)} (${value.length} characters)`;
}

/**
 * Rendering a value that may refuse to be rendered, for error texts built from foreign values.
 */

/**
 * `String(value)`, or `<unrenderable value>` when that throws (an object whose `toString` throws, a
 * null-prototype object). Never throws.
 */
export function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    // The value still has to be reported somehow; the placeholder says it could not be rendered.
    return '<unrenderable value>';
  }
}

/**
 * An independent definition of JSON nesting for tests: the deepest run of open brackets in the JSON text,
 * strings skipped. It shares nothing with the checker in src/protocol/json-depth.ts.
 */

/**
 * @param text - JSON text.
 * @returns the maximum bracket depth outside strings (0 for a primitive).
 */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ']' || c === '}') depth -= 1;
  }
  return max;
}

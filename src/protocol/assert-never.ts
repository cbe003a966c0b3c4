/**
 * The one exhaustiveness check that ends a `switch` over a closed union (a discriminant tag, a kind, an encoding).
 */
import { safeString } from './safe-string.js';

/** `value` as text for the message: its JSON when it has one, else `String(value)`; never throws. */
function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? safeString(value);
  } catch {
    // A cycle, a BigInt or a throwing toJSON: the String() rendering (or its placeholder) instead.
    return safeString(value);
  }
}

/**
 * Ends a `switch` over a closed union: the compiler rejects the call while a member is unhandled (the value is not
 * `never` then), and a value outside the union at run time (data that bypassed validation) fails loudly.
 *
 * @param value - the value no case matched.
 * @param what - what the value is, leading the message (`'unknown compression'` → `unknown compression "lz4"`).
 * @throws TypeError `<what> <value as JSON>`, always.
 */
export function assertNever(value: never, what: string): never {
  throw new TypeError(`${what} ${describe(value)}`);
}

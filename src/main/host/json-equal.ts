/**
 * Deep equality of JSON values, used where HOST.md says "deep-equal" (request header changes, the request
 * invariant): object key order does not matter, array order does.
 */

/** True when `left` and `right` are the same JSON value. Walks iteratively, so deep values cannot overflow. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  const pending: Array<readonly [unknown, unknown]> = [[left, right]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [a, b] = pair;
    if (Object.is(a, b)) continue;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const aRecord = a as Readonly<Record<string, unknown>>;
    const bRecord = b as Readonly<Record<string, unknown>>;
    const aKeys = Object.keys(aRecord);
    if (aKeys.length !== Object.keys(bRecord).length) return false;
    for (const key of aKeys) {
      if (!Object.hasOwn(bRecord, key)) return false;
      pending.push([aRecord[key], bRecord[key]]);
    }
  }
  return true;
}

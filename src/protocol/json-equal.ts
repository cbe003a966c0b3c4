/**
 * Structural equality of JSON values, used where dsh compares payloads deep-equal (tool-result
 * rewrites, request headers, replacement legality).
 */

/** Structural equality over JSON values; object key order is irrelevant, array order is not. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  const pending: Array<readonly [unknown, unknown]> = [[left, right]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [a, b] = pair;
    if (a === b) continue;
    if (Array.isArray(a) || Array.isArray(b)) {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
      for (let index = 0; index < a.length; index++) pending.push([a[index], b[index]]);
      continue;
    }
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
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

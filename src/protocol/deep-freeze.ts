/**
 * Deep freezing of JSON-like graphs (SESSION-LOG.md §2.4 rule 7, §4.1): messages inside logged events are
 * always deep-frozen, and freezing an existing message deep-clones it first so the caller keeps a mutable copy.
 */

/**
 * Freezes `value` and every object reachable from it through own enumerable properties, then returns it.
 * Walks with an explicit stack so that deeply nested JSON cannot overflow the call stack; shared and cyclic
 * references are visited once.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const visited = new Set<object>();
  const pending: object[] = [value];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    if (visited.has(current)) continue;
    visited.add(current);
    Object.freeze(current);
    for (const child of Object.values(current)) {
      if (typeof child === 'object' && child !== null) pending.push(child as object);
    }
  }
  return value;
}

/**
 * Returns a deep-frozen structured clone of `value` (key order kept); the original stays mutable and unshared.
 * This is dsh's `freeze` of an existing message (§4.1).
 */
export function freezeClone<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

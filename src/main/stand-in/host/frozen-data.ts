/**
 * Taking ownership of event data at append time (SESSION-LOG.md §2.4 rule 7): the stored value is deep-frozen
 * and never aliases a mutable caller object. Already deep-frozen values (messages from `createUserMessage`,
 * decision messages) are kept as the same objects, which is both cheaper and what HOST.md §6.4 asks for.
 */
import { deepFreeze } from '../../../protocol/deep-freeze.js';

/** True when `value` and every object reachable from it through own enumerable properties is frozen. */
export function isDeepFrozen(value: unknown): boolean {
  const pending: unknown[] = [value];
  const visited = new Set<object>();
  for (let index = 0; index < pending.length; index++) {
    const current = pending[index];
    if (typeof current !== 'object' || current === null || visited.has(current)) continue;
    if (!Object.isFrozen(current)) return false;
    visited.add(current);
    for (const child of Object.values(current)) pending.push(child);
  }
  return true;
}

/**
 * `value` itself when it is deep-frozen, else a deep-frozen structured clone (key order kept). Call only with
 * values that passed the lossless-JSON check, which structured clone reproduces exactly.
 */
export function ownFrozen<T>(value: T): T {
  return isDeepFrozen(value) ? value : deepFreeze(structuredClone(value));
}

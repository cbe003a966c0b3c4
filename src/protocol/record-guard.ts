/**
 * The one record guard: what "a record" and "an object" mean when untyped data (parsed JSON, worker messages,
 * stored rows) is checked before it is trusted.
 */

/** True for a non-null object that is not an array ("record", SESSION-LOG.md notation). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True for any non-null `typeof 'object'` value, arrays included: the looser notion of "object" some of dsh's own
 * shape checks use (message shapes, storage rows), kept where the contract says so.
 */
export function isObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** True for a record whose prototype is `Object.prototype` or `null`: what `JSON.parse` produces (DCP metadata v1). */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

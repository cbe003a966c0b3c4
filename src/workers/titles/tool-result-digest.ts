/**
 * The digest a title checkpoint keeps for each current `tool/result` node (SESSION-LOG.md §10.7), standing in
 * for the node's data in the tool-result rewrite rule (§5.2 rule 6.3): two payloads compare equal under that
 * rule exactly when their digests are equal.
 */
import { createHash } from 'node:crypto';
import { withBlankResultContent } from '../../protocol/surface-fold.js';

/**
 * Canonical JSON text: object keys sorted by code unit, arrays in order, primitives as `JSON.stringify`
 * writes them, `undefined` as the bare word `undefined`. Injective on JSON values up to `-0`/`0`, which the
 * rewrite rule's `===` also treats as equal. Walks with an explicit stack, so deep nesting cannot overflow.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  // Each work item is either a value to write or a literal piece of punctuation.
  const pending: Array<{ readonly value: unknown } | { readonly text: string }> = [{ value }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if ('text' in item) {
      parts.push(item.text);
      continue;
    }
    const current = item.value;
    if (current === undefined) {
      parts.push('undefined');
    } else if (typeof current !== 'object' || current === null) {
      parts.push(JSON.stringify(current));
    } else if (Array.isArray(current)) {
      parts.push('[');
      pending.push({ text: ']' });
      for (let index = current.length - 1; index >= 0; index--) {
        pending.push({ value: current[index] as unknown });
        if (index > 0) pending.push({ text: ',' });
      }
    } else {
      const record = current as Readonly<Record<string, unknown>>;
      const keys = Object.keys(record).sort();
      parts.push('{');
      pending.push({ text: '}' });
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string;
        pending.push({ value: record[key] });
        pending.push({ text: `${JSON.stringify(key)}:` });
        if (index > 0) pending.push({ text: ',' });
      }
    }
  }
  return parts.join('');
}

/** SHA-256 (base64) of the canonical JSON of a `tool/result` payload with its result content blanked. */
export function toolResultDigest(data: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(withBlankResultContent(data)))
    .digest('base64');
}

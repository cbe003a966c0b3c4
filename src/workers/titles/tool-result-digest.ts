/**
 * The digest a title checkpoint keeps for each current `tool/result` node (SESSION-LOG.md §10.7), standing in
 * for the node's data in the tool-result rewrite rule (§5.2 rule 6.3): two payloads compare equal under that
 * rule exactly when their digests are equal.
 */
import { hash } from 'node:crypto';
import { withBlankResultContent } from '../../protocol/surface-fold.js';

/** Nesting the recursive writer takes before the explicit-stack one takes over (no call stack can overflow). */
const RECURSION_DEPTH = 64;

/**
 * Canonical JSON text: object keys sorted by code unit, arrays in order, primitives as `JSON.stringify`
 * writes them, `undefined` as the bare word `undefined`. Injective on JSON values up to `-0`/`0`, which the
 * rewrite rule's `===` also treats as equal. Payloads nested at most {@link RECURSION_DEPTH} deep (every real one)
 * are written by plain recursion, which allocates no work items; deeper ones by {@link canonicalJsonDeep}.
 */
export function canonicalJson(value: unknown): string {
  return writeShallow(value, 0) ?? canonicalJsonDeep(value);
}

/** {@link canonicalJson} by recursion; `undefined` when `value` nests deeper than {@link RECURSION_DEPTH}. */
function writeShallow(value: unknown, depth: number): string | undefined {
  if (value === undefined) return 'undefined';
  // A value JSON cannot write (a function, a symbol) is empty text, as `join` makes of it in the deep writer.
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? '';
  if (depth >= RECURSION_DEPTH) return undefined;
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      const part = writeShallow(value[index] as unknown, depth + 1);
      if (part === undefined) return undefined;
      text += index > 0 ? `,${part}` : part;
    }
    return `${text}]`;
  }
  const record = value as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record).sort();
  let text = '{';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const part = writeShallow(record[key], depth + 1);
    if (part === undefined) return undefined;
    text += `${index > 0 ? ',' : ''}${JSON.stringify(key)}:${part}`;
  }
  return `${text}}`;
}

/** {@link canonicalJson} with an explicit stack, for payloads of any depth. */
export function canonicalJsonDeep(value: unknown): string {
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
  // One-shot (Node ≥ 20.12): the same digest as a Hash object's, without one per tool result.
  return hash('sha256', canonicalJson(withBlankResultContent(data)), 'base64');
}

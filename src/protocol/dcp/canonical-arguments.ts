/**
 * Dedup keys (DCP.md §8.3 rule 3): `<toolName>::<canonical arguments>`. Canonical arguments are the parsed JSON
 * with object keys sorted recursively (default string order), keys whose value is `null` dropped, arrays kept in
 * order, re-stringified. Unparseable arguments are used as the raw string.
 */

/**
 * Serialises a parsed JSON value canonically. It writes the JSON text itself instead of building sorted objects,
 * because object property order puts integer-like keys first whatever the insertion order.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const object = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(object).sort()) {
    const child = object[key];
    if (child === null) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(child)}`);
  }
  return `{${parts.join(',')}}`;
}

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    // Unparseable arguments are a documented case: the raw string is the canonical form.
    return { ok: false };
  }
}

/**
 * The canonical form of a call's raw `arguments`. Nesting too deep for the recursive serialiser (a RangeError)
 * falls back to the raw string, like unparseable input: identical raw arguments still share a key.
 */
export function canonicalArguments(rawArguments: string): string {
  const parsed = parseJson(rawArguments);
  if (!parsed.ok) return rawArguments;
  try {
    return canonicalJson(parsed.value);
  } catch (error) {
    if (error instanceof RangeError) return rawArguments;
    throw error;
  }
}

/** The dedup key `<toolName>::<canonical arguments>`. */
export function dedupKey(toolName: string, rawArguments: string): string {
  return `${toolName}::${canonicalArguments(rawArguments)}`;
}

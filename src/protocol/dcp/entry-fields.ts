/**
 * The per-entry field checks of the `compress` tool that need no session state (DCP.md §7.5 group E1–E7).
 * All messages of the group are joined by `; `.
 */
import { isRecord } from '../events.js';
import { REF_MAX_CHARS } from './constants.js';
import { summaryRuleErrors } from './summary-rules.js';

/** The checked fields of one entry. Refs are trimmed (the form the resolver and the metadata use). */
export interface CompressEntryFields {
  readonly startRef: string;
  readonly endRef: string;
  /** The summary as given; the checkpoint builder normalises it (§6.2). */
  readonly summary: string;
}

/** The result of the E1–E7 group for one entry. */
export type EntryFieldsResult =
  | { readonly ok: true; readonly fields: CompressEntryFields }
  | { readonly ok: false; readonly message: string };

/** `<a>..<b>`: the entry's refs as given, `?` for a ref that is not a string (§7.5). */
export function entryLabel(entry: unknown): string {
  const startRef = isRecord(entry) ? entry['startRef'] : undefined;
  const endRef = isRecord(entry) ? entry['endRef'] : undefined;
  return `${typeof startRef === 'string' ? startRef : '?'}..${typeof endRef === 'string' ? endRef : '?'}`;
}

function isRefArgument(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const length = value.trim().length;
  return length >= 1 && length <= REF_MAX_CHARS;
}

/** Checks E1–E7 for `content[index]`. */
export function validateEntryFields(entry: unknown, index: number): EntryFieldsResult {
  if (!isRecord(entry)) return { ok: false, message: `content[${index}] must be an object` };
  const errors: string[] = [];
  const { startRef, endRef, summary } = entry;
  if (!isRefArgument(startRef)) errors.push(`content[${index}].startRef must be a non-empty string (<= ${REF_MAX_CHARS} chars)`);
  if (!isRefArgument(endRef)) errors.push(`content[${index}].endRef must be a non-empty string (<= ${REF_MAX_CHARS} chars)`);
  errors.push(...summaryRuleErrors(summary, index));
  if (errors.length > 0) return { ok: false, message: errors.join('; ') };
  return { ok: true, fields: { startRef: (startRef as string).trim(), endRef: (endRef as string).trim(), summary: summary as string } };
}

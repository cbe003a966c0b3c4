/**
 * The summary rules of the `compress` tool (DCP.md §7.5 E4–E7; seed 002 §4): a summary is real technical prose,
 * does not start with a block ref, is not a `[stored in bN]` placeholder and carries no DCP delimiters.
 */
import { SUMMARY_MAX_CHARS } from './constants.js';

const LEADING_BLOCK_REF_RE = /^\[b\d+\]/;
const STORED_IN_RE = /\[stored in b\d+\]/;
const DCP_DELIMITER_RE = /<\/?dcp-(?:message-id|prior)/i;

/**
 * The E4–E7 messages for `content[index].summary`, in rule order (empty when the summary is valid). Lengths are
 * measured on the trimmed summary, like the other fields of the entry. E5–E7 are checked for every non-blank
 * string, so an over-long summary that also breaks a content rule reports both.
 */
export function summaryRuleErrors(summary: unknown, index: number): string[] {
  const field = `content[${index}].summary`;
  if (typeof summary !== 'string' || summary.trim() === '') return [`${field} must be a non-empty string`];
  const trimmed = summary.trim();
  const errors: string[] = [];
  if (trimmed.length > SUMMARY_MAX_CHARS) errors.push(`${field} must be at most ${SUMMARY_MAX_CHARS} characters`);
  if (LEADING_BLOCK_REF_RE.test(trimmed)) {
    errors.push(`${field} must not start with a block ref such as [b1]; write the summary as plain prose`);
  }
  if (STORED_IN_RE.test(summary)) {
    errors.push(`${field} must contain the actual technical content, not a [stored in bN] placeholder`);
  }
  if (DCP_DELIMITER_RE.test(summary)) errors.push(`${field} must not contain <dcp-message-id> or <dcp-prior> tags`);
  return errors;
}

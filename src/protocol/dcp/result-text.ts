/**
 * The `compress` result text (DCP.md §7.13): a headline, then one status line per input entry, then an optional
 * cleanup warning. With nothing committed the same status block follows `No range was compressed.` and the host
 * logs it as an error result.
 */
import { assertNever } from '../assert-never.js';

/** The outcome of one input entry, in input order. */
export type RangeStatus =
  | {
      readonly kind: 'committed';
      /** `<a>..<b>`, the refs as given. */
      readonly label: string;
      readonly blockRef: string;
      /** Shadowed nodes of this range. */
      readonly messageCount: number;
      /** `tokensIn − tokensOut` (§7.10). */
      readonly savedTokens: number;
      /** Host message when only the closing `compaction/end` failed (§7.11 rule 3). */
      readonly bracketLeftOpen?: string;
    }
  | { readonly kind: 'failed'; readonly label: string; readonly error: string }
  | { readonly kind: 'skipped'; readonly label: string; readonly reason: string };

/** How the inline cleanup went (§7.12); it runs only when at least one range committed. */
export type CleanupOutcome = { readonly ok: true } | { readonly ok: false; readonly warning: string };

/** The result text and whether the host must report it as an error (nothing committed). */
export interface CompressResultText {
  readonly text: string;
  readonly isError: boolean;
}

/** The second sentence of the success headline, present only when the cleanup succeeded. */
const CLARITY_SENTENCE =
  'Full summaries are stored in the new checkpoints; any [stored in bN] in the inline tool-call arguments is only the cleanup marker, not the stored summary.';

function statusLine(status: RangeStatus, position: number): string {
  const prefix = `${position}. ${status.label}: `;
  switch (status.kind) {
    case 'committed': {
      const base = `${prefix}committed as ${status.blockRef} (${status.messageCount} message(s), ~${status.savedTokens} tokens saved)`;
      return status.bracketLeftOpen === undefined ? base : `${base}; bracket left open: ${status.bracketLeftOpen}`;
    }
    case 'failed':
      return `${prefix}failed: ${status.error}`;
    case 'skipped':
      return `${prefix}skipped: ${status.reason}`;
    default:
      return assertNever(status, 'unexpected range status');
  }
}

/**
 * Builds the §7.13 text. `cleanup` is consulted only when a range committed; with no committed range the text
 * starts with `No range was compressed.` and `isError` is true.
 */
export function buildCompressResultText(statuses: readonly RangeStatus[], cleanup: CleanupOutcome): CompressResultText {
  const lines: string[] = [];
  const committed = statuses.filter((status) => status.kind === 'committed');
  if (committed.length === 0) {
    lines.push('No range was compressed.');
  } else {
    const messageCount = committed.reduce((sum, status) => sum + status.messageCount, 0);
    const refs = committed.map((status) => status.blockRef).join(', ');
    const headline = `Compressed ${messageCount} message(s) into ${refs}.`;
    lines.push(cleanup.ok ? `${headline} ${CLARITY_SENTENCE}` : headline);
  }
  lines.push('Range status:');
  statuses.forEach((status, index) => lines.push(statusLine(status, index + 1)));
  if (committed.length > 0 && !cleanup.ok) lines.push(`(cleanup warning: ${cleanup.warning})`);
  return { text: lines.join('\n'), isError: committed.length === 0 };
}

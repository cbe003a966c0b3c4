/**
 * How the CLI reports a failure: `{"error":{"code","message","details"?}}` on stdout with `--json`, a line on
 * stderr without (followed by the failure's hint lines, if any); exit status 2 for usage errors and 1 for
 * everything else.
 */
import { SessionReferenceError } from '../../../protocol/reference-errors.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';
import { errorCode } from '../../../protocol/error-code.js';
import { isRecord } from '../../../protocol/record-guard.js';
import { escapeTerminalText } from '../../../protocol/uri/display-escape.js';
import { diagnosticPrefix } from './terminal-style.js';

export { errorCode };

/**
 * What a failure says beyond its message: JSON `details` and lines for a person. A budget failure names its source
 * and the least budget that fits (the message stays dsh's text); any other error may carry its own `details`
 * record and `hints` lines (`ScenarioRunError` does).
 */
function extrasOf(error: unknown): { readonly details?: Readonly<Record<string, unknown>>; readonly hints: readonly string[] } {
  if (error instanceof SessionReferenceError && error.sourceSessionId !== undefined && error.minimumBudgetBytes !== undefined) {
    const { sourceSessionId, minimumBudgetBytes } = error;
    return {
      details: { sourceSessionId, minimumBudgetBytes },
      hints: [
        `hint: session ${JSON.stringify(sourceSessionId)} fits with maxReferenceBytes ${minimumBudgetBytes} or more (--max-bytes ${minimumBudgetBytes})`,
      ],
    };
  }
  const details = (error as { details?: unknown } | null | undefined)?.details;
  const hints = (error as { hints?: unknown } | null | undefined)?.hints;
  return {
    ...(isRecord(details) ? { details } : {}),
    hints: Array.isArray(hints) ? hints.filter((hint): hint is string => typeof hint === 'string') : [],
  };
}

/** Prints a failure and returns the exit status. */
export function reportError(io: CliIo, error: unknown, json: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  const code = errorCode(error);
  const { details, hints } = extrasOf(error);
  if (json) io.stdout.write(`${JSON.stringify({ error: { code, message, ...(details === undefined ? {} : { details }) } })}\n`);
  else {
    const suffix = code !== 'UNKNOWN' && code !== 'CLI_USAGE' ? ` (${code})` : '';
    io.stderr.write(
      `${diagnosticPrefix(io, 'error')}${escapeTerminalText(message)}${suffix}\n${hints.map((hint) => `  ${escapeTerminalText(hint)}\n`).join('')}`,
    );
  }
  return error instanceof UsageError ? 2 : 1;
}

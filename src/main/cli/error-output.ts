/**
 * How the CLI reports a failure: `{"error":{"code","message"}}` on stdout with `--json`, a line on
 * stderr without; exit status 2 for usage errors and 1 for everything else.
 */
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';

import { errorCode } from '../../protocol/error-code.js';
import { escapeTerminalText } from '../../protocol/uri/display-escape.js';
import { diagnosticPrefix } from './terminal-style.js';

export { errorCode };

/** Prints a failure and returns the exit status. */
export function reportError(io: CliIo, error: unknown, json: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  const code = errorCode(error);
  if (json) io.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else io.stderr.write(`${diagnosticPrefix(io, 'error')}${escapeTerminalText(message)}${code !== 'UNKNOWN' && code !== 'CLI_USAGE' ? ` (${code})` : ''}\n`);
  return error instanceof UsageError ? 2 : 1;
}

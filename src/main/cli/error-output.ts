/**
 * How the CLI reports a failure: `{"error":{"code","message"}}` on stdout with `--json`, a line on
 * stderr without; exit status 2 for usage errors and 1 for everything else.
 */
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';

/** The stable code of any thrown value (`UNKNOWN` when it carries none). */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

/** Prints a failure and returns the exit status. */
export function reportError(io: CliIo, error: unknown, json: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  const code = errorCode(error);
  if (json) io.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else io.stderr.write(`sessionctx: ${message}${code !== 'UNKNOWN' && code !== 'CLI_USAGE' ? ` (${code})` : ''}\n`);
  return error instanceof UsageError ? 2 : 1;
}

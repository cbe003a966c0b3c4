/**
 * Colour for the CLI's diagnostics. Only the `error:` / `warning:` prefix on stderr is coloured, and only on a
 * terminal that wants it: `NO_COLOR` (any non-empty value) or `TERM=dumb` turns it off, `FORCE_COLOR` (non-empty,
 * not `0`) turns it on for a pipe. Standard output is never coloured, so what a script reads is plain text.
 */
import type { CliIo } from './cli-io.js';

/** The diagnostic kinds that have a colour. */
export type DiagnosticKind = 'error' | 'warning';

const COLOURS: Readonly<Record<DiagnosticKind, string>> = { error: '\u001b[31m', warning: '\u001b[33m' };
const RESET = '\u001b[39m';

/**
 * True when stderr output may carry colour.
 * @param io - the process view whose stderr and environment decide.
 */
export function stderrWantsColour(io: CliIo): boolean {
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0') return true;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.TERM === 'dumb') return false;
  return io.stderr.isTTY === true;
}

/**
 * `sessionctx: <kind>: ` with the kind coloured when {@link stderrWantsColour}.
 * @param io - where the line goes.
 * @param kind - error or warning.
 */
export function diagnosticPrefix(io: CliIo, kind: DiagnosticKind): string {
  const label = stderrWantsColour(io) ? `${COLOURS[kind]}${kind}${RESET}` : kind;
  return `sessionctx: ${label}: `;
}

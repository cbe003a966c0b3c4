/**
 * The CLI's warning for a session whose title could not be read during discovery (the session is still offered,
 * labelled by its id, as dsh does). The id is a log's data and may be long, so it is quoted bounded
 * ({@link boundedQuote}): a 1 MB id is never a 1 MB line on stderr.
 */
import { boundedQuote } from '../../../protocol/bounded-quote.js';
import { errorCode } from '../../../protocol/error-code.js';
import { escapeTerminalText } from '../../../protocol/uri/display-escape.js';
import type { CliIo } from './cli-io.js';
import { diagnosticPrefix } from './terminal-style.js';

/**
 * Writes one warning line on stderr for a session listed by its id because its log could not be read.
 * @param io - the command's streams.
 * @param sessionId - the session's id (quoted bounded).
 * @param reason - why its title could not be read (its code and message are shown).
 */
export function writeTitleFailure(io: CliIo, sessionId: string, reason: unknown): void {
  const message = reason instanceof Error ? reason.message : String(reason);
  io.stderr.write(
    `${diagnosticPrefix(io, 'warning')}${escapeTerminalText(`session ${boundedQuote(sessionId)} is listed by its id: its log could not be read (${errorCode(reason)}: ${message})`)}\n`,
  );
}

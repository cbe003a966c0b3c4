/**
 * Typed errors in words: what a failed Preview means for the person writing the message, keyed by the stable codes of
 * SESSION-REFERENCE.md §14 (the server's message follows, for the details).
 */

const WORDS: Readonly<Record<string, string>> = {
  SESSION_REFERENCE_INVALID_REFERENCE: 'A session mention in the message is malformed.',
  SESSION_REFERENCE_SELF_REFERENCE: 'The message mentions the session it is written in; a session cannot reference itself.',
  SESSION_REFERENCE_TOO_MANY: 'The message mentions more sessions than one message may reference.',
  SESSION_REFERENCE_READ_FAILED: 'A referenced session could not be read.',
  SESSION_REFERENCE_BUDGET_EXCEEDED: 'A referenced session does not fit the byte budget, even shortened.',
  SESSION_REFERENCE_CANCELLED: 'The preview was cancelled.',
  SESSION_REFERENCE_INVALID_CONFIG: 'The server’s session-reference configuration is invalid.',
  SESSION_QUERY_SESSION_NOT_FOUND: 'A referenced session does not exist.',
  WEB_NETWORK_FAILED: 'The server did not answer. Is `sessionctx serve` still running?',
};

/**
 * The sentence for an error code.
 *
 * @param code a stable error code
 * @returns its sentence, or a generic one for a code this page does not know
 */
export function errorWords(code: string): string {
  return WORDS[code] ?? 'The server could not prepare this message.';
}

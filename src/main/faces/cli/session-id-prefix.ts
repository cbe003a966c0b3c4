/**
 * Session ids as people type them. dsh ids are long (`session-<uuid>`); wherever a command expects an id it
 * also accepts an unambiguous prefix of one, with or without the `session-` part. An exact id always wins,
 * even when it is also the prefix of another id.
 */
import type { SessionId } from '../../../protocol/events.js';
import type { SessionEngine } from '../../engine/assembly/engine-types.js';
import type { SessionRecord } from '../../engine/corpus/session-query.js';
import { ambiguousPrefixMessage, matchSessionIds } from '../../../protocol/session-id-match.js';
import { CliError } from './cli-error.js';

/**
 * The ids of `known` that `typed` names (the one rule of every face, `protocol/session-id-match.ts`).
 */
export { matchSessionIds } from '../../../protocol/session-id-match.js';

/**
 * Resolves what the user typed to one listed session id.
 * @param engine - the engine whose listing decides.
 * @param typed - an id or an id prefix.
 * @param signal - cancels the listing.
 * @returns the unique matching id; `undefined` when nothing matches (the caller decides whether that is an
 *   error — a citing session may not exist yet).
 * @throws CliError `CLI_SESSION_ID_AMBIGUOUS` naming the matches when several ids match.
 */
export async function resolveSessionId(engine: SessionEngine, typed: string, signal?: AbortSignal): Promise<SessionId | undefined> {
  return (await resolveSessionRecord(engine, typed, signal))?.header.id;
}

/**
 * {@link resolveSessionId}, returning the listed record (header included), so a caller that needs the session's
 * cwd does not list again.
 * @throws CliError `CLI_SESSION_ID_AMBIGUOUS` naming the matches when several ids match.
 */
export async function resolveSessionRecord(engine: SessionEngine, typed: string, signal?: AbortSignal): Promise<SessionRecord | undefined> {
  const records = await engine.listSessions(signal);
  const matches = matchSessionIds(
    typed,
    records.map((record) => record.header.id as string),
  );
  if (matches.length > 1) throw new CliError('CLI_SESSION_ID_AMBIGUOUS', ambiguousPrefixMessage(typed, matches));
  return matches[0] === undefined ? undefined : records.find((record) => record.header.id === matches[0]);
}

/**
 * Session ids as people type them. dsh ids are long (`session-<uuid>`); wherever a command expects an id it
 * also accepts an unambiguous prefix of one, with or without the `session-` part. An exact id always wins,
 * even when it is also the prefix of another id.
 */
import type { SessionId } from '../../protocol/events.js';
import type { SessionEngine } from '../engine/engine-types.js';
import type { SessionRecord } from '../corpus/session-query.js';
import { CliError } from './cli-error.js';

/** The prefix dsh gives every session id. */
const DSH_ID_PREFIX = 'session-';

/** How many matches an ambiguity error lists. */
const LISTED_MATCHES = 10;

/**
 * The ids of `known` that `typed` names: itself when present, else every id it is a prefix of (directly, or
 * after `session-`).
 * @param typed - what the user typed.
 * @param known - the listed session ids.
 */
export function matchSessionIds(typed: string, known: readonly string[]): string[] {
  if (known.includes(typed)) return [typed];
  if (typed === '') return [];
  return known.filter((id) => id.startsWith(typed) || (!typed.startsWith(DSH_ID_PREFIX) && id.startsWith(`${DSH_ID_PREFIX}${typed}`)));
}

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
  if (matches.length > 1) {
    const listed = matches.slice(0, LISTED_MATCHES).join(', ');
    const more = matches.length > LISTED_MATCHES ? ` and ${matches.length - LISTED_MATCHES} more` : '';
    throw new CliError(
      'CLI_SESSION_ID_AMBIGUOUS',
      `session id prefix ${JSON.stringify(typed)} matches ${matches.length} sessions: ${listed}${more}; type more of the id`,
    );
  }
  return matches[0] === undefined ? undefined : records.find((record) => record.header.id === matches[0]);
}

/**
 * Session ids as people type them (the one rule of every face: the CLI's `show 9d029d81`, MCP's
 * `reference_sessions {sessions: ["9d029d81"]}`). dsh ids are long (`session-<uuid>`); wherever an id is expected an
 * unambiguous prefix of one is accepted, with or without the `session-` part. An exact id always wins, even when it
 * is also the prefix of another id.
 */
import { boundedQuote } from './bounded-quote.js';

/** The prefix dsh gives every session id. */
const DSH_ID_PREFIX = 'session-';

/** How many matches an ambiguity message lists. */
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
 * The text of an ambiguous prefix: what was typed (bounded), how many ids it matches, the first few.
 * @param typed - what the user typed.
 * @param matches - the ids it matches (more than one), or the first of them.
 * @param total - how many it matches in all, when `matches` holds only the first (default: `matches.length`).
 */
export function ambiguousPrefixMessage(typed: string, matches: readonly string[], total = matches.length): string {
  const listed = matches.slice(0, LISTED_MATCHES).join(', ');
  const shown = Math.min(matches.length, LISTED_MATCHES);
  const more = total > shown ? ` and ${total - shown} more` : '';
  return `session id prefix ${boundedQuote(typed)} matches ${total} sessions: ${listed}${more}; type more of the id`;
}

/**
 * Naming another host's session by an id prefix (issue 29: "prefixes accepted wherever the CLI accepts them", for
 * sessions only the fleet has). The rule is the local one (`protocol/session-id-match.ts`): the typed text names the
 * ids it is a prefix of, directly or after `session-`; an exact id wins. The database answers which published ids it
 * is a prefix of; the caller applies the rule over the union with its own listing.
 *
 * Exactness: the stored id is compared with `starts_with` on the id itself (case-sensitive, byte for byte, no
 * collation); the trigram index on the lower-cased id key only narrows the rows first, and only for ASCII text,
 * where lower-casing keeps every prefix a prefix (a context-dependent lower-casing, such as Greek final sigma, could
 * not be trusted to).
 */
import type { FleetDatabase } from './fleet-database.js';
import { FLEET_SCHEMA } from './fleet-schema.js';

/** The prefix dsh gives every session id (as `session-id-match.ts` says). */
const DSH_ID_PREFIX = 'session-';

/** Enough ids to tell "one" from "several" and to list the first ten of an ambiguity (the total is counted apart). */
export const PUBLISHED_PREFIX_LIMIT = 11;

/** `text` as a LIKE pattern matching strings that start with it (wildcards and the escape character escaped). */
export function prefixPattern(text: string): string {
  return `${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

const PREFIX_SQL = `
WITH matched AS (
  SELECT DISTINCT session_id FROM ${FLEET_SCHEMA}.artifacts
  WHERE corpus_id <> $1
    AND ($4::text IS NULL OR id_key LIKE $4 ESCAPE '\\' OR id_key LIKE $5 ESCAPE '\\')
    AND (starts_with(session_id, $2) OR ($3::text IS NOT NULL AND starts_with(session_id, $3)))
)
SELECT session_id, (SELECT count(*) FROM matched)::int AS total FROM matched
ORDER BY session_id COLLATE "C" LIMIT ${PUBLISHED_PREFIX_LIMIT}`;

/** The first published ids a prefix names, and how many it names in all. */
export interface PublishedPrefixMatches {
  /** At most {@link PUBLISHED_PREFIX_LIMIT}, in code-point order. */
  readonly ids: readonly string[];
  readonly total: number;
}

/**
 * The ids other corpora than `ownCorpus` published that `typed` is a prefix of (directly, or after `session-`): the
 * first {@link PUBLISHED_PREFIX_LIMIT} in code-point order, and their number. An empty text names nothing.
 */
export async function publishedIdsByPrefix(
  database: FleetDatabase,
  ownCorpus: string,
  typed: string,
  signal?: AbortSignal,
): Promise<PublishedPrefixMatches> {
  if (typed === '') return { ids: [], total: 0 };
  const withDshPrefix = typed.startsWith(DSH_ID_PREFIX) ? null : `${DSH_ID_PREFIX}${typed}`;
  // The index narrows only ASCII text (see the file comment); other text is matched by the exact test alone.
  const ascii = /^[\x20-\x7e]*$/.test(typed);
  const keyPattern = ascii ? prefixPattern(typed.toLowerCase()) : null;
  const dshKeyPattern = ascii ? prefixPattern((withDshPrefix ?? typed).toLowerCase()) : null;
  const rows = await database.query<{ session_id: string; total: number }>(
    PREFIX_SQL,
    [ownCorpus, typed, withDshPrefix, keyPattern, dshKeyPattern],
    signal,
  );
  return { ids: rows.map((row) => row.session_id), total: rows[0]?.total ?? 0 };
}

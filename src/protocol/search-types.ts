/**
 * The full-text search contract (issue 17): what a caller asks and what it gets back, the same for the library
 * (`engine.searchSessions()`), the CLI (`sessionctx search --json`), the MCP tool `search_sessions` and the Web API
 * (`search/sessions`). Plain JSON data, so it crosses threads, processes and HTTP unchanged.
 */

/** The roles of indexed documents: user and steering text, assistant text, compaction checkpoints, tool calls/results. */
export type SearchRole = 'user' | 'assistant' | 'checkpoint' | 'tool';

/** Every {@link SearchRole}, in the order filters and docs list them. */
export const SEARCH_ROLES: readonly SearchRole[] = ['user', 'assistant', 'checkpoint', 'tool'];

/** One search request. Defaults are resolved once, where the request becomes a plan (the search service). */
export interface SearchQuery {
  /** The literal phrase: FTS5 syntax in it is data. Case- and diacritic-insensitive. */
  readonly query: string;
  /** Only sessions whose header cwd is this directory. */
  readonly cwd?: string;
  /**
   * Only documents at or after this time: ms since the epoch, or text — an age before now (`7d`), an ISO date, epoch
   * ms as digits (`protocol/search-request.ts`). A cursor is bound to the text as given, so `7d` pages on.
   */
  readonly since?: number | string;
  /** Only documents before this time, in the same forms as {@link since}. */
  readonly until?: number | string;
  /** Only documents of these roles (default: all indexed roles). */
  readonly roles?: readonly SearchRole[];
  /** Sessions per page (default and bound: the search config). */
  readonly limit?: number;
  /** The opaque cursor of the next page, from {@link SearchPage.nextCursor}. */
  readonly cursor?: string;
}

/** A `[start, end)` range of UTF-16 code units inside a {@link SearchHit.snippet}. */
export type HighlightRange = readonly [start: number, end: number];

/** One matching document of a session. */
export interface SearchHit {
  /** The seq of the event the text came from (the checkpoint event for a checkpoint). */
  readonly seq: number;
  readonly role: SearchRole;
  /** The event's time (ms since the epoch). */
  readonly time: number;
  /** A bounded excerpt of the document around the match, control characters escaped. */
  readonly snippet: string;
  /** Where the matched text is inside {@link snippet}. */
  readonly highlights: readonly HighlightRange[];
}

/** One session that matched, best match first within a page. */
export interface SearchSessionResult {
  readonly sessionId: string;
  /** The discovery label (its title, else its id), escaped as discovery escapes labels. */
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
  /** The canonical mention that cites this session in a message (a search hit becomes a reference in one step). */
  readonly mention: string;
  /** Relevance, higher is better (comparable within one query only). */
  readonly score: number;
  /** Its best hits, best first, bounded by the search config. */
  readonly hits: readonly SearchHit[];
}

/** One page of search results. */
export interface SearchPage {
  readonly results: readonly SearchSessionResult[];
  /** Present when more sessions matched. */
  readonly nextCursor?: string;
}

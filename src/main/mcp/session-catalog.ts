/**
 * What the MCP server offers, over the engine: sessions as resources in discovery order, the snapshot text a
 * reference to one or more of them would insert, discovery with mentions, and completion of session arguments.
 * Protocol-free (no SDK types), so the same answers can be checked in-process and through a real client.
 */
import { decodeSessionReferenceUri, encodeSessionReferenceUri, SESSION_REFERENCE_SCHEME } from '../../protocol/uri/session-uri.js';
import { escapeDisplayText } from '../../protocol/uri/display-escape.js';
import { boundedQuote } from '../../protocol/bounded-quote.js';
import { errorCode } from '../../protocol/error-code.js';
import { ambiguousPrefixMessage, matchSessionIds } from '../../protocol/session-id-match.js';
import { asSessionId } from '../../protocol/events.js';
import type { SessionId } from '../../protocol/events.js';
import type { LocalSessionEngine } from '../engine/create-engine.js';
import type { SearchQuery, SearchSessionResult } from '../../protocol/search-types.js';
import type { Candidate, MentionCandidate, ReferenceTarget } from '../reference/reference-types.js';
import { McpRequestError } from './mcp-request-error.js';
import { discoveryLabel } from '../corpus/discovery-label.js';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../../protocol/opaque-cursor.js';
import { anonymousReader } from '../reference/reader.js';

/** The MIME type of a session resource's text: the snapshot message, Markdown framing around tag-safe JSON. */
export const SESSION_RESOURCE_MIME_TYPE = 'text/markdown';

/** One session as an MCP resource (MCP `Resource`, keys in this order). */
export interface SessionResource {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
}

/** A page of resources and the cursor of the next one. */
export interface SessionResourcePage {
  readonly resources: readonly SessionResource[];
  readonly nextCursor?: string;
}

/** A discovery result as the `find_sessions` tool returns it. */
export interface FoundSession {
  readonly sessionId: string;
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
  readonly uri: string;
  readonly mention: string;
}

/** The sessions a snapshot was prepared from and its text. */
export interface PreparedSnapshot {
  readonly text: string;
  readonly sessions: ReadonlyArray<{ readonly sessionId: string; readonly label: string; readonly uri: string }>;
}

/** The most completion values MCP lets a server return at once. */
export const MAX_COMPLETION_VALUES = 100;

/**
 * `<cwd or (no cwd)> · <ISO created time> · <id>`, control characters escaped as discovery escapes labels.
 * @param candidate - a discovery result (its label and cwd already escaped)
 * @returns the resource description
 */
export function describeSession(candidate: Candidate): string {
  return `${candidate.cwd ?? '(no cwd)'} · ${new Date(candidate.createdAt).toISOString()} · ${escapeDisplayText(candidate.sessionId)}`;
}

/**
 * A discovery result as a resource.
 * @param candidate - a discovery result
 * @returns its resource
 */
export function sessionResource(candidate: Candidate): SessionResource {
  return {
    uri: encodeSessionReferenceUri(candidate.sessionId),
    name: candidate.label,
    title: candidate.label,
    description: describeSession(candidate),
    mimeType: SESSION_RESOURCE_MIME_TYPE,
  };
}

/** A list cursor: the offset of the page's first resource, as opaque text. */
function encodeCursor(offset: number): string {
  return encodeOpaqueCursor({ offset });
}

function decodeCursor(cursor: string): number {
  // Text that is not a cursor at all is reported as an invalid cursor, like any other cursor this server did not issue.
  const offset = (decodeOpaqueCursor(cursor) as { offset?: unknown } | null | undefined)?.offset;
  if (!Number.isSafeInteger(offset) || (offset as number) <= 0)
    throw new McpRequestError('invalid-params', `invalid cursor ${boundedQuote(cursor)}`);
  return offset as number;
}

/**
 * A session named by its canonical `dsh-session:` URI or by its id.
 * @param reference - what the client sent
 * @returns the session id
 * @throws McpRequestError `invalid-params` for a malformed URI or a value that is neither
 */
export function sessionIdOf(reference: unknown): SessionId {
  if (typeof reference !== 'string' || reference === '')
    throw new McpRequestError('invalid-params', 'a session is named by its dsh-session: URI or its id');
  if (!reference.startsWith(SESSION_REFERENCE_SCHEME)) return asSessionId(reference);
  try {
    return asSessionId(decodeSessionReferenceUri(reference));
  } catch (error) {
    throw new McpRequestError('invalid-params', `malformed session URI ${boundedQuote(reference)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** What the catalog needs of the engine (a narrow face, so a test can stand in for the engine). */
export type CatalogEngine = Pick<
  LocalSessionEngine,
  'listCandidates' | 'candidates' | 'readTitleSnapshots' | 'prepare' | 'searchSessions' | 'listSessions'
>;

/** The catalog over one engine; the reader's cwd (from the client's roots) ranks discovery. */
export class SessionCatalog {
  readonly #engine: CatalogEngine;
  readonly #pageSize: number;
  #cwd: string | undefined;

  /**
   * @param engine - the engine the server runs on
   * @param pageSize - resources per `resources/list` page (the configured `candidateLimit`)
   */
  constructor(engine: CatalogEngine, pageSize: number) {
    this.#engine = engine;
    this.#pageSize = pageSize;
  }

  /** The reader's working directory, or `undefined` when the client declared no root. */
  get cwd(): string | undefined {
    return this.#cwd;
  }

  /** Sets the reader's working directory (the client's first root), which ranks sessions of that project first. */
  set cwd(cwd: string | undefined) {
    this.#cwd = cwd;
  }

  /** The reader as the reference service sees it. */
  #target(): ReferenceTarget {
    // The reader that is no session: no listed session is excluded as the reader itself.
    return anonymousReader(this.#cwd);
  }

  /**
   * One page of sessions in discovery order (an empty query), `pageSize` per page.
   * @param cursor - the previous page's `nextCursor`, or `undefined` for the first page
   * @param signal - cancels the read
   * @returns the page and, when more sessions follow, the next cursor
   */
  async listPage(cursor: string | undefined, signal?: AbortSignal): Promise<SessionResourcePage> {
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    // One more than the page, so the last page is known without another listing.
    const found = await this.#engine.listCandidates(this.#target(), '', offset + this.#pageSize + 1, signal);
    const page = found.slice(offset, offset + this.#pageSize).map(sessionResource);
    return found.length > offset + this.#pageSize
      ? { resources: page, nextCursor: encodeCursor(offset + this.#pageSize) }
      : { resources: page };
  }

  /**
   * Discovery with mentions and URIs, in `candidates()` order.
   * @param query - the discovery query (`''` lists in discovery order)
   * @param limit - at most this many (default: the configured `candidateLimit`)
   * @param signal - cancels the read
   */
  async find(query: string, limit: number | undefined, signal?: AbortSignal): Promise<FoundSession[]> {
    const found = await this.#engine.candidates(this.#target(), query, limit, signal);
    return found.map((candidate: MentionCandidate) => ({
      sessionId: candidate.sessionId,
      label: candidate.label,
      ...(candidate.cwd === undefined ? {} : { cwd: candidate.cwd }),
      createdAt: candidate.createdAt,
      uri: encodeSessionReferenceUri(candidate.sessionId),
      mention: candidate.mention,
    }));
  }

  /**
   * Full-text search (issue 17): the engine's page, each session with its `dsh-session:` URI beside its mention.
   * @param query - the search request (validated by the engine)
   * @param signal - cancels the search at once
   */
  async search(
    query: SearchQuery,
    signal?: AbortSignal,
  ): Promise<{ results: Array<SearchSessionResult & { uri: string }>; nextCursor?: string }> {
    const page = await this.#engine.searchSessions(query, signal);
    const results = page.results.map((result) => ({ ...result, uri: encodeSessionReferenceUri(result.sessionId) }));
    return page.nextCursor === undefined ? { results } : { results, nextCursor: page.nextCursor };
  }

  /**
   * The session a client named: a `dsh-session:` URI names exactly its id; an id, or an unambiguous prefix of one
   * (with or without `session-`), as the CLI takes it (`protocol/session-id-match.ts`). An exact id always wins.
   * @param reference - a URI, an id or an id prefix
   * @param signal - cancels the listing
   * @throws McpRequestError `invalid-params` for a malformed URI or a prefix of several sessions, `not-found` for a
   *   name no listed session has
   */
  async resolve(reference: unknown, signal?: AbortSignal): Promise<SessionId> {
    const id = sessionIdOf(reference);
    const known = (await this.#engine.listSessions(signal)).map((record) => record.header.id as string);
    const matches = (reference as string).startsWith(SESSION_REFERENCE_SCHEME)
      ? known.filter((listed) => listed === id)
      : matchSessionIds(id, known);
    if (matches.length > 1) throw new McpRequestError('invalid-params', ambiguousPrefixMessage(id, matches));
    // Not listed: refused here, so no read (and no diagnostic) ever carries the unknown name whole.
    if (matches.length === 0) throw new McpRequestError('not-found', `no session ${boundedQuote(id)} in this corpus`);
    return asSessionId(matches[0] as string);
  }

  /**
   * The label discovery gives a session: its latest folded title, else its id, display-escaped.
   * @throws McpRequestError `not-found` when no session has this id (a damaged one is labelled by its id, as
   *   discovery labels it, and its preparation reports the damage)
   */
  async #label(sessionId: SessionId, signal?: AbortSignal): Promise<string> {
    const [observation] = await this.#engine.readTitleSnapshots([sessionId], signal);
    if (observation?.status === 'rejected' && errorCode(observation.reason) === 'SESSION_QUERY_SESSION_NOT_FOUND') {
      throw new McpRequestError('not-found', `no session ${boundedQuote(sessionId)} in this corpus`, { cause: observation.reason });
    }
    return discoveryLabel(sessionId, observation);
  }

  /**
   * The snapshot message text `prepare()` inserts for a message citing exactly these sessions, each labelled as
   * discovery labels it. All or nothing: the engine's typed errors propagate.
   * @param references - 1–3 URIs or ids
   * @param signal - cancels the preparation
   */
  async snapshot(references: readonly unknown[], signal?: AbortSignal): Promise<PreparedSnapshot> {
    const ids = await Promise.all(references.map((reference) => this.resolve(reference, signal)));
    const labels = await Promise.all(ids.map((id) => this.#label(id, signal)));
    const cited = ids.map((sessionId, index) => ({ sessionId, label: labels[index] as string }));
    const text = cited.map((source) => `@${source.label}`).join(', ');
    const prepared = await this.#engine.prepare(this.#target(), [{ type: 'text', text }], cited, signal);
    const block = prepared.additionalContext?.content[0];
    // prepare() returns a context for every non-empty, valid reference list; anything else is a broken engine.
    if (block === undefined || block.type !== 'text')
      throw new TypeError('prepare() returned no snapshot text for a non-empty reference list');
    return {
      text: (block as { text: string }).text,
      sessions: cited.map((source) => ({ ...source, uri: encodeSessionReferenceUri(source.sessionId) })),
    };
  }

  /**
   * Completion of a session argument: the URIs (or ids) of the sessions discovery finds for what was typed.
   * @param typed - the argument's current value
   * @param form - whether values are canonical URIs' encoded part (`template`, for `dsh-session:{session}`) or ids
   * @param signal - cancels the read
   */
  async complete(typed: string, form: 'template' | 'id', signal?: AbortSignal): Promise<string[]> {
    const found = await this.#engine.listCandidates(this.#target(), typed, MAX_COMPLETION_VALUES, signal);
    return found.map((candidate) =>
      form === 'id' ? candidate.sessionId : encodeSessionReferenceUri(candidate.sessionId).slice(SESSION_REFERENCE_SCHEME.length),
    );
  }
}

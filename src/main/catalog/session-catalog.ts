/**
 * The session catalog (docs/ARCHITECTURE.md "Faces and the catalog"): every session-facing operation the CLI, MCP
 * and the Web ask of the engine, in one face-neutral place — discovery in pages with opaque cursors, discovery with
 * mentions and URIs, completion, full-text search, naming a session by URI, id or prefix, the discovery label, the
 * reader a request runs for, the snapshot a reference inserts (no synthetic message), the preparation of a typed
 * message, the listing rows with artifact sizes, a session's surface and its DCP summary. It refuses with
 * {@link CatalogError}; faces map that to their own terms and format what it returns. Protocol-free (no SDK or HTTP
 * types).
 */
import { decodeSessionReferenceUri, encodeSessionReferenceUri, SESSION_REFERENCE_SCHEME } from '../../protocol/uri/session-uri.js';
import { escapeDisplayText } from '../../protocol/uri/display-escape.js';
import { boundedQuote } from '../../protocol/bounded-quote.js';
import { errorCode } from '../../protocol/error-code.js';
import { ambiguousPrefixMessage, matchSessionIds } from '../../protocol/session-id-match.js';
import { asSessionId } from '../../protocol/events.js';
import type { SessionId } from '../../protocol/events.js';
import type { LocalSessionEngine } from '../engine/assembly/create-engine.js';
import type { SearchQuery, SearchSessionResult } from '../../protocol/search-types.js';
import type { Candidate, MentionCandidate, ReferenceTarget } from '../engine/reference/reference-types.js';
import { AmbiguousSessionPrefixError, CatalogError } from './catalog-error.js';
import { unlistedSessionError } from './unlisted-session.js';
import { discoveryLabel } from '../engine/corpus/discovery-label.js';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../../protocol/opaque-cursor.js';
import { anonymousReader, sessionReader } from '../engine/reference/reader.js';
import { stat } from 'node:fs/promises';
import { artifactPathFor } from '../../io/artifact-path.js';
import { parseMessageContent } from '../../protocol/uri/mention-parser.js';
import type { WebDcpSummary, WebSessionRow } from '../../protocol/web/web-api.js';
import type { SessionListReport, SessionRecord } from '../engine/corpus/session-query.js';
import type { SizedPreparation } from '../engine/reference/reference-types.js';
import type { ContentBlock, SessionEvent, SessionHeader, SessionSurfaceSnapshot } from '../../protocol/events.js';
import type { DcpConfig } from '../../protocol/dcp/config.js';
import { RevisionCache } from './revision-cache.js';
import { CwdFileIndex, type FileListing } from '../engine/files/cwd-file-index.js';

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

/** A page of discovery results in discovery order and the cursor of the next one. */
export interface CatalogPage {
  readonly sessions: readonly Candidate[];
  readonly nextCursor?: string;
}

/**
 * One row of the session listing: the discovery label, the escaped cwd, the artifact's size (0 for a live session
 * not written yet, or an artifact that vanished). The Web API's row is this row.
 */
export type CatalogRow = WebSessionRow;

/** The listing: its rows, newest first, and how many entries of the root were skipped as listing problems. */
export interface CatalogListing {
  readonly rows: readonly CatalogRow[];
  readonly skipped: number;
}

/** A list cursor: the offset of the page's first resource, as opaque text. */
function encodeCursor(offset: number): string {
  return encodeOpaqueCursor({ offset });
}

function decodeCursor(cursor: string): number {
  // Text that is not a cursor at all is reported as an invalid cursor, like any other cursor this server did not issue.
  const offset = (decodeOpaqueCursor(cursor) as { offset?: unknown } | null | undefined)?.offset;
  if (!Number.isSafeInteger(offset) || (offset as number) <= 0)
    throw new CatalogError('invalid-argument', `invalid cursor ${boundedQuote(cursor)}`);
  return offset as number;
}

/**
 * A session named by its canonical `dsh-session:` URI or by its id.
 * @param reference - what the client sent
 * @returns the session id
 * @throws CatalogError `invalid-argument` for a malformed URI or a value that is neither
 */
export function sessionIdOf(reference: unknown): SessionId {
  if (typeof reference !== 'string' || reference === '')
    throw new CatalogError('invalid-argument', 'a session is named by its dsh-session: URI or its id');
  if (!reference.startsWith(SESSION_REFERENCE_SCHEME)) return asSessionId(reference);
  try {
    return asSessionId(decodeSessionReferenceUri(reference));
  } catch (error) {
    throw new CatalogError('invalid-argument', `malformed session URI ${boundedQuote(reference)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** What the catalog needs of the engine (a narrow face, so a test can stand in for the engine). */
export type CatalogEngine = Pick<
  LocalSessionEngine,
  | 'listCandidates'
  | 'candidates'
  | 'readTitleSnapshots'
  | 'prepare'
  | 'prepareSized'
  | 'searchSessions'
  | 'buildSearchIndex'
  | 'searchIndexStatus'
  | 'clearSearchIndex'
  | 'fleetStatus'
  | 'publishToFleet'
  | 'publishedSession'
  | 'publishedSessionIds'
  | 'onCorpusChange'
  | 'readListedTitleSnapshots'
  | 'listedArtifactRevision'
  | 'listSessions'
  | 'listSessionsReport'
  | 'readSurface'
  | 'store'
  | 'runner'
>;

/** How a catalog is built. */
export interface SessionCatalogOptions {
  /** Sessions per discovery page (the configured `candidateLimit`). */
  readonly pageSize: number;
  /**
   * DCP's configuration (DCP.md §16) summaries are computed with, as the composition resolved it at start-up
   * (`ResolvedCompositionConfig.dcp.config`); default: DCP's defaults.
   */
  readonly dcp?: DcpConfig;
  /** The `@` picker's file index (default: one with the default bounds); tests pass one with a clock of their own. */
  readonly files?: CwdFileIndex;
}

/** How many DCP summaries a catalog keeps computed (each is a whole-log replay). */
const DCP_SUMMARY_CACHE_ENTRIES = 8;

/** An artifact's size and a stamp of its revision (device, inode, size, mtime, ctime): equal stamps, same content. */
interface ArtifactStamp {
  readonly size: number;
  readonly stamp: string;
}

/** No artifact (a live session without one, or a layout problem): size 0, and a stamp no file has. */
const NO_ARTIFACT: ArtifactStamp = { size: 0, stamp: '' };

/** The size and revision stamp of the regular file at `path`, or `undefined` when there is none. */
async function fileStamp(path: string): Promise<ArtifactStamp | undefined> {
  const info = await stat(path, { bigint: true }).catch(() => undefined);
  if (info?.isFile() !== true) return undefined;
  return { size: Number(info.size), stamp: `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` };
}

/**
 * What a listing leaves for the next one ({@link SessionCatalog.listAgain}): each row with the revision stamp of its
 * artifact when it was read, so an unchanged session's title is not read again.
 */
export interface ListingMemo {
  readonly rows: ReadonlyMap<string, { readonly row: CatalogRow; readonly stamp: string }>;
}

/** Options of {@link SessionCatalog.listAgain}. */
export interface ListAgainOptions {
  /**
   * Read the titles that `memo` does not vouch for (default `true`). `false` answers from the headers alone: such a
   * row is labelled by its id and marked `titlePending`, and the next listing reads its title. What a page's first
   * paint needs on a root whose titles were never read (issue 28: at 10,000 sessions the title reads are seconds,
   * the headers a fraction of one).
   */
  readonly readTitles?: boolean;
}

/** The catalog over one engine; the reader's cwd (from the client's roots) ranks discovery. */
export class SessionCatalog {
  readonly #engine: CatalogEngine;
  readonly #pageSize: number;
  #dcp: DcpConfig | undefined;
  /** The Context views computed, while their logs keep their revision. */
  readonly #summaries = new RevisionCache<WebDcpSummary>(DCP_SUMMARY_CACHE_ENTRIES);
  /** The `@` picker's files, per session cwd (in memory only: an index of names is cheap to rebuild). */
  readonly #files: CwdFileIndex;
  #cwd: string | undefined;

  /**
   * @param engine - the engine the face runs on
   * @param options - the page size and the DCP configuration
   */
  constructor(engine: CatalogEngine, options: SessionCatalogOptions) {
    this.#engine = engine;
    this.#pageSize = options.pageSize;
    this.#dcp = options.dcp;
    this.#files = options.files ?? new CwdFileIndex();
  }

  /**
   * The working directory of the catalog's own reader (a face with one reader per connection: an MCP client's first
   * root), or `undefined`.
   */
  get cwd(): string | undefined {
    return this.#cwd;
  }

  /** Sets the reader's working directory (the client's first root), which ranks sessions of that project first. */
  set cwd(cwd: string | undefined) {
    this.#cwd = cwd;
  }

  /**
   * The reader of a request that names its citing session (the Web page's `target`): a listed session's id (exact:
   * faces send ids they were given) with that session's cwd; an id no listed session has (a conversation not written
   * yet) as it is, without a cwd; no target, the reader that is no session.
   */
  async reader(target: string | undefined, signal?: AbortSignal): Promise<ReferenceTarget> {
    if (target === undefined) return anonymousReader();
    const { records } = await this.#engine.listSessionsReport(signal);
    return sessionReader(target, records.find((record) => record.header.id === target)?.header.cwd);
  }

  /** The catalog's own reader: no session, with the connection's cwd. */
  #target(): ReferenceTarget {
    // The reader that is no session: no listed session is excluded as the reader itself.
    return anonymousReader(this.#cwd);
  }

  /**
   * One page of sessions in discovery order (an empty query), `pageSize` per page.
   * @param cursor - the previous page's `nextCursor`, or `undefined` for the first page
   * @param signal - cancels the read
   * @returns the page and, when more sessions follow, the next cursor
   * @throws CatalogError `invalid-argument` for a cursor this catalog did not issue
   */
  async page(cursor: string | undefined, signal?: AbortSignal): Promise<CatalogPage> {
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    // One more than the page, so the last page is known without another listing.
    const found = await this.#engine.listCandidates(this.#target(), '', offset + this.#pageSize + 1, signal);
    const sessions = found.slice(offset, offset + this.#pageSize);
    return found.length > offset + this.#pageSize ? { sessions, nextCursor: encodeCursor(offset + this.#pageSize) } : { sessions };
  }

  /**
   * Discovery for `reader` (`candidates()`: labels, cwds, mentions), for a face that names the reader per request.
   * @param limit - at most this many (default: the configured `candidateLimit`)
   */
  candidates(reader: ReferenceTarget, query: string, limit: number | undefined, signal?: AbortSignal): Promise<MentionCandidate[]> {
    return this.#engine.candidates(reader, query, limit, signal);
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
   * @throws CatalogError `invalid-argument` for a malformed URI or a prefix of several sessions, `not-found` for a
   *   name no listed session has
   */
  async resolve(reference: unknown, signal?: AbortSignal): Promise<SessionId> {
    const id = sessionIdOf(reference);
    const known = (await this.#engine.listSessions(signal)).map((record) => record.header.id as string);
    const byUri = (reference as string).startsWith(SESSION_REFERENCE_SCHEME);
    let matches = byUri ? known.filter((listed) => listed === id) : matchSessionIds(id, known);
    let total = matches.length;
    // A shared corpus index (issue 29): the ids other hosts published count as listed, so a prefix names one of
    // them, or is ambiguous between a local and a remote session, exactly as between two local ones. An exact local
    // id needs no question to the database.
    if (!byUri && !known.includes(id)) {
      const published = await this.#engine.publishedSessionIds(id, signal);
      if (published.total > 0) {
        const local = new Set(matches);
        matches = matchSessionIds(id, [...new Set([...known, ...published.ids])]);
        // Published ids past the first few are counted, not fetched; a session both hosts have is counted once.
        total = local.size + published.total - published.ids.filter((remote: string) => local.has(remote)).length;
      }
    }
    if (matches.length > 1) throw new AmbiguousSessionPrefixError(ambiguousPrefixMessage(id, matches, total), matches);
    // A whole id another host published names that session.
    if (matches.length === 0 && (await this.#engine.publishedSession(id, signal)) !== undefined) return id;
    // Not listed: refused here, so no read (and no diagnostic) ever carries the unknown name whole.
    if (matches.length === 0) throw new CatalogError('not-found', `no session ${boundedQuote(id)} in this corpus`);
    return asSessionId(matches[0] as string);
  }

  /**
   * The label discovery gives a session: its latest folded title, else its id, display-escaped.
   * @throws CatalogError `not-found` when no session has this id (a damaged one is labelled by its id, as
   *   discovery labels it, and its preparation reports the damage)
   */
  async label(sessionId: SessionId, signal?: AbortSignal): Promise<string> {
    const [observation] = await this.#engine.readTitleSnapshots([sessionId], signal);
    if (observation?.status === 'rejected' && errorCode(observation.reason) === 'SESSION_QUERY_SESSION_NOT_FOUND') {
      // Another host's session is labelled as its owner's discovery labels it: its published title, else its id.
      const published = await this.#engine.publishedSession(sessionId, signal);
      if (published !== undefined) return escapeDisplayText(published.title ?? sessionId);
      throw new CatalogError('not-found', `no session ${boundedQuote(sessionId)} in this corpus`, { cause: observation.reason });
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
    const labels = await Promise.all(ids.map((id) => this.label(id, signal)));
    const cited = ids.map((sessionId, index) => ({ sessionId, label: labels[index] as string }));
    // The references alone: prepare() only echoes a message's content, so none is made up.
    const prepared = await this.#engine.prepare(this.#target(), [], cited, signal);
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

  /**
   * The preparation of a typed message for `reader`: its mentions parsed as the host parses a direct message
   * (SESSION-REFERENCE.md §5.2, §13.2), then `prepareSized()` (which writes nothing): the
   * preparation and each source's rendered size.
   */
  prepareMessage(reader: ReferenceTarget, text: string, signal?: AbortSignal): Promise<SizedPreparation> {
    const parsed = parseMessageContent([{ type: 'text', text }]);
    return this.#engine.prepareSized(reader, parsed.content, parsed.references, signal);
  }

  /**
   * The files the `@` picker offers for a message written in `target` (docs/WEB.md "The @ source"): paths under the
   * target session's cwd matching `query`, from the bounded per-cwd index. The index is rebuilt when the target's log
   * changed since it was built (its tools may have changed files), else after its TTL.
   * @param target - the listed session the message is written in; none, or one without a cwd, offers no files
   * @param query - what follows `@` or `@"`
   * @param signal - cancels this caller's wait (a walk other lookups share goes on)
   * @returns the cwd searched (absent: no files to offer) and the listing
   * @throws FileIndexError when the cwd is not absolute or cannot be listed
   */
  async fileCandidates(target: string | undefined, query: string, signal?: AbortSignal): Promise<FileListing & { readonly cwd?: string }> {
    const none = { candidates: [], truncated: false };
    if (target === undefined) return none;
    const { records } = await this.#engine.listSessionsReport(signal);
    const record = records.find((candidate) => candidate.header.id === target);
    const cwd = record?.header.cwd;
    if (record === undefined || cwd === undefined) return none;
    const freshness = await this.#logRevision(record);
    const listing = await this.#files.list(cwd, query, {
      ...(freshness === undefined ? {} : { freshness }),
      ...(signal === undefined ? {} : { signal }),
    });
    return { ...listing, cwd };
  }

  /** The session listing, newest first (SESSION-LOG.md §10.3), each row labelled as discovery labels it, with its size. */
  async list(signal?: AbortSignal): Promise<CatalogListing> {
    return (await this.listAgain(undefined, signal)).listing;
  }

  /**
   * The listing again after a change (the Web page's event stream, issue 28 item 2): as {@link list}, but the title of
   * a session whose artifact has the revision it had in `memo` is taken from `memo` instead of being read again (on
   * 10,000 sessions, reading every title is most of a listing). A live session's title is always read (it has no
   * artifact that would show the change).
   * @param memo - what the previous listing left (`undefined`: read every title)
   * @returns the listing and what it leaves for the next one
   */
  async listAgain(
    memo: ListingMemo | undefined,
    signal?: AbortSignal,
    options: ListAgainOptions = {},
  ): Promise<{ readonly listing: CatalogListing; readonly memo: ListingMemo }> {
    const readTitles = options.readTitles ?? true;
    const report = await this.#engine.listSessionsReport(signal);
    const stamps = await Promise.all(report.records.map((record) => this.#artifactStamp(record, signal)));
    const reread: number[] = [];
    report.records.forEach((record, index) => {
      const known = memo?.rows.get(record.header.id);
      if (record.live || known === undefined || known.stamp === '' || known.stamp !== stamps[index]?.stamp) reread.push(index);
    });
    const rereadIds = reread.map((index) => report.records[index]!.header.id);
    // The warm view's titles (no listing of the root per call; exact ones where the engine has no warm view).
    const titles = rereadIds.length === 0 || !readTitles ? [] : await this.#engine.readListedTitleSnapshots(rereadIds, signal);
    const readLabels = readTitles
      ? new Map(reread.map((index, at) => [index, discoveryLabel(report.records[index]!.header.id, titles[at])]))
      : new Map<number, string>();
    const pending = readTitles ? new Set<number>() : new Set(reread);
    const next = new Map<string, { row: CatalogRow; stamp: string }>();
    const rows: CatalogRow[] = report.records.map((record, index) => {
      const stamp = stamps[index] ?? NO_ARTIFACT;
      const titlePending = pending.has(index);
      const row: CatalogRow = {
        sessionId: record.header.id,
        label: readLabels.get(index) ?? (titlePending ? undefined : memo?.rows.get(record.header.id)?.row.label) ?? record.header.id,
        ...(record.header.cwd === undefined ? {} : { cwd: escapeDisplayText(record.header.cwd) }),
        createdAt: record.header.createdAt,
        sizeBytes: stamp.size,
        live: record.live,
        ...(titlePending ? { titlePending: true } : {}),
      };
      // A row whose title was not read is read by the next listing (the empty stamp matches no artifact).
      next.set(record.header.id, { row, stamp: titlePending ? '' : stamp.stamp });
      return row;
    });
    return { listing: { rows, skipped: report.problems.length }, memo: { rows: next } };
  }

  /** A session's surface as it stands and its discovery label (the engine's typed errors as they are). */
  async surface(
    sessionId: SessionId,
    signal?: AbortSignal,
  ): Promise<{ readonly snapshot: SessionSurfaceSnapshot; readonly label: string }> {
    const [snapshot, observations] = await Promise.all([
      this.#engine.readSurface(sessionId, signal),
      this.#engine.readTitleSnapshots([sessionId], signal),
    ]);
    return { snapshot, label: discoveryLabel(sessionId, observations[0]) };
  }

  /**
   * A stored session's whole log (stored events and synthetic crash closers) and its discovery label: what the Web's
   * log view shows (the CLI's `show --log` reads the same log through {@link inspectLog}).
   * @throws CatalogError `no-root` when the engine has no session root; the store's typed errors as they are
   */
  async wholeLog(
    sessionId: SessionId,
    signal?: AbortSignal,
  ): Promise<{ readonly meta: SessionHeader; readonly events: readonly SessionEvent[]; readonly label: string }> {
    const [{ meta, events }, label] = await Promise.all([this.inspectLog(sessionId, signal), this.label(sessionId, signal)]);
    return { meta, events, label };
  }

  /**
   * The Context view of a stored session ({@link dcpSummary}): its context chart, DCP's blocks and the `/dcp stats`
   * text, from one read and one replay on the engine's pool; kept while the artifact keeps its revision.
   * @throws CatalogError `no-root` when the engine has no session root; the store's typed errors as they are
   */
  async dcpSummary(sessionId: SessionId, signal: AbortSignal): Promise<WebDcpSummary> {
    // The DCP pipeline (ledger fold, stats, context chart) is loaded by the first summary: the CLI's session commands
    // and MCP never need it, and it is a fifth of what `sessions` would load (start-up, issue 26 item 6).
    const [{ dcpSummary }, { resolveDcpConfig }, label] = await Promise.all([
      import('./dcp-summary.js'),
      import('../../protocol/dcp/config.js'),
      this.label(sessionId, signal),
    ]);
    this.#dcp ??= resolveDcpConfig(undefined).config;
    return dcpSummary({ engine: this.#engine, sessionId, label, dcp: this.#dcp, signal, cache: this.#summaries });
  }

  /**
   * Calls `listener` after each burst of changes below the root that the engine's warm corpus view was told of (a
   * session written, added or removed): the signal MCP's subscriptions and the Web page's event stream follow. It says
   * that something changed, not what; a listener asks the catalog again.
   * @param listener - called with no arguments; it must not throw
   * @returns the function that removes the listener, or `undefined` when the engine reports no changes (no warm view)
   */
  onCorpusChange(listener: () => void): (() => void) | undefined {
    return this.#engine.onCorpusChange(listener);
  }

  /**
   * The listing as the engine reports it: the listed records, newest first, and the entries of the root it skipped
   * (each a listing problem with its path and code), for a face that shows them.
   */
  listingReport(signal?: AbortSignal): Promise<SessionListReport> {
    return this.#engine.listSessionsReport(signal);
  }

  /** The folded title of each session, in `ids` order; a failure is that session's rejected observation. */
  titleSnapshots(ids: readonly SessionId[], signal?: AbortSignal): ReturnType<CatalogEngine['readTitleSnapshots']> {
    return this.#engine.readTitleSnapshots(ids, signal);
  }

  /**
   * The listed record an id or an unambiguous id prefix (with or without `session-`) names; an exact id always wins.
   * @returns `undefined` when no listed session matches (a citing session may not exist yet)
   * @throws AmbiguousSessionPrefixError (`invalid-argument`) when several ids match
   */
  async record(typed: string, signal?: AbortSignal): Promise<SessionRecord | undefined> {
    const records = await this.#engine.listSessions(signal);
    const matches = matchSessionIds(
      typed,
      records.map((record) => record.header.id as string),
    );
    if (matches.length > 1) throw new AmbiguousSessionPrefixError(ambiguousPrefixMessage(typed, matches), matches);
    return matches[0] === undefined ? undefined : records.find((record) => record.header.id === matches[0]);
  }

  /**
   * {@link record} for a session that must exist: when none is listed, the real reason — the store's error for a
   * damaged or unreadable log of that id, else `SESSION_QUERY_SESSION_NOT_FOUND` naming what was typed.
   * @throws AmbiguousSessionPrefixError when several ids match
   */
  async requireRecord(typed: string, signal?: AbortSignal): Promise<SessionRecord> {
    const found = await this.record(typed, signal);
    if (found !== undefined) return found;
    throw await unlistedSessionError(this.#engine, typed, signal);
  }

  /**
   * The reader a command acts for: `cwd` wins; else a listed target session's own cwd; else none. A typed id that is
   * an unambiguous prefix of a listed id means that session; one that matches nothing is a new session's id, as typed.
   * @throws AmbiguousSessionPrefixError when several ids match
   */
  async readerFor(target: string | undefined, cwd: string | undefined, signal?: AbortSignal): Promise<ReferenceTarget> {
    if (target === undefined) return anonymousReader(cwd);
    const found = await this.record(target, signal);
    return sessionReader(found?.header.id ?? target, cwd ?? found?.header.cwd);
  }

  /**
   * Reads a session by the exact id first (the common case costs no listing); when that session is not found, an
   * unambiguous id prefix names it instead. Any other failure is the exact read's own; a prefix matching nothing is
   * the real reason the id names no listed session (a damaged log's store code), else not-found.
   */
  async #readExactOrByPrefix<T>(typed: string, read: (id: SessionId) => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await read(asSessionId(typed));
    } catch (error) {
      if (errorCode(error) !== 'SESSION_QUERY_SESSION_NOT_FOUND') throw error;
      const resolved = (await this.record(typed, signal))?.header.id;
      if (resolved === undefined) throw await unlistedSessionError(this.#engine, typed, signal);
      if (resolved === typed) throw error;
      return read(resolved);
    }
  }

  /** The surface of the session an id or id prefix names, as `readSurface` returns it (see `#readExactOrByPrefix`). */
  readSurfaceOf(typed: string, signal?: AbortSignal): Promise<SessionSurfaceSnapshot> {
    return this.#readExactOrByPrefix(typed, (id) => this.#engine.readSurface(id, signal), signal);
  }

  /**
   * The whole balanced log (stored events and synthetic crash closers) of the session an id or id prefix names.
   * @throws CatalogError `no-root` when the engine has no session root
   */
  inspectLog(typed: string, signal?: AbortSignal): ReturnType<NonNullable<CatalogEngine['store']>['inspect']> {
    const store = this.#engine.store;
    if (store === undefined) return Promise.reject(new CatalogError('no-root', 'reading a whole log needs a session root'));
    return this.#readExactOrByPrefix(typed, (id) => store.inspect(id, signal), signal);
  }

  /**
   * `prepare()` of a typed message for `reader`, its mentions parsed as the host parses a direct message; the
   * preparation exactly as the engine returns it (`{content, additionalContext}`).
   */
  prepareText(reader: ReferenceTarget, text: string, signal?: AbortSignal): ReturnType<CatalogEngine['prepare']> {
    const content: ContentBlock[] = [{ type: 'text', text }];
    const parsed = parseMessageContent(content);
    return this.#engine.prepare(reader, parsed.content, parsed.references, signal);
  }

  /** One page of full-text search as the engine returns it (no URIs added: the CLI's `--json` shape). */
  searchPage(query: SearchQuery, signal?: AbortSignal): ReturnType<CatalogEngine['searchSessions']> {
    return this.#engine.searchSessions(query, signal);
  }

  /** Brings the search index up to date with the corpus (docs/SEARCH.md §4), reporting progress. */
  buildSearchIndex(options?: Parameters<CatalogEngine['buildSearchIndex']>[0]): ReturnType<CatalogEngine['buildSearchIndex']> {
    return this.#engine.buildSearchIndex(options);
  }

  /** The search index's file, size, schema and counts. */
  searchIndexStatus(signal?: AbortSignal): ReturnType<CatalogEngine['searchIndexStatus']> {
    return this.#engine.searchIndexStatus(signal);
  }

  /** Removes the search index's file (every root's). */
  clearSearchIndex(signal?: AbortSignal): ReturnType<CatalogEngine['clearSearchIndex']> {
    return this.#engine.clearSearchIndex(signal);
  }

  /**
   * The shared corpus index's corpora, hosts, lag and size (issue 29).
   * @throws FleetError `FLEET_NOT_CONFIGURED` when the index is not shared; the database's `FLEET_*` codes
   */
  fleetStatus(signal?: AbortSignal): ReturnType<CatalogEngine['fleetStatus']> {
    return this.#engine.fleetStatus(signal);
  }

  /**
   * Publishes what changed in the root into the shared corpus index now; resolves when it is committed.
   * @throws FleetError `FLEET_NOT_CONFIGURED` when the index is not shared; the database's `FLEET_*` codes
   */
  publishToFleet(): ReturnType<CatalogEngine['publishToFleet']> {
    return this.#engine.publishToFleet();
  }

  /** The revision of a session's artifact as text (size and mtime), or `undefined` without one (a live session). */
  async #logRevision(record: SessionRecord): Promise<string | undefined> {
    const store = this.#engine.store;
    if (store === undefined || !record.persisted) return undefined;
    const info = await stat(artifactPathFor(store.config, record.header.id, record.header.cwd)).catch(() => undefined);
    return info === undefined ? undefined : `${info.size}:${info.mtimeMs}:${info.ino}`;
  }

  /**
   * The bytes of a session's artifact, or 0 when it has none (a live session not yet written) or it vanished. The
   * path its header names is tried first (one `stat`); only an artifact found elsewhere costs the store's lookup.
   */
  async #artifactStamp(record: SessionRecord, signal?: AbortSignal): Promise<ArtifactStamp> {
    const store = this.#engine.store;
    if (store === undefined || !record.persisted) return NO_ARTIFACT;
    const { id, cwd } = record.header;
    // The warm view's revision from the listing just taken: no `stat` per session (10,000 of them per listing).
    const listed = record.live ? undefined : this.#engine.listedArtifactRevision(id);
    if (listed !== undefined)
      return { size: Number(listed.size), stamp: `${listed.dev}:${listed.ino}:${listed.size}:${listed.mtimeNs}:${listed.ctimeNs}` };
    try {
      const named = await fileStamp(artifactPathFor(store.config, id, cwd));
      if (named !== undefined) return named;
      const located = await store.locate(id, signal);
      return located === undefined ? NO_ARTIFACT : ((await fileStamp(located)) ?? NO_ARTIFACT);
    } catch {
      // A size is a detail of the row: a layout problem of this one session (reported by its reads) must not fail the list.
      return NO_ARTIFACT;
    }
  }
}

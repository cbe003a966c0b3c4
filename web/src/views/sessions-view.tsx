/**
 * Sessions (issue 18): the corpus grouped by project (cwd), groups and sessions newest first, each with its title,
 * created time and size. The search box filters titles at once and, when the server has full-text search, also asks
 * `search/sessions` for sessions whose contents match; without it the page says so and keeps filtering titles.
 */
import type { JSX } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SearchPage } from '../../../src/protocol/search-types.js';
import type { WebSessionRow } from '../../../src/protocol/web/web-api.js';
import { call, isAbort, WebApiError } from '../api/client.js';
import { formatBytes, formatTime, isoTime, plural } from '../format.js';
import { hrefOf } from '../router.js';
import { Highlighted } from './highlighted.js';

/** Sessions of one project, newest first. */
interface ProjectGroup {
  readonly cwd: string | undefined;
  readonly sessions: readonly WebSessionRow[];
}

/**
 * Groups rows by cwd: each group's sessions newest first, groups ordered by their newest session.
 *
 * @param rows the listing
 */
function groupByProject(rows: readonly WebSessionRow[]): ProjectGroup[] {
  const groups = new Map<string | undefined, WebSessionRow[]>();
  for (const row of rows) {
    const list = groups.get(row.cwd);
    if (list === undefined) groups.set(row.cwd, [row]);
    else list.push(row);
  }
  const out = [...groups].map(([cwd, sessions]) => ({ cwd, sessions: sessions.sort((a, b) => b.createdAt - a.createdAt) }));
  return out.sort((a, b) => (b.sessions[0]?.createdAt ?? 0) - (a.sessions[0]?.createdAt ?? 0));
}

/** The content search's state. */
type ContentSearch =
  | { readonly kind: 'idle' }
  | { readonly kind: 'searching' }
  | {
      readonly kind: 'ready';
      /** Every page so far, in order. */
      readonly results: SearchPage['results'];
      readonly nextCursor?: string;
      /** A "more" request is under way. */
      readonly loadingMore?: boolean;
      readonly moreFailed?: string;
    }
  | { readonly kind: 'unavailable'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string };

/** How long typing must pause before the contents are searched. */
const SEARCH_PAUSE_MS = 250;
/** Sessions per search page. */
const SEARCH_PAGE = 20;

function readyState(results: SearchPage['results'], page: SearchPage): ContentSearch {
  const all = [...results, ...page.results];
  return page.nextCursor === undefined ? { kind: 'ready', results: all } : { kind: 'ready', results: all, nextCursor: page.nextCursor };
}

/** The Sessions view. */
export function SessionsView(): JSX.Element {
  const [rows, setRows] = useState<{ sessions: readonly WebSessionRow[]; skipped: number } | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [filter, setFilter] = useState('');
  const [content, setContent] = useState<ContentSearch>({ kind: 'idle' });
  // Once the server said it has no full-text search, later keystrokes do not ask again.
  const [searchUnavailable, setSearchUnavailable] = useState<string | undefined>(undefined);

  useEffect(() => {
    const controller = new AbortController();
    call('sessions/list', {}, controller.signal).then(setRows, (error: unknown) => {
      if (!isAbort(error)) setFailure(error instanceof Error ? error.message : String(error));
    });
    return () => controller.abort();
  }, []);

  // The search the "more" requests continue: aborted with it when the query changes.
  const searchController = useRef<AbortController | undefined>(undefined);
  useEffect(() => {
    const query = filter.trim();
    if (query === '') {
      setContent({ kind: 'idle' });
      return;
    }
    if (searchUnavailable !== undefined) {
      setContent({ kind: 'unavailable', message: searchUnavailable });
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setContent({ kind: 'searching' });
      call('search/sessions', { query, limit: SEARCH_PAGE }, controller.signal).then(
        (page) => setContent(readyState([], page)),
        (error: unknown) => {
          if (isAbort(error)) return;
          if (error instanceof WebApiError && error.code === 'SEARCH_UNAVAILABLE') {
            setSearchUnavailable(error.message);
            setContent({ kind: 'unavailable', message: error.message });
          } else setContent({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
        },
      );
    }, SEARCH_PAUSE_MS);
    searchController.current = controller;
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [filter, searchUnavailable]);

  /** Asks for the next page with the last page's cursor and appends it. */
  function more(): void {
    if (content.kind !== 'ready' || content.nextCursor === undefined || content.loadingMore === true) return;
    const shown = content;
    const signal = searchController.current?.signal;
    setContent({ ...shown, loadingMore: true });
    call('search/sessions', { query: filter.trim(), limit: SEARCH_PAGE, cursor: shown.nextCursor! }, signal).then(
      (page) => setContent(readyState(shown.results, page)),
      (error: unknown) => {
        if (!isAbort(error)) setContent({ ...shown, moreFailed: error instanceof Error ? error.message : String(error) });
      },
    );
  }

  const groups = useMemo(() => {
    if (rows === undefined) return [];
    const needle = filter.trim().toLocaleLowerCase();
    const kept = needle === '' ? rows.sessions : rows.sessions.filter((row) => row.label.toLocaleLowerCase().includes(needle));
    return groupByProject(kept);
  }, [rows, filter]);
  const shown = groups.reduce((n, group) => n + group.sessions.length, 0);

  return (
    <main class="view sessions-view" aria-labelledby="sessions-heading">
      <h1 id="sessions-heading">Sessions</h1>
      <search class="session-search">
        <label for="session-filter">Search sessions</label>
        <input
          id="session-filter"
          type="search"
          value={filter}
          placeholder="Title or words from the conversation"
          autocomplete="off"
          onInput={(event) => setFilter(event.currentTarget.value)}
        />
      </search>
      {failure !== undefined ? (
        <p role="alert" class="error">
          Could not list sessions: {failure}
        </p>
      ) : null}
      {rows === undefined && failure === undefined ? <p role="status">Loading sessions…</p> : null}
      {rows !== undefined ? (
        <p class="hint" role="status">
          {filter.trim() === ''
            ? plural(rows.sessions.length, 'session', 'sessions')
            : `${shown} of ${plural(rows.sessions.length, 'session', 'sessions')} match the title`}
          {rows.skipped > 0 ? ` · ${plural(rows.skipped, 'unreadable artifact', 'unreadable artifacts')} skipped` : ''}
        </p>
      ) : null}
      <ContentResults search={content} onMore={more} />
      {groups.map((group) => (
        <section class="project" key={group.cwd ?? ''} aria-label={`Project ${group.cwd ?? '(no project)'}`}>
          <h2 class="project-cwd">{group.cwd ?? '(no project)'}</h2>
          <ul class="session-list">
            {group.sessions.map((row) => (
              <li key={row.sessionId} class="session-row" data-session-id={row.sessionId}>
                <a class="session-title" href={hrefOf({ view: 'session', sessionId: row.sessionId })}>
                  {row.label}
                </a>
                <span class="session-meta">
                  <time dateTime={isoTime(row.createdAt)}>{formatTime(row.createdAt)}</time> · {formatBytes(row.sizeBytes)}
                  {row.live ? ' · live' : ''}
                </span>
                <span class="session-links">
                  <a href={hrefOf({ view: 'context', sessionId: row.sessionId })} aria-label={`Context of ${row.label}`}>
                    Context
                  </a>
                  <a href={hrefOf({ view: 'compose', target: row.sessionId })} aria-label={`Compose in ${row.label}`}>
                    Compose
                  </a>
                </span>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </main>
  );
}

/** The content search's part of the page. */
function ContentResults({ search, onMore }: { search: ContentSearch; onMore: () => void }): JSX.Element | null {
  switch (search.kind) {
    case 'idle':
      return null;
    case 'searching':
      return (
        <p class="hint" role="status">
          Searching contents…
        </p>
      );
    case 'unavailable':
      return (
        <p class="notice search-unavailable" role="status">
          Full-text search is not available on this server ({search.message}); only titles are filtered.
        </p>
      );
    case 'failed':
      return (
        <p class="error" role="alert">
          Content search failed: {search.message}
        </p>
      );
    case 'ready':
      return (
        <section class="content-results" aria-labelledby="content-results-heading">
          <h2 id="content-results-heading">In conversations</h2>
          <p class="hint result-count" role="status">
            {search.results.length === 0
              ? 'No conversation contains these words.'
              : search.nextCursor === undefined
                ? `${plural(search.results.length, 'session', 'sessions')} found`
                : `${plural(search.results.length, 'session', 'sessions')} shown · more match`}
          </p>
          <ul class="session-list">
            {search.results.map((result) => (
              <li key={result.sessionId} class="session-row search-result" data-session-id={result.sessionId}>
                <a class="session-title" href={hrefOf({ view: 'session', sessionId: result.sessionId })}>
                  {result.label}
                </a>
                <span class="session-meta">{result.cwd ?? '(no project)'}</span>
                {result.hits.slice(0, 2).map((hit) => (
                  <p class="snippet" key={hit.seq}>
                    <a
                      class="snippet-link"
                      href={hrefOf({ view: 'session', sessionId: result.sessionId, seq: hit.seq })}
                      aria-label={`${hit.role} message in ${result.label}: ${hit.snippet}`}
                    >
                      <span class="snippet-role">{hit.role}</span> <Highlighted text={hit.snippet} ranges={hit.highlights} />
                    </a>
                  </p>
                ))}
              </li>
            ))}
          </ul>
          {search.moreFailed !== undefined ? (
            <p class="error" role="alert">
              Could not load more results: {search.moreFailed}
            </p>
          ) : null}
          {search.nextCursor !== undefined ? (
            <button type="button" class="more" onClick={onMore} disabled={search.loadingMore === true}>
              {search.loadingMore === true ? 'Loading…' : 'More results'}
            </button>
          ) : null}
        </section>
      );
    default: {
      const never: never = search;
      throw new TypeError(`unknown search state ${JSON.stringify(never)}`);
    }
  }
}

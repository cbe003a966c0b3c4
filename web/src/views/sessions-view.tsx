/**
 * Sessions (issue 18): the corpus grouped by project (cwd), groups and sessions newest first, each with its title,
 * created time and size. The search box filters titles at once and, when the server has full-text search, also asks
 * `search/sessions` for sessions whose contents match; without it the page says so and keeps filtering titles.
 *
 * Built for 10,000 sessions (issue 28 item 5): each project is a collapsible group with its count, and the whole list
 * is windowed (`virtual-list.tsx`), so the DOM holds only the rows in view. Live (item 2): sessions written, retitled
 * or removed while the page is open arrive from the event stream (`live/`) and are applied in place.
 */
import type { JSX } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SearchPage } from '../../../src/protocol/search-types.js';
import type { WebSessionRow } from '../../../src/protocol/web/web-api.js';
import { call, isAbort, WebApiError } from '../api/client.js';
import { formatBytes, formatTime, isoTime, plural } from '../format.js';
import { applyCorpusChange, catchUpListing } from '../live/apply-change.js';
import { corpusFeed } from '../live/corpus-feed.js';
import { useCorpusFeed } from '../live/use-corpus-feed.js';
import { hrefOf } from '../router.js';
import { Highlighted } from './highlighted.js';
import { VirtualList } from './virtual-list.js';

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

/** One line of the windowed list: a project's header or one of its sessions. */
type ListLine =
  | { readonly kind: 'project'; readonly group: ProjectGroup; readonly collapsed: boolean }
  | { readonly kind: 'session'; readonly row: WebSessionRow; readonly position: number; readonly groupSize: number };

/** The fixed heights of the list's lines (CSS pixels; `styles.css` lays each line out to fit). */
const PROJECT_LINE_PX = 44;
const SESSION_LINE_PX = 60;

/** The key of a project group (the cwd; `undefined` is the sessions without one). */
function groupKey(cwd: string | undefined): string {
  return cwd === undefined ? '' : `/${cwd}`;
}

/** How long the view waits for the stream's first reset before it lists by itself (a stream that cannot open). */
const FIRST_RESET_WAIT_MS = 1500;

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
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState('');
  const [content, setContent] = useState<ContentSearch>({ kind: 'idle' });
  // Once the server said it has no full-text search, later keystrokes do not ask again.
  const [searchUnavailable, setSearchUnavailable] = useState<string | undefined>(undefined);

  // The listing under way; a newer one (after a reset) aborts it.
  const listing = useRef<AbortController | undefined>(undefined);
  const list = useCallback((): void => {
    listing.current?.abort();
    const controller = new AbortController();
    listing.current = controller;
    call('sessions/list', {}, controller.signal).then(
      (value) => {
        setRows({ ...value, sessions: catchUpListing(value.sessions, value.revision, corpusFeed.recent) });
        setFailure(undefined);
      },
      (error: unknown) => {
        if (!isAbort(error)) setFailure(error instanceof Error ? error.message : String(error));
      },
    );
  }, []);
  // On a first load the stream's reset is about to ask for the listing: one listing, not two. A stream that already
  // spoke (the view was opened again) sends no reset now, so the view lists at once.
  const waitingForReset = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (corpusFeed.heard) list();
    else waitingForReset.current = setTimeout(list, FIRST_RESET_WAIT_MS);
    return () => {
      clearTimeout(waitingForReset.current);
      listing.current?.abort();
    };
  }, [list]);
  useCorpusFeed((event) => {
    if (event.kind === 'reset') {
      clearTimeout(waitingForReset.current);
      list();
      return;
    }
    setRows((shown) => (shown === undefined ? shown : { ...shown, sessions: applyCorpusChange(shown.sessions, event.change) }));
  });

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
  const lines = useMemo(() => {
    const out: ListLine[] = [];
    for (const group of groups) {
      const closed = collapsed.has(groupKey(group.cwd));
      out.push({ kind: 'project', group, collapsed: closed });
      if (closed) continue;
      group.sessions.forEach((row, index) => out.push({ kind: 'session', row, position: index + 1, groupSize: group.sessions.length }));
    }
    return out;
  }, [groups, collapsed]);
  const heightOf = useCallback((index: number) => (lines[index]?.kind === 'project' ? PROJECT_LINE_PX : SESSION_LINE_PX), [lines]);
  const toggle = (cwd: string | undefined): void =>
    setCollapsed((was) => {
      const next = new Set(was);
      const key = groupKey(cwd);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const allCollapsed = groups.length > 0 && groups.every((group) => collapsed.has(groupKey(group.cwd)));

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
      {groups.length > 0 ? (
        <div class="project-tools">
          <span class="hint">{plural(groups.length, 'project', 'projects')}</span>
          <button
            type="button"
            class="collapse-all"
            onClick={() => setCollapsed(allCollapsed ? new Set() : new Set(groups.map((group) => groupKey(group.cwd))))}
          >
            {allCollapsed ? 'Expand all' : 'Collapse all'}
          </button>
        </div>
      ) : null}
      <VirtualList
        class="session-groups"
        label="Sessions by project"
        count={lines.length}
        heightOf={heightOf}
        item={(index, style) => {
          const line = lines[index]!;
          return line.kind === 'project' ? (
            <ProjectLine key={`p${groupKey(line.group.cwd)}`} line={line} style={style} onToggle={toggle} />
          ) : (
            <SessionLine key={line.row.sessionId} line={line} style={style} />
          );
        }}
      />
    </main>
  );
}

/** A project's header: its cwd and count, a button that folds its sessions away. */
function ProjectLine({
  line,
  style,
  onToggle,
}: {
  line: Extract<ListLine, { kind: 'project' }>;
  style: { top: string; height: string };
  onToggle: (cwd: string | undefined) => void;
}): JSX.Element {
  const name = line.group.cwd ?? '(no project)';
  const count = plural(line.group.sessions.length, 'session', 'sessions');
  return (
    <li class="project-line" style={style} data-cwd={name}>
      <h2 class="project-heading">
        <button type="button" class="project-toggle" aria-expanded={!line.collapsed} onClick={() => onToggle(line.group.cwd)}>
          <span class="project-cwd" title={name}>
            {name}
          </span>
          <span class="project-count">{count}</span>
        </button>
      </h2>
    </li>
  );
}

/** One session of the list: its title (one line, ellipsized), its links, its time and size. */
function SessionLine({
  line,
  style,
}: {
  line: Extract<ListLine, { kind: 'session' }>;
  style: { top: string; height: string };
}): JSX.Element {
  const { row } = line;
  return (
    <li class="session-row" style={style} data-session-id={row.sessionId} aria-posinset={line.position} aria-setsize={line.groupSize}>
      <a
        class={row.titlePending === true ? 'session-title title-pending' : 'session-title'}
        href={hrefOf({ view: 'session', sessionId: row.sessionId })}
        title={row.titlePending === true ? `${row.label} (title still being read)` : row.label}
      >
        {row.label}
      </a>
      <span class="session-links">
        <a href={hrefOf({ view: 'context', sessionId: row.sessionId })} aria-label={`Context of ${row.label}`}>
          Context
        </a>
        <a href={hrefOf({ view: 'compose', target: row.sessionId })} aria-label={`Compose in ${row.label}`}>
          Compose
        </a>
      </span>
      <span class="session-meta">
        <time dateTime={isoTime(row.createdAt)}>{formatTime(row.createdAt)}</time> · {formatBytes(row.sizeBytes)}
        {row.live ? ' · live' : ''}
      </span>
    </li>
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

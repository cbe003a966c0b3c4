/**
 * `sessionctx search "phrase"`: full-text search over the current conversation of the root's sessions (issue 17,
 * docs/SEARCH.md). The phrase is literal (FTS5 syntax in it is data), case- and diacritic-insensitive. Per session
 * it prints the discovery row, the mention to paste, and the best hits (seq, role, snippet with the match marked
 * «like this»); `--json` prints the engine's `SearchPage` as it is. The index is brought up to date first; when that
 * takes a while, a progress bar shows on a terminal's stderr.
 */
import { boundedQuote } from '../../../../protocol/bounded-quote.js';
import { parseSearchRequest, type SearchRequestProblem } from '../../../../protocol/search-request.js';
import { SEARCH_ROLES, type SearchPage, type SearchQuery } from '../../../../protocol/search-types.js';
import { escapeTerminalText } from '../../../../protocol/uri/display-escape.js';
import type { SessionCatalog } from '../../../catalog/session-catalog.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withCatalog } from '../open-engine.js';
import { progressListener } from '../progress-bar.js';
import { formatSessionRow } from '../session-row.js';
import { UsageError } from '../usage-error.js';

/** A repeatable flag's values, collected as typed (the request schema checks them). */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A count as typed: a number when it reads as one, else the text (which the schema refuses, naming the flag). */
function countOf(text: string): number | string {
  return /^\s*[+-]?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text;
}

/** The flag (or argument) each key of a search request comes from. */
const FLAG_OF: Readonly<Record<string, string>> = {
  query: 'the phrase',
  cwd: '--cwd',
  since: '--since',
  until: '--until',
  roles: '--role',
  limit: '--limit',
  cursor: '--cursor',
};

/** A request's problem as the usage error of the flag it came from. */
function usageOf(problem: SearchRequestProblem, request: Record<string, unknown>): UsageError {
  const [key = '', index] = problem.key.split('.');
  const flag = FLAG_OF[key] ?? key;
  const value = index === undefined ? request[key] : (request[key] as unknown[] | undefined)?.[Number(index)];
  const shown = key === 'query' || value === undefined ? '' : ` ${boundedQuote(String(value))}`;
  return new UsageError(`${flag}${shown}: ${problem.reason}`);
}

/** The match markers of human output. */
const OPEN = '«';
const CLOSE = '»';

/** A snippet with its highlights marked (the snippet is escaped already; the markers are inserted around ranges). */
function marked(snippet: string, highlights: readonly (readonly [number, number])[]): string {
  let out = '';
  let at = 0;
  for (const [start, end] of highlights) {
    out += snippet.slice(at, start) + OPEN + snippet.slice(start, end) + CLOSE;
    at = end;
  }
  return escapeTerminalText(out + snippet.slice(at));
}

function formatPage(page: SearchPage): string[] {
  const lines: string[] = [];
  for (const result of page.results) {
    lines.push(formatSessionRow({ createdAt: result.createdAt, id: result.sessionId, label: result.label, cwd: result.cwd }));
    lines.push(`  ${result.mention}`);
    for (const hit of result.hits) lines.push(`    #${hit.seq} ${hit.role}: ${marked(hit.snippet, hit.highlights)}`);
  }
  if (page.nextCursor !== undefined) lines.push(`more results: --cursor ${page.nextCursor}`);
  return lines;
}

/** The options of `search`, as typed (the one search request schema checks them). */
export interface SearchOptions {
  readonly cwd?: string;
  readonly since?: string;
  readonly until?: string;
  readonly role?: string[];
  readonly limit?: string;
  readonly cursor?: string;
}

/** The request the options describe (keys of absent flags left out). */
function requestOf(phrase: string, options: SearchOptions): Record<string, unknown> {
  return {
    query: phrase,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.until === undefined ? {} : { until: options.until }),
    ...(options.role === undefined ? {} : { roles: options.role }),
    ...(options.limit === undefined ? {} : { limit: countOf(options.limit) }),
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
  };
}

/** A filter of a request and how the user wrote it. */
interface Filter {
  readonly key: 'cwd' | 'since' | 'until' | 'roles';
  readonly shown: string;
}

/** The filters a request applies, as flags. */
function filtersOf(query: SearchQuery): Filter[] {
  const filters: Filter[] = [];
  if (query.cwd !== undefined) filters.push({ key: 'cwd', shown: `--cwd ${query.cwd}` });
  if (query.since !== undefined) filters.push({ key: 'since', shown: `--since ${String(query.since)}` });
  if (query.until !== undefined) filters.push({ key: 'until', shown: `--until ${String(query.until)}` });
  if (query.roles !== undefined) filters.push({ key: 'roles', shown: query.roles.map((role) => `--role ${role}`).join(' ') });
  return filters;
}

/**
 * What an empty page means: no session contains the phrase at all, or the filters excluded the sessions that do
 * (then which filters, each on its own, leave none).
 */
async function explainEmpty(catalog: SessionCatalog, query: SearchQuery, signal: AbortSignal | undefined): Promise<string[]> {
  const phrase = escapeTerminalText(JSON.stringify(query.query));
  const filters = filtersOf(query);
  if (filters.length === 0) return [`no sessions contain ${phrase}`];
  const unfiltered = await catalog.searchPage({ query: query.query, limit: 1 }, signal);
  const first = unfiltered.results[0];
  if (first === undefined) return [`no sessions contain ${phrase}`];
  const excluding: string[] = [];
  if (filters.length > 1) {
    for (const filter of filters) {
      const alone = await catalog.searchPage({ query: query.query, [filter.key]: query[filter.key], limit: 1 } as SearchQuery, signal);
      if (alone.results.length === 0) excluding.push(filter.shown);
    }
  }
  const all = filters.map((filter) => filter.shown).join(' ');
  const lines = [
    `no sessions contain ${phrase} with ${escapeTerminalText(all)}; without ${filters.length === 1 ? 'it' : 'these filters'} ${unfiltered.nextCursor === undefined ? 'one session does' : 'sessions do'}, e.g. ${first.label}`,
  ];
  if (filters.length > 1) {
    lines.push(
      excluding.length === 0
        ? '  no one of the filters excludes them alone: together they do'
        : `  excluded by ${escapeTerminalText(excluding.join(' and '))} on ${excluding.length === 1 ? 'its' : 'their'} own`,
    );
  }
  return lines;
}

async function search(context: CommandContext, phrase: string, options: SearchOptions): Promise<void> {
  const { io, signal } = context;
  const { search: config } = context.resolved.config;
  const request = requestOf(phrase, options);
  // The one schema of a search request (protocol/search-request.ts), bounded by the configuration: a refusal is a
  // usage error naming the flag, before any engine starts.
  const parsed = parseSearchRequest(request, { maxLimit: config.maxLimit });
  if (!parsed.ok) throw usageOf(parsed.problem, request);
  if (parsed.query.roles?.includes('tool') === true && !config.includeTools) {
    throw new UsageError(
      '--role tool: tool calls and results are not indexed; turn tool indexing on with "search": {"includeTools": true} in the config file (search.includeTools)',
    );
  }
  // The request goes on as typed (validated): the engine resolves an age such as `7d` and binds its cursor to it.
  const query = request as unknown as SearchQuery;
  const onSearchProgress = progressListener(io, 'indexing sessions');
  const { page, empty } = await withCatalog(
    context,
    async ({ catalog }) => {
      const found = await catalog.searchPage(query, signal);
      const why = found.results.length === 0 && !context.json ? await explainEmpty(catalog, query, signal) : [];
      return { page: found, empty: why };
    },
    { onSearchProgress, searches: true },
  );
  if (context.json) {
    writeJson(io, page);
    return;
  }
  if (page.results.length === 0) {
    writeLines(io, empty);
    return;
  }
  writeLines(io, formatPage(page));
}

/** `sessionctx search "phrase" [--cwd DIR] [--since T] [--until T] [--role R...] [--limit N] [--cursor C]`. */
export const searchCommand: CliCommandDefinition<[phrase: string], SearchOptions> = {
  name: ['search'],
  usage: {
    description:
      'full-text search of what was said in the sessions of a root (user, assistant and compaction text): a literal phrase, case- and accent-insensitive; each session with its mention and best hits',
    arguments: [{ name: '<phrase>', description: 'the literal phrase to find (quotes and operators are text)' }],
    examples: [
      'sessionctx search "rounding in cartTotal"',
      'sessionctx search "training OOM" --since 7d --role assistant',
      'sessionctx search cafe --cwd ~/projects/webshop --json',
    ],
  },
  options: [
    { flags: '--cwd <dir>', description: 'only sessions whose working directory is this one' },
    {
      flags: '--since <time>',
      description: 'only text written at or after this time: an ISO date, an age (30m, 12h, 7d, 2w) or epoch milliseconds',
    },
    { flags: '--until <time>', description: 'only text written before this time: an ISO date, an age or epoch milliseconds' },
    {
      flags: '--role <role...>',
      description: `only text of these roles (${SEARCH_ROLES.join(', ')}; tool needs search.includeTools)`,
      parse: collect as (value: string) => unknown,
    },
    { flags: '--limit <n>', description: 'sessions per page, from 1 to search.maxLimit', configKey: 'search.defaultLimit' },
    { flags: '--cursor <cursor>', description: 'the next page, as printed by the previous one' },
  ],
  run(context, { args: [phrase], options }) {
    return search(context, phrase, options);
  },
};

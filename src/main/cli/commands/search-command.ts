/**
 * `sessionctx search "phrase"`: full-text search over the current conversation of the root's sessions (issue 17,
 * docs/SEARCH.md). The phrase is literal (FTS5 syntax in it is data), case- and diacritic-insensitive. Per session
 * it prints the discovery row, the mention to paste, and the best hits (seq, role, snippet with the match marked
 * «like this»); `--json` prints the engine's `SearchPage` as it is. The index is brought up to date first; when that
 * takes a while, a progress bar shows on a terminal's stderr.
 */
import { InvalidArgumentError } from 'commander';
import { SEARCH_ROLES, type SearchPage, type SearchQuery, type SearchRole } from '../../../protocol/search-types.js';
import { escapeTerminalText } from '../../../protocol/uri/display-escape.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { parseCountOption } from '../count-option.js';
import { withEngine } from '../open-engine.js';
import { progressBar, type ProgressReporter } from '../progress-bar.js';
import { formatSessionRow } from '../session-row.js';

/** Milliseconds per unit of a relative time (`30m`, `12h`, `7d`, `2w`). */
const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * A time flag: an ISO 8601 date or date-time (`2026-03-01`, `2026-03-01T12:00:00Z`), or a relative age before now
 * (`30m`, `12h`, `7d`, `2w`).
 * @param value - the flag's text.
 * @param now - the current time (ms).
 * @returns milliseconds since the epoch.
 */
export function parseTimeOption(value: string, now: number = Date.now()): number {
  const relative = /^(\d{1,9})([mhdw])$/.exec(value.trim());
  if (relative !== null) return now - Number(relative[1]) * (UNITS[relative[2] as string] as number);
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    const parsed = Date.parse(value.trim());
    if (Number.isFinite(parsed)) return parsed;
  }
  throw new InvalidArgumentError('it must be an ISO date (2026-03-01, 2026-03-01T12:00Z) or an age such as 30m, 12h, 7d, 2w.');
}

/** A `--role` value, collected into a list. */
function parseRoleOption(value: string, previous: SearchRole[] | undefined): SearchRole[] {
  if (!(SEARCH_ROLES as readonly string[]).includes(value)) throw new InvalidArgumentError(`it must be one of ${SEARCH_ROLES.join(', ')}.`);
  return [...(previous ?? []), value as SearchRole];
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

/** The options of `search`. */
export interface SearchOptions {
  readonly cwd?: string;
  readonly since?: number;
  readonly until?: number;
  readonly role?: SearchRole[];
  readonly limit?: number;
  readonly cursor?: string;
}

/** Sessions checked before a progress bar is worth drawing (a warm index checks thousands in a blink). */
const PROGRESS_AFTER = 200;

async function search(context: CommandContext, phrase: string, options: SearchOptions): Promise<void> {
  const { io, signal } = context;
  let progress: ProgressReporter | undefined;
  const onSearchProgress = (done: number, total: number): void => {
    if (progress === undefined && done < total && total >= PROGRESS_AFTER) progress = progressBar(io, 'indexing sessions', total);
    progress?.update(done);
    if (done === total && progress !== undefined) {
      progress.finish();
      progress = undefined;
    }
  };
  const query: SearchQuery = {
    query: phrase,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.until === undefined ? {} : { until: options.until }),
    ...(options.role === undefined ? {} : { roles: options.role }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
  };
  const page = await withEngine(context, (engine) => engine.searchSessions(query, signal), { onSearchProgress });
  if (context.json) {
    writeJson(io, page);
    return;
  }
  if (page.results.length === 0) {
    writeLines(io, [`no sessions contain ${escapeTerminalText(JSON.stringify(phrase))}`]);
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
      description: 'only text written at or after this time: an ISO date or an age (30m, 12h, 7d, 2w)',
      parse: (value) => parseTimeOption(value),
    },
    {
      flags: '--until <time>',
      description: 'only text written before this time: an ISO date or an age',
      parse: (value) => parseTimeOption(value),
    },
    {
      flags: '--role <role...>',
      description: `only text of these roles (${SEARCH_ROLES.join(', ')}; tool needs search.includeTools)`,
      parse: parseRoleOption as (value: string) => unknown,
    },
    { flags: '--limit <n>', description: 'sessions per page (default: search.defaultLimit, 20)', parse: parseCountOption },
    { flags: '--cursor <cursor>', description: 'the next page, as printed by the previous one' },
  ],
  run(context, { args: [phrase], options }) {
    return search(context, phrase, options);
  },
};

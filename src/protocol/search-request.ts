/**
 * One schema for a full-text search request (issue 26, build item 3): every face parses what it received with it —
 * the MCP tool `search_sessions` (which also derives its advertised JSON Schema from it), the Web API's
 * `search/sessions`, the CLI's `search` options (mapped onto its keys), and the engine for library callers — so one
 * set of bounds and one set of time formats holds everywhere. What needs the configuration is a parameter (the
 * `search.maxLimit` bound); what needs the index (a CJK phrase's 3-character minimum, a cursor's fingerprint) stays
 * with the search service.
 *
 * Times (`since`, `until`) are a number of milliseconds since the epoch, or text: an age before now (`30m`, `12h`,
 * `7d`, `2w`), an ISO 8601 date or date-time (`2026-03-01`, `2026-03-01T12:00Z`), or a whole number of epoch
 * milliseconds of 10 to 16 digits (`1767225600000`). Every rule carries its own reason text, so zod's texts never reach a user.
 */
import { z } from 'zod';
import { SEARCH_ROLES, type SearchQuery, type SearchRole } from './search-types.js';

/** The longest phrase accepted (UTF-16 units), on every face. */
export const SEARCH_QUERY_MAX_LENGTH = 100_000;

/** The largest page any configuration may allow (`search.maxLimit`'s own ceiling). */
export const SEARCH_LIMIT_CEILING = 1000;

/** The longest cursor accepted (ours are under 100 characters). */
const CURSOR_MAX_LENGTH = 1000;

/** Milliseconds per unit of an age (`30m`, `12h`, `7d`, `2w`). */
const AGE_UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The reason of every failed time. */
export const SEARCH_TIME_REASON =
  'must be an ISO date (2026-03-01, 2026-03-01T12:00Z), an age such as 30m, 12h, 7d, 2w, or milliseconds since the epoch';

/**
 * A time as a face received it, in milliseconds since the epoch; `undefined` when it is none of the accepted forms.
 * @param value - a number (epoch ms) or text (an age, an ISO date or date-time, epoch ms as digits).
 * @param now - the current time (ms), which an age counts back from.
 */
export function parseSearchTime(value: unknown, now: number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const age = /^(\d{1,9})([mhdw])$/.exec(text);
  if (age !== null) return now - Number(age[1]) * (AGE_UNITS[age[2] as string] as number);
  // Epoch milliseconds as digits: 10 or more, so a bare `7` (meant as an age) is refused rather than read as 1970.
  if (/^\d{10,16}$/.test(text)) return Number(text);
  if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(text)) {
    const parsed = Date.parse(text);
    if (Number.isFinite(parsed)) return parsed;
  }
  return undefined;
}

/** What a face needs of the configuration to check a request. */
export interface SearchRequestBounds {
  /** The largest `limit` (the configuration's `search.maxLimit`; default {@link SEARCH_LIMIT_CEILING}). */
  readonly maxLimit: number;
}

/** How the schema reads the clock (tests pass a fixed one). */
export interface SearchRequestClock {
  readonly now: () => number;
}

const text = (reason: string): z.ZodString => z.string({ error: reason });

function timeRule(clock: SearchRequestClock) {
  return z
    .union([z.number(), z.string()], { error: SEARCH_TIME_REASON })
    .transform((value, context): number => {
      const parsed = parseSearchTime(value, clock.now());
      if (parsed === undefined) {
        context.addIssue({ code: 'custom', message: SEARCH_TIME_REASON, input: value });
        return z.NEVER;
      }
      return parsed;
    })
    .meta({ description: 'milliseconds since the epoch, or text: an age (30m, 12h, 7d, 2w) or an ISO date (2026-03-01)' });
}

/**
 * The schema of one search request.
 * @param bounds - the configuration's bounds (default: the ceilings every configuration lies within).
 * @param clock - the clock ages count back from (default: `Date.now`).
 * @returns a strict object schema whose output is a {@link ResolvedSearchQuery}.
 */
export function searchRequestSchema(
  bounds: SearchRequestBounds = { maxLimit: SEARCH_LIMIT_CEILING },
  clock: SearchRequestClock = { now: Date.now },
) {
  const limitReason = `must be a whole number from 1 to ${bounds.maxLimit}`;
  return z.strictObject(
    {
      query: text('must be a string')
        .min(1, { error: 'must not be empty' })
        .max(SEARCH_QUERY_MAX_LENGTH, { error: `must be at most ${SEARCH_QUERY_MAX_LENGTH} characters` })
        .refine((value) => value.trim() !== '', { error: 'must not be empty' })
        .meta({ description: 'the literal phrase to find (quotes and operators are text); case- and accent-insensitive' }),
      cwd: text('must be a non-empty string')
        .min(1, { error: 'must be a non-empty string' })
        .optional()
        .meta({ description: 'only sessions whose working directory is this one' }),
      since: timeRule(clock)
        .optional()
        .meta({ description: 'only text written at or after this time: epoch ms, an age (7d) or an ISO date' }),
      until: timeRule(clock).optional().meta({ description: 'only text written before this time: epoch ms, an age (7d) or an ISO date' }),
      roles: z
        .array(z.enum(SEARCH_ROLES as readonly [SearchRole, ...SearchRole[]], { error: `must be one of ${SEARCH_ROLES.join(', ')}` }), {
          error: 'must be an array',
        })
        .min(1, { error: `must be a non-empty list of ${SEARCH_ROLES.join(', ')}` })
        .optional()
        .meta({ description: "only text of these roles (tool needs the server's search.includeTools)" }),
      limit: z
        .number({ error: limitReason })
        .int({ error: limitReason })
        .min(1, { error: limitReason })
        .max(bounds.maxLimit, { error: limitReason })
        .optional()
        .meta({ description: "sessions per page (default: the server's search.defaultLimit)" }),
      cursor: text('must be a string')
        .min(1, { error: 'must be a non-empty string' })
        .max(CURSOR_MAX_LENGTH, { error: 'is not a cursor this search issued' })
        .optional()
        .meta({ description: 'the nextCursor of the previous page' }),
    },
    { error: 'must be an object' },
  );
}

/** A request after parsing: times resolved to epoch milliseconds. */
export type ResolvedSearchQuery = Omit<SearchQuery, 'since' | 'until'> & { readonly since?: number; readonly until?: number };

/** The first problem of a request: the key it concerns (`''` for the request itself) and our reason. */
export interface SearchRequestProblem {
  readonly key: string;
  readonly reason: string;
}

/** A parse: the request, or its first problem. */
export type SearchRequestParse =
  | { readonly ok: true; readonly query: ResolvedSearchQuery }
  | { readonly ok: false; readonly problem: SearchRequestProblem };

/**
 * Parses one request as a face received it.
 * @param input - the request (JSON data).
 * @param bounds - the configuration's bounds.
 * @param clock - the clock ages count back from.
 * @returns the query (times in epoch milliseconds, absent keys left out) or the first problem.
 */
export function parseSearchRequest(input: unknown, bounds?: SearchRequestBounds, clock?: SearchRequestClock): SearchRequestParse {
  const parsed = searchRequestSchema(bounds, clock).safeParse(input);
  if (parsed.success) {
    const query: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(parsed.data)) if (value !== undefined) query[key] = value;
    return { ok: true, query: query as unknown as ResolvedSearchQuery };
  }
  const issue = parsed.error.issues[0];
  if (issue === undefined) return { ok: false, problem: { key: '', reason: 'is invalid' } };
  if (issue.code === 'unrecognized_keys') {
    return { ok: false, problem: { key: String(issue.keys[0]), reason: 'is not a search argument' } };
  }
  return { ok: false, problem: { key: issue.path.map(String).join('.'), reason: issue.message } };
}

/**
 * A problem as one line: `limit must be a whole number from 1 to 100`.
 * @param problem - a parse's first problem.
 */
export function describeSearchRequestProblem(problem: SearchRequestProblem): string {
  return problem.key === '' ? `the request ${problem.reason}` : `${problem.key} ${problem.reason}`;
}

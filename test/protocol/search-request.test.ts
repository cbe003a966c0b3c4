// The one search request schema (issue 26): every time form the faces accept, resolved against a fixed clock and
// compared with Date.UTC; the bounds (one set, the configuration's maxLimit a parameter); the first problem named
// by its key; and the JSON Schema MCP advertises derived from it (its bounds are the schema's).
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  parseSearchRequest,
  parseSearchTime,
  SEARCH_LIMIT_CEILING,
  SEARCH_QUERY_MAX_LENGTH,
  searchRequestSchema,
} from '../../src/protocol/search-request.js';

const now = Date.UTC(2026, 2, 10, 12, 0, 0);
const clock = { now: () => now };

describe('times', () => {
  it.each([
    ['7d', now - 7 * 86_400_000],
    ['12h', now - 12 * 3_600_000],
    ['30m', now - 30 * 60_000],
    ['2w', now - 14 * 86_400_000],
    [' 7d ', now - 7 * 86_400_000],
    ['2026-03-01', Date.UTC(2026, 2, 1)],
    ['2026-03-01T12:30:00Z', Date.UTC(2026, 2, 1, 12, 30)],
    ['2026-03-01T12:30Z', Date.UTC(2026, 2, 1, 12, 30)],
    ['2026-03-01T12:30:00+02:00', Date.UTC(2026, 2, 1, 10, 30)],
    ['1767225600000', 1_767_225_600_000],
    [1_767_225_600_000, 1_767_225_600_000],
    [0, 0],
  ])('%j is %d', (value, expected) => {
    expect(parseSearchTime(value, now)).toBe(expected);
  });

  it.each(['yesterday', '7', '7y', '2026-13-45x', '', '2026-02-30T99:99Z', Number.NaN, Number.POSITIVE_INFINITY, null, true])(
    '%j is refused',
    (value) => {
      expect(parseSearchTime(value, now)).toBeUndefined();
    },
  );
});

describe('the request', () => {
  it('resolves times and leaves absent keys out', () => {
    expect(parseSearchRequest({ query: 'x', since: '7d', until: 5_000_000_000_000, roles: ['user'] }, undefined, clock)).toEqual({
      ok: true,
      query: { query: 'x', since: now - 7 * 86_400_000, until: 5_000_000_000_000, roles: ['user'] },
    });
  });

  it.each([
    [{ query: '' }, 'query', 'must not be empty'],
    [{ query: ' \t ' }, 'query', 'must not be empty'],
    [{ query: 'x'.repeat(SEARCH_QUERY_MAX_LENGTH + 1) }, 'query', `must be at most ${SEARCH_QUERY_MAX_LENGTH} characters`],
    [{}, 'query', 'must be a string'],
    [{ query: 'x', limit: 0 }, 'limit', 'must be a whole number from 1 to 100'],
    [{ query: 'x', limit: 101 }, 'limit', 'must be a whole number from 1 to 100'],
    [{ query: 'x', limit: 1.5 }, 'limit', 'must be a whole number from 1 to 100'],
    [{ query: 'x', roles: [] }, 'roles', 'must be a non-empty list of user, assistant, checkpoint, tool'],
    [{ query: 'x', roles: ['robot'] }, 'roles.0', 'must be one of user, assistant, checkpoint, tool'],
    [
      { query: 'x', since: 'yesterday' },
      'since',
      'must be an ISO date (2026-03-01, 2026-03-01T12:00Z), an age such as 30m, 12h, 7d, 2w, or milliseconds since the epoch',
    ],
    [{ query: 'x', cwd: '' }, 'cwd', 'must be a non-empty string'],
    [{ query: 'x', other: 1 }, 'other', 'is not a search argument'],
  ])('%j: %s %s', (input, key, reason) => {
    expect(parseSearchRequest(input, { maxLimit: 100 }, clock)).toEqual({ ok: false, problem: { key, reason } });
  });

  it('is an object', () => {
    expect(parseSearchRequest('x')).toEqual({ ok: false, problem: { key: '', reason: 'must be an object' } });
  });

  it('the query bound is exact; the limit bound is the configuration maxLimit, by default the ceiling', () => {
    expect(parseSearchRequest({ query: 'x'.repeat(SEARCH_QUERY_MAX_LENGTH) }).ok).toBe(true);
    expect(parseSearchRequest({ query: 'x', limit: SEARCH_LIMIT_CEILING }).ok).toBe(true);
    expect(parseSearchRequest({ query: 'x', limit: SEARCH_LIMIT_CEILING + 1 }).ok).toBe(false);
    expect(parseSearchRequest({ query: 'x', limit: 500 }, { maxLimit: 500 }).ok).toBe(true);
  });

  it('its JSON Schema carries the same bounds', () => {
    const schema = z.toJSONSchema(searchRequestSchema({ maxLimit: 100 }), { io: 'input' }) as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.required).toEqual(['query']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties['query']).toMatchObject({ type: 'string', minLength: 1, maxLength: SEARCH_QUERY_MAX_LENGTH });
    expect(schema.properties['limit']).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(schema.properties['since']).toMatchObject({ type: ['number', 'string'] });
  });
});

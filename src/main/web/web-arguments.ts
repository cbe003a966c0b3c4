/**
 * The argument schema of every remote method (zod, as the configuration schemas are): a request's body is parsed
 * against its method's schema before any handler runs, and a mismatch is `WEB_INVALID_ARGUMENTS` naming the first
 * offending key. Objects are strict (an unknown key is a mistake of the caller, not something to ignore). Every rule
 * carries its own reason text, so zod's texts never reach a user.
 */
import { z } from 'zod';
import { positiveSafeInteger } from '../../protocol/config-schema.js';
import { SEARCH_ROLES, type SearchRole } from '../../protocol/search-types.js';
import type { WebApi, WebMethod } from '../../protocol/web/web-api.js';
import { WebServerError } from './web-server-error.js';

const text = (): z.ZodString => z.string({ error: 'must be a string' });
const nonEmptyText = (): z.ZodString => text().min(1, { error: 'must be a non-empty string' });
const time = (): z.ZodNumber => z.number({ error: 'must be a number' }).refine(Number.isFinite, { error: 'must be a finite number' });
const strict = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape, { error: 'must be an object' });

/** Each method's schema; the mapped type makes `tsc` check every schema against the contract's argument type. */
const ARGUMENT_SCHEMAS: { readonly [M in WebMethod]: z.ZodType<WebApi[M]['args']> } = {
  'sessions/list': strict({}) as z.ZodType<WebApi['sessions/list']['args']>,
  'sessions/candidates': strict({
    target: text().optional(),
    query: text(),
    limit: positiveSafeInteger().optional(),
  }),
  'sessions/surface': strict({ sessionId: nonEmptyText() }),
  'references/prepare': strict({ target: text().optional(), content: text() }),
  'dcp/summary': strict({ sessionId: nonEmptyText() }),
  'search/sessions': strict({
    query: text(),
    cwd: text().optional(),
    since: time().optional(),
    until: time().optional(),
    roles: z
      .array(z.enum(SEARCH_ROLES as readonly [SearchRole, ...SearchRole[]], { error: `must be one of ${SEARCH_ROLES.join(', ')}` }), {
        error: 'must be an array',
      })
      .optional(),
    limit: positiveSafeInteger().optional(),
    cursor: text().optional(),
  }) as z.ZodType<WebApi['search/sessions']['args']>,
};

/** The words of one issue: the dotted key and our reason. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const key = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys')
    return `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
  return key === '' ? `the arguments ${issue.message}` : `${key} ${issue.message}`;
}

/**
 * A method's arguments, checked.
 * @param method - the remote method.
 * @param body - the parsed JSON body.
 * @returns the arguments, typed.
 * @throws WebServerError `WEB_INVALID_ARGUMENTS` naming the first offending key.
 */
export function parseArguments<M extends WebMethod>(method: M, body: unknown): WebApi[M]['args'] {
  const parsed = ARGUMENT_SCHEMAS[method].safeParse(body);
  if (parsed.success) return parsed.data as WebApi[M]['args'];
  const issue = parsed.error.issues[0];
  throw new WebServerError('WEB_INVALID_ARGUMENTS', `${method}: ${issue === undefined ? 'invalid arguments' : describeIssue(issue)}`);
}

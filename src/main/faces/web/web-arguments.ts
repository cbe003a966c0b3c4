/**
 * The argument schema of every remote method (zod, as the configuration schemas are): a request's body is parsed
 * against its method's schema before any handler runs, and a mismatch is `WEB_INVALID_ARGUMENTS` naming the first
 * offending key. Objects are strict (an unknown key is a mistake of the caller, not something to ignore). Every rule
 * carries its own reason text, so zod's texts never reach a user.
 */
import { z } from 'zod';
import { positiveSafeInteger } from '../../../protocol/config-schema.js';
import { describeSearchRequestProblem, parseSearchRequest } from '../../../protocol/search-request.js';
import type { WebApi, WebMethod } from '../../../protocol/web/web-api.js';
import { WebServerError } from './web-server-error.js';

const text = (): z.ZodString => z.string({ error: 'must be a string' });
const nonEmptyText = (): z.ZodString => text().min(1, { error: 'must be a non-empty string' });
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
  'sessions/log': strict({ sessionId: nonEmptyText() }),
  // A query is what follows one `@` on one line: bounded, as a token typed in a message box is.
  'files/candidates': strict({ target: text().optional(), query: text().max(1024, { error: 'must be at most 1024 characters' }) }),
  'references/prepare': strict({ target: text().optional(), content: text() }),
  'dcp/summary': strict({ sessionId: nonEmptyText() }),
  // Checked by the one search request schema (below); the schema here only types the entry.
  'search/sessions': z.custom<WebApi['search/sessions']['args']>(),
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
  if (method === 'search/sessions') {
    // The one schema of a search request (protocol/search-request.ts), as MCP and the CLI parse it. The request goes
    // on as sent: the engine resolves its times (an age stays text, so a cursor of `since: "7d"` pages on).
    const search = parseSearchRequest(body);
    if (!search.ok) throw new WebServerError('WEB_INVALID_ARGUMENTS', `${method}: ${describeSearchRequestProblem(search.problem)}`);
    return body as WebApi[M]['args'];
  }
  const parsed = ARGUMENT_SCHEMAS[method].safeParse(body);
  if (parsed.success) return parsed.data as WebApi[M]['args'];
  const issue = parsed.error.issues[0];
  throw new WebServerError('WEB_INVALID_ARGUMENTS', `${method}: ${issue === undefined ? 'invalid arguments' : describeIssue(issue)}`);
}

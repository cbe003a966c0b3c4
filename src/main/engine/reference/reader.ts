/**
 * The citing session ("reader") a discovery or a preparation runs for (SESSION-REFERENCE.md §7.3, §8), built in one
 * place for every face: it matters for the self-reference rule and, through its cwd, for ranking. A face with no
 * citing session (the Web page without a target, an MCP client, `prepare` without `--target`) uses the reader that
 * is no session.
 */
import type { ReferenceTarget } from './reference-types.js';

/** The id of "no citing session": no stored session can have the empty id (SESSION-LOG.md §9.3). */
export const NO_READER_ID = '';

/** The reader for session `id` (listed or not yet written), with its working directory when one is known. */
export function sessionReader(id: string, cwd: string | undefined): ReferenceTarget {
  return { id, session: { header: cwd === undefined ? {} : { cwd } } };
}

/** The reader that is no session; `cwd` (a client's root, `--cwd`) still ranks that project's sessions first. */
export function anonymousReader(cwd?: string): ReferenceTarget {
  return sessionReader(NO_READER_ID, cwd);
}

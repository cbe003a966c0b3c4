/**
 * The citing session of the page's discovery and previews (SESSION-REFERENCE.md §7.3, §8): the session the message
 * is for, when the page names one, else a reader that is no session. It matters for the self-reference rule and,
 * through its cwd, for ranking — as the CLI's `--target` and the MCP server's reader.
 */
import type { ReferenceTarget } from '../reference/reference-types.js';
import type { WebEngine } from './web-handlers.js';
import { anonymousReader, sessionReader } from '../reference/reader.js';

/**
 * The reader for `target`: a listed session's id (exact: the page sends ids it was given) with that session's cwd;
 * an id that names no listed session (a conversation not written yet) as it is, without a cwd; no target, the
 * cwd-less reader that is no session.
 * @param engine - the engine whose listing names the sessions.
 * @param target - the `target` argument, if any.
 * @param signal - cancels the listing.
 */
export async function webReader(engine: WebEngine, target: string | undefined, signal: AbortSignal): Promise<ReferenceTarget> {
  if (target === undefined) return anonymousReader();
  const { records } = await engine.listSessionsReport(signal);
  return sessionReader(target, records.find((record) => record.header.id === target)?.header.cwd);
}

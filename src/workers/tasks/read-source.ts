/**
 * The `readSource` task (ARCHITECTURE.md §2–§3, SESSION-REFERENCE.md §8 "Placement"): one reference
 * source read, folded, projected, retained and serialised in a worker. A persisted source is read from
 * its captured artifact and fully inspected (SESSION-LOG.md §9.15); a live source is decoded from the
 * captured prefix of its byte log. Only the source's data-object JSON and stats come back.
 */
import type { ReadSourcePayload, ReadSourceValue } from '../../protocol/wire/task-shapes.js';
import { decodeLiveLogCapture } from '../../protocol/wire/live-log-codec.js';
import { inspectArtifact } from './inspect-artifact.js';
import { renderSurface } from './render-surface.js';
import type { TaskControl } from './task-control.js';
import { runTask } from './task-request.js';
import type { TaskReply, TaskRequest } from './task-request.js';
import { assertNever } from '../../protocol/assert-never.js';

async function readSourceWork(payload: ReadSourcePayload, control: TaskControl): Promise<{ value: ReadSourceValue }> {
  const request = { label: payload.label, maxBytes: payload.maxBytes, poll: control.pollFn };
  switch (payload.source) {
    case 'persisted': {
      const session = await inspectArtifact(payload.artifact, control);
      return { value: renderSurface(session.meta, session.events, request) };
    }
    case 'live': {
      const events = decodeLiveLogCapture(payload.log, control.pollFn);
      return { value: renderSurface(payload.header, events, request) };
    }
    default:
      assertNever(payload, 'unknown readSource source');
  }
}

/** Runs one `readSource` task. Inspection failures and the abort come back as the outcome's error. */
export function readSourceTask(request: TaskRequest<ReadSourcePayload>): Promise<TaskReply<ReadSourceValue>> {
  return runTask(request, readSourceWork);
}

/**
 * The `readSource` task (ARCHITECTURE.md §2–§3, SESSION-REFERENCE.md §8 "Placement"): one reference
 * source read, folded, projected, retained and serialised in a worker. A persisted source is read from
 * its captured artifact and fully inspected (SESSION-LOG.md §9.15); a live source is decoded from the
 * captured prefix of its byte log. Only the source's data-object JSON and stats come back. A `scan` payload is the
 * source cache's read (scan-source.ts): projection steps and a resumable checkpoint instead of a rendering.
 */
import type { ReadSourcePayload, ReadSourceValue } from '../../protocol/wire/task-shapes.js';
import { decodeLiveLogCapture } from '../../protocol/wire/live-log-codec.js';
import { inspectArtifact } from './inspect-artifact.js';
import { renderSurface } from './render-surface.js';
import { scanSource } from './scan-source.js';
import type { TaskControl } from './task-control.js';
import { runTask } from './task-request.js';
import type { TaskReply, TaskRequest } from './task-request.js';
import { assertNever } from '../../protocol/assert-never.js';

async function readSourceWork(payload: ReadSourcePayload, control: TaskControl): Promise<{ value: ReadSourceValue }> {
  switch (payload.source) {
    case 'persisted': {
      const request = { label: payload.label, maxBytes: payload.maxBytes, poll: control.pollFn };
      const session = await inspectArtifact(payload.artifact, control);
      return { value: renderSurface(session.meta, session.events, request) };
    }
    case 'live': {
      const request = { label: payload.label, maxBytes: payload.maxBytes, poll: control.pollFn };
      const events = decodeLiveLogCapture(payload.log, control.pollFn);
      return { value: renderSurface(payload.header, events, request) };
    }
    case 'scan':
      return { value: await scanSource(payload, control) };
    default:
      assertNever(payload, 'unknown readSource source');
  }
}

/** Runs one `readSource` task. Inspection failures and the abort come back as the outcome's error. */
export function readSourceTask(request: TaskRequest<ReadSourcePayload>): Promise<TaskReply<ReadSourceValue>> {
  return runTask(request, readSourceWork);
}

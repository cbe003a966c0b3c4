/**
 * The `inspect` task, the `foldLog` of ARCHITECTURE.md §2 and §4: a whole persisted inspection for heavy
 * reads (statistics, show, crash classification). The balanced events go back by structured clone, the
 * winner for this payload kind in bench/transport-codec.ts.
 */
import type { InspectPayload, InspectValue } from '../../protocol/wire/task-shapes.js';
import { inspectArtifact } from './inspect-artifact.js';
import type { TaskControl } from './task-control.js';
import { runTask } from './task-request.js';
import type { TaskReply, TaskRequest } from './task-request.js';

async function inspectWork(payload: InspectPayload, control: TaskControl): Promise<{ value: InspectValue }> {
  const session = await inspectArtifact(payload.artifact, control);
  return { value: { header: session.meta, events: session.events, eventCount: session.events.length } };
}

/** Runs one `inspect` task; the inspection's failure comes back as the outcome's error, as the store would throw it. */
export function inspectTask(request: TaskRequest<InspectPayload>): Promise<TaskReply<InspectValue>> {
  return runTask(request, inspectWork);
}

/**
 * The `observeTitles` task (ARCHITECTURE.md §2–§3): title observations of many persisted artifacts in
 * one task, each computed as a full inspection followed by the title fold (SESSION-LOG.md §9.15, §6.2),
 * one file after another so that no whole log is retained by the batch (§10.5 step 5).
 */
import { foldTitle } from '../../protocol/title-fold.js';
import type { SessionTitleSnapshot } from '../../protocol/events.js';
import type { ValidatedSession } from '../../protocol/session-validation.js';
import type { ArtifactRef, ObserveTitlesPayload, ObserveTitlesValue, TitleFileOutcome } from '../../protocol/wire/task-shapes.js';
import { serializeError } from '../../protocol/wire/wire-error.js';
import { inspectArtifact } from './inspect-artifact.js';
import type { TaskControl } from './task-control.js';
import { runTask } from './task-request.js';
import type { TaskReply, TaskRequest } from './task-request.js';

async function observeOne(artifact: ArtifactRef, control: TaskControl): Promise<TitleFileOutcome> {
  let session: ValidatedSession;
  try {
    session = await inspectArtifact(artifact, control);
  } catch (error) {
    // The abort stops the whole batch; every other failure is this file's inspection failure.
    control.poll();
    return { status: 'rejected', phase: 'inspect', error: serializeError(error) };
  }
  let title: SessionTitleSnapshot | undefined;
  try {
    title = foldTitle(session.events);
  } catch (error) {
    return { status: 'rejected', phase: 'fold', header: session.meta, error: serializeError(error) };
  }
  return title === undefined ? { status: 'fulfilled', header: session.meta } : { status: 'fulfilled', header: session.meta, title };
}

async function observeTitlesWork(payload: ObserveTitlesPayload, control: TaskControl): Promise<{ value: ObserveTitlesValue }> {
  const outcomes: TitleFileOutcome[] = [];
  for (const artifact of payload.files) {
    control.poll();
    outcomes.push(await observeOne(artifact, control));
  }
  return { value: { outcomes } };
}

/** Runs one `observeTitles` task: one outcome per file, in order; an abort fails the whole task. */
export function observeTitlesTask(request: TaskRequest<ObserveTitlesPayload>): Promise<TaskReply<ObserveTitlesValue>> {
  return runTask(request, observeTitlesWork);
}

/**
 * A whole persisted-session inspection inside a worker (SESSION-LOG.md §9.15 stages R2–S6, §10.6 rule
 * 2): the task reads the artifact itself, decodes it, checks identity and runs the validation stages,
 * polling its control port between chunks of work. Stage R1 (the lookup) ran on the main thread.
 */
import { assertRequestedArtifact } from '../../io/artifact-identity.js';
import { validateStoredSession } from '../../protocol/session-validation.js';
import type { ValidatedSession } from '../../protocol/session-validation.js';
import type { ArtifactRef } from '../../protocol/wire/task-shapes.js';
import { decodeArtifact } from '../decode/decode-artifact.js';
import { initZstd } from '../decode/zstd-codec.js';
import { readCapturedArtifact } from './artifact-bytes.js';
import type { TaskControl } from './task-control.js';

/**
 * Inspects one artifact as of its capture: `{meta, events}` with the balanced (unfrozen) events, or the
 * inspection's failure exactly as the store's `inspect` would throw it (or the task's abort error).
 */
export async function inspectArtifact(artifact: ArtifactRef, control: TaskControl): Promise<ValidatedSession> {
  if (artifact.compression === 'zstd') await initZstd();
  const bytes = await readCapturedArtifact(artifact, control.signal);
  control.poll();
  const decoded = decodeArtifact(bytes, artifact.compression, artifact.path, { poll: control.pollFn });
  await assertRequestedArtifact(artifact, artifact.sessionId, artifact.path, decoded.headerRecord);
  control.poll();
  return validateStoredSession({
    requestedId: artifact.sessionId,
    header: decoded.headerRecord,
    storedEvents: decoded.events,
    path: artifact.path,
    poll: control.pollFn,
    // Nothing here leaves the worker except as a structured clone, which drops frozenness anyway.
    freeze: false,
  });
}

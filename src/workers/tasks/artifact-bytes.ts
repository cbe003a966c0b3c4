/**
 * Stage R2 of an inspection run inside a worker (SESSION-LOG.md §9.10, §10.6 rule 2): the task reads
 * the artifact itself with the store's one stable read (`io/file-revision.ts`), then cuts it to the captured
 * prefix.
 */
import { stableRead, stableReadSync } from '../../io/file-revision.js';
import type { FileRevision } from '../../io/file-revision.js';
import type { ArtifactRef } from '../../protocol/wire/task-shapes.js';

/**
 * The bytes of an artifact as of its capture. Logs are append-only, so while the file is still the
 * captured one (same device and inode) and at least as long, its first `capture.size` bytes are exactly
 * what the file held at capture time. A replaced or shortened file (a durable repair truncates) no longer
 * holds that state; then the whole current file is the observation, as an uncaptured read would see it.
 */
export async function readCapturedArtifact(artifact: ArtifactRef, signal: AbortSignal): Promise<Uint8Array> {
  return (await readCapturedArtifactWithRevision(artifact, signal)).bytes;
}

/**
 * {@link readCapturedArtifact} with the revision the bytes belong to: `cut` when they are the captured prefix of
 * the file read (its revision then describes the whole, longer file), else the file's whole revision.
 */
export async function readCapturedArtifactWithRevision(artifact: ArtifactRef, signal: AbortSignal): Promise<CapturedBytes> {
  return cutToCapture(artifact, await stableRead(artifact.path, signal));
}

/** {@link readCapturedArtifactWithRevision} with a synchronous stable read (a thread that reads synchronously). */
export function readCapturedArtifactWithRevisionSync(artifact: ArtifactRef): CapturedBytes {
  return cutToCapture(artifact, stableReadSync(artifact.path));
}

/** The bytes of a stable read cut to the artifact's capture, and whether they were cut. */
interface CapturedBytes {
  readonly bytes: Uint8Array;
  readonly revision: FileRevision;
  readonly cut: boolean;
}

function cutToCapture(artifact: ArtifactRef, read: { readonly bytes: Buffer; readonly revision: FileRevision }): CapturedBytes {
  const { bytes, revision } = read;
  const capture = artifact.capture;
  if (capture === undefined) return { bytes, revision, cut: false };
  const capturedSize = BigInt(capture.size);
  const sameFile = revision.dev === capture.dev && revision.ino === capture.ino;
  return sameFile && BigInt(revision.size) >= capturedSize
    ? { bytes: bytes.subarray(0, Number(capturedSize)), revision, cut: true }
    : { bytes, revision, cut: false };
}

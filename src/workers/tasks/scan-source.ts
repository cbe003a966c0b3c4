/**
 * The source cache's scan (issue 15 items 2–3): a `readSource` task with a `scan` payload reads a persisted
 * artifact as of its capture and runs the title index's resumable validator over it (SESSION-LOG.md §9.15 stages
 * R3 and S1–S6, the same fold and texts), projecting every adopted event as it goes. Only what preparation needs
 * comes back — projection steps, the validator checkpoint and the digests that let the next call continue — never
 * the events or a surface copy. With a resume checkpoint only the bytes after its resume offset are decoded; a
 * checkpoint whose digests no longer match the file is dropped and the whole capture is scanned.
 *
 * Anything but a valid observation answers `unscannable`: the main thread then reads the source the uncached way,
 * which reports the failure with exactly the texts it always had.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { validateSessionHeader } from '../../protocol/session-header.js';
import { parseHeaderRecord } from '../../protocol/header-line.js';
import type { SessionEvent } from '../../protocol/events.js';
import type { ReadSourceValue, ScanPersistedSourcePayload, ScanSourceResume, ScannedSource } from '../../protocol/wire/task-shapes.js';
import type { SessionHeader } from '../../protocol/events.js';
import { assertRequestedArtifact } from '../../io/artifact-identity.js';
import { closeQuietly, openRegularFile } from '../../io/regular-file.js';
import { projectionStep } from '../reference/projection-fold.js';
import { initZstd } from '../decode/zstd-codec.js';
import { scanTitleLog, type TitleScanCheckpoint } from '../titles/title-scan.js';
import { readCapturedArtifactWithRevision } from './artifact-bytes.js';
import type { TaskControl } from './task-control.js';

/** What a scan needs of its task's control: the abort signal for awaited reads and the poll between chunks. */
export type ScanControl = Pick<TaskControl, 'signal' | 'poll' | 'pollFn'>;

/** A scan's answer with steps of the caller's kind (`readSource` keeps projection steps, search its documents). */
export type ScanOutcome<S> =
  | {
      readonly status: 'scanned';
      readonly header: SessionHeader;
      readonly scan: Omit<ScannedSource, 'steps'> & { readonly steps: readonly S[] };
    }
  | { readonly status: 'unscannable' };

/** Bytes before a resume offset (and before the end of the scanned prefix) that the digests cover. */
export const SCAN_GUARD_BYTES = 4096;

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** SHA-256 (hex) of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The file bytes a scan starts from: a whole capture, or the part after a verified resume offset. */
interface ScanInput {
  /** File offset of `bytes[0]`. */
  readonly base: number;
  /** The bytes to scan: from `base` to the end of the capture. */
  readonly bytes: Uint8Array;
  /** File offset of `window[0]` (at most `base - SCAN_GUARD_BYTES`, or 0). */
  readonly windowBase: number;
  /** The bytes from `windowBase` to the end of the capture (`bytes` is its tail), for the digests. */
  readonly window: Uint8Array;
  readonly revision: { readonly dev: string; readonly ino: string; readonly size: string; readonly ctimeNs: string };
  /** The header record's (raw) or frame 0's (zstd) bytes; for a cold scan, a prefix of `bytes`. */
  readonly header: Uint8Array | undefined;
  readonly checkpoint: TitleScanCheckpoint | undefined;
}

/** Reads `length` bytes at `position` of an open file (short only at end of file). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/**
 * The bytes after `resume`'s offset up to the captured size, when the file is still the captured one, at least
 * that long, and its header and the guard window before the offset hash as they did; else `undefined` (scan cold).
 */
async function resumedInput(payload: ScanPersistedSourcePayload, resume: ScanSourceResume): Promise<ScanInput | undefined> {
  const checkpoint = resume.checkpoint as TitleScanCheckpoint;
  const { capture, path } = payload.artifact;
  const size = Number(capture.size);
  const offset = checkpoint.resumeOffset;
  if (checkpoint.compression !== payload.artifact.compression || offset > size || checkpoint.headerLength > offset) return undefined;
  const handle = await openRegularFile(path);
  try {
    const stats = await handle.stat({ bigint: true });
    if (stats.dev.toString() !== capture.dev || stats.ino.toString() !== capture.ino || stats.size < BigInt(size)) return undefined;
    const header = await readAt(handle, 0, checkpoint.headerLength);
    const from = Math.max(0, offset - SCAN_GUARD_BYTES);
    const window = await readAt(handle, from, size - from);
    if (header.length !== checkpoint.headerLength || window.length !== size - from) return undefined;
    if (sha256Hex(header) !== resume.headerDigest || sha256Hex(window.subarray(0, offset - from)) !== resume.guard) return undefined;
    return {
      base: offset,
      bytes: window.subarray(offset - from),
      windowBase: from,
      window,
      revision: { dev: capture.dev, ino: capture.ino, size: capture.size, ctimeNs: payload.ctimeNs },
      header,
      checkpoint,
    };
  } finally {
    await closeQuietly(handle);
  }
}

/** The whole capture (SESSION-LOG.md §10.6 rule 2), with the revision of what was read. */
async function coldInput(payload: ScanPersistedSourcePayload, signal: AbortSignal): Promise<ScanInput> {
  const { bytes, revision, cut } = await readCapturedArtifactWithRevision(payload.artifact, signal);
  return {
    base: 0,
    bytes,
    windowBase: 0,
    window: bytes,
    revision: cut
      ? {
          dev: payload.artifact.capture.dev,
          ino: payload.artifact.capture.ino,
          size: payload.artifact.capture.size,
          ctimeNs: payload.ctimeNs,
        }
      : { dev: revision.dev, ino: revision.ino, size: revision.size, ctimeNs: revision.ctimeNs },
    header: undefined,
    checkpoint: undefined,
  };
}

/** Scans one input: `scanned`, or `unscannable` when the observation is not a valid session. */
async function scanInput<S>(
  payload: ScanPersistedSourcePayload,
  input: ScanInput,
  control: ScanControl,
  stepOf: (event: SessionEvent) => S | undefined,
): Promise<ScanOutcome<S>> {
  const { artifact } = payload;
  const fromSeq = input.checkpoint?.validator.eventCount ?? 0;
  const steps: S[] = [];
  const observe = (event: SessionEvent): void => {
    if (event.seq < fromSeq) return;
    const step = stepOf(event);
    if (step !== undefined) steps.push(step);
  };
  const result = scanTitleLog({
    compression: artifact.compression,
    path: artifact.path,
    bytes: input.bytes,
    ...(input.checkpoint === undefined ? {} : { checkpoint: input.checkpoint }),
    poll: control.pollFn,
    observe,
  });
  const checkpoint = result.checkpoint;
  if (result.outcome.kind !== 'valid' || checkpoint === null || result.balancedEvents === undefined) return { status: 'unscannable' };
  const headerRecord = parseHeaderRecord(utf8.decode(result.outcome.headerLine), artifact.path);
  await assertRequestedArtifact(artifact, artifact.sessionId, artifact.path, headerRecord);
  const header = validateSessionHeader(headerRecord, artifact.sessionId);
  const size = Number(input.revision.size);
  const end = input.base + input.bytes.length;
  if (end !== size) return { status: 'unscannable' };
  // Every window lies in the bytes read: the new resume offset and the end are at or after the old offset, and
  // `window` starts SCAN_GUARD_BYTES before it (the header was read apart when resuming).
  const fileBytes = (start: number, stop: number): Uint8Array => input.window.subarray(start - input.windowBase, stop - input.windowBase);
  const headerBytes = input.header ?? fileBytes(0, checkpoint.headerLength);
  const guard = sha256Hex(fileBytes(Math.max(0, checkpoint.resumeOffset - SCAN_GUARD_BYTES), checkpoint.resumeOffset));
  const tail = sha256Hex(fileBytes(Math.max(0, size - SCAN_GUARD_BYTES), size));
  return {
    status: 'scanned',
    header,
    scan: {
      served: input.checkpoint === undefined ? 'cold' : 'appended',
      revision: input.revision,
      tailDigest: tail,
      resume: { checkpoint, headerDigest: sha256Hex(headerBytes), guard },
      committedEvents: checkpoint.validator.eventCount,
      balancedEvents: result.balancedEvents,
      fromSeq,
      steps,
    },
  };
}

/**
 * Runs a `scan` payload: resumed when its checkpoint still fits the file, else over the whole capture. The abort
 * propagates; any other failure of the scan answers `unscannable`.
 */
export function scanSource(payload: ScanPersistedSourcePayload, control: TaskControl): Promise<ReadSourceValue> {
  return scanSourceWith(payload, control, projectionStep);
}

/**
 * {@link scanSource} with the caller's step per adopted event (from the resume point on): the one resumable,
 * digest-guarded scan that the source cache and the search index both continue from their checkpoints.
 * @param stepOf - the step of one adopted stored event, or `undefined` to keep none for it.
 */
export async function scanSourceWith<S>(
  payload: ScanPersistedSourcePayload,
  control: ScanControl,
  stepOf: (event: SessionEvent) => S | undefined,
): Promise<ScanOutcome<S>> {
  if (payload.artifact.compression === 'zstd') await initZstd();
  const attempt = async (input: ScanInput | undefined): Promise<ScanOutcome<S> | undefined> => {
    if (input === undefined) return undefined;
    try {
      return await scanInput(payload, input, control, stepOf);
    } catch (error) {
      if (control.signal.aborted) throw error;
      // A damaged checkpoint or an observation that fails stage R4: the uncached read decides what to report.
      return input.checkpoint === undefined ? { status: 'unscannable' } : undefined;
    }
  };
  if (payload.resume !== null) {
    let resumed: ScanInput | undefined;
    try {
      resumed = await resumedInput(payload, payload.resume);
    } catch (error) {
      if (control.signal.aborted) throw error;
      // The file could not be read at the checkpoint: scan it cold, which reports its own read failure.
      resumed = undefined;
    }
    const value = await attempt(resumed);
    if (value !== undefined && value.status === 'scanned') return value;
  }
  control.poll();
  return (await attempt(await coldInput(payload, control.signal))) ?? { status: 'unscannable' };
}

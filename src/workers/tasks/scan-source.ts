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
import { hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { validateSessionHeader } from '../../protocol/session-header.js';
import { parseHeaderRecord } from '../../protocol/header-line.js';
import type { SessionEvent } from '../../protocol/events.js';
import type { ReadSourceValue, ScanPersistedSourcePayload, ScanSourceResume, ScannedSource } from '../../protocol/wire/task-shapes.js';
import type { SessionHeader } from '../../protocol/events.js';
import { assertRequestedArtifact } from '../../io/artifact-identity.js';
import { closeQuietly, closeQuietlySync, openRegularFile, openRegularFileSync } from '../../io/regular-file.js';
import type { FileRevision } from '../../io/file-revision.js';
import { fstatSync, readSync, type BigIntStats } from 'node:fs';
import { projectionStep } from '../reference/projection-fold.js';
import { initZstd } from '../decode/zstd-codec.js';
import { scanTitleLog, type TitleScanCheckpoint } from '../titles/title-scan.js';
import { readCapturedArtifactWithRevision, readCapturedArtifactWithRevisionSync } from './artifact-bytes.js';
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

/** How a scan reads its file: awaited, or synchronously (a thread of its own: the search worker). */
export type ScanReads = 'awaited' | 'sync';

/** Bytes before a resume offset (and before the end of the scanned prefix) that the digests cover. */
export const SCAN_GUARD_BYTES = 4096;

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** SHA-256 (hex) of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  // One-shot (Node ≥ 20.12): no Hash object per digest (a search build takes three per log).
  return hash('sha256', bytes, 'hex');
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

/** The checkpoint of `resume` when it can fit the captured file at all (else the scan is cold). */
function resumePoint(
  payload: ScanPersistedSourcePayload,
  resume: ScanSourceResume,
): { readonly checkpoint: TitleScanCheckpoint; readonly size: number; readonly offset: number } | undefined {
  const checkpoint = resume.checkpoint as TitleScanCheckpoint;
  const size = Number(payload.artifact.capture.size);
  const offset = checkpoint.resumeOffset;
  if (checkpoint.compression !== payload.artifact.compression || offset > size || checkpoint.headerLength > offset) return undefined;
  return { checkpoint, size, offset };
}

/** True when the opened file is still the captured one and at least as long. */
function stillCaptured(payload: ScanPersistedSourcePayload, stats: BigIntStats, size: number): boolean {
  const { capture } = payload.artifact;
  return stats.dev.toString() === capture.dev && stats.ino.toString() === capture.ino && stats.size >= BigInt(size);
}

/** The resumed input when the header and the guard window read hash as the checkpoint's digests say; else `undefined`. */
function verifiedResume(
  payload: ScanPersistedSourcePayload,
  resume: ScanSourceResume,
  point: { readonly checkpoint: TitleScanCheckpoint; readonly size: number; readonly offset: number },
  header: Uint8Array,
  from: number,
  window: Uint8Array,
): ScanInput | undefined {
  const { checkpoint, size, offset } = point;
  const { capture } = payload.artifact;
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
}

/**
 * The bytes after `resume`'s offset up to the captured size, when the file is still the captured one, at least
 * that long, and its header and the guard window before the offset hash as they did; else `undefined` (scan cold).
 */
async function resumedInput(payload: ScanPersistedSourcePayload, resume: ScanSourceResume): Promise<ScanInput | undefined> {
  const point = resumePoint(payload, resume);
  if (point === undefined) return undefined;
  const handle = await openRegularFile(payload.artifact.path);
  try {
    if (!stillCaptured(payload, await handle.stat({ bigint: true }), point.size)) return undefined;
    const header = await readAt(handle, 0, point.checkpoint.headerLength);
    const from = Math.max(0, point.offset - SCAN_GUARD_BYTES);
    return verifiedResume(payload, resume, point, header, from, await readAt(handle, from, point.size - from));
  } finally {
    await closeQuietly(handle);
  }
}

/** Reads `length` bytes at `position` of an open descriptor (short only at end of file). */
function readAtSync(fd: number, position: number, length: number): Uint8Array {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/** {@link resumedInput} with synchronous reads. */
function resumedInputSync(payload: ScanPersistedSourcePayload, resume: ScanSourceResume): ScanInput | undefined {
  const point = resumePoint(payload, resume);
  if (point === undefined) return undefined;
  const fd = openRegularFileSync(payload.artifact.path);
  try {
    if (!stillCaptured(payload, fstatSync(fd, { bigint: true }), point.size)) return undefined;
    const header = readAtSync(fd, 0, point.checkpoint.headerLength);
    const from = Math.max(0, point.offset - SCAN_GUARD_BYTES);
    return verifiedResume(payload, resume, point, header, from, readAtSync(fd, from, point.size - from));
  } finally {
    closeQuietlySync(fd);
  }
}

/** The whole capture (SESSION-LOG.md §10.6 rule 2), with the revision of what was read. */
async function coldInput(payload: ScanPersistedSourcePayload, signal: AbortSignal): Promise<ScanInput> {
  return coldInputOf(payload, await readCapturedArtifactWithRevision(payload.artifact, signal));
}

function coldInputOf(
  payload: ScanPersistedSourcePayload,
  read: { readonly bytes: Uint8Array; readonly revision: FileRevision; readonly cut: boolean },
): ScanInput {
  const { bytes, revision, cut } = read;
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
 * @param reads - how the file is read: awaited (a pool task), or synchronously by a thread of its own that has
 *   nothing else to do meanwhile (the search worker; the same steps and errors, without a libuv round trip each).
 */
export async function scanSourceWith<S>(
  payload: ScanPersistedSourcePayload,
  control: ScanControl,
  stepOf: (event: SessionEvent) => S | undefined,
  reads: ScanReads = 'awaited',
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
      resumed = reads === 'sync' ? resumedInputSync(payload, payload.resume) : await resumedInput(payload, payload.resume);
    } catch (error) {
      if (control.signal.aborted) throw error;
      // The file could not be read at the checkpoint: scan it cold, which reports its own read failure.
      resumed = undefined;
    }
    const value = await attempt(resumed);
    if (value !== undefined && value.status === 'scanned') return value;
  }
  control.poll();
  const cold =
    reads === 'sync'
      ? coldInputOf(payload, readCapturedArtifactWithRevisionSync(payload.artifact))
      : await coldInput(payload, control.signal);
  return (await attempt(cold)) ?? { status: 'unscannable' };
}

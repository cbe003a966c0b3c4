/**
 * One entry of the persistent title index (SESSION-LOG.md §10.7), keyed by absolute artifact path, in two parts:
 * the answer (the file's identity and revision when it was observed, and the outcome last computed) and the
 * checkpoint (the digests that prove the scanned prefix unchanged and the validator state at the resume
 * offset). The index file seals each part with its own checksum (title-index-file.ts), so a stat-only answer
 * verifies only the small answer part.
 */
import { createHash } from 'node:crypto';
import type { FileRevision } from '../../../../io/file-revision.js';
import type { TitleScanCheckpoint, TitleScanOutcome } from '../../../../workers/titles/title-scan.js';

/** How many bytes before the resume offset the guard digest covers. */
export const GUARD_WINDOW_BYTES = 4096;

/**
 * The part of an entry a stat-only answer (lookup rule 1) uses: the file's identity and revision when it was
 * observed and the outcome computed for it. Revision fields are decimal strings (`dev`, `ino`, `size`,
 * `mtimeNs`, `ctimeNs`).
 */
export interface TitleIndexAnswer extends FileRevision {
  /** The observation computed for the file at this revision. */
  readonly outcome: TitleScanOutcome;
}

/** The part of an entry a continued scan (lookup rule 2) resumes from. */
export interface TitleIndexCheckpoint {
  /** SHA-256 (hex) of the header record bytes (raw) or of frame 0's bytes (zstd); null without a checkpoint. */
  readonly headerDigest: string | null;
  /** Where a continued scan starts (raw: `committedBytes`; zstd: the end of the last clean complete frame). */
  readonly resumeOffset: number;
  /** SHA-256 (hex) of the up to {@link GUARD_WINDOW_BYTES} bytes ending at `resumeOffset`; null without a checkpoint. */
  readonly guard: string | null;
  /** The scan checkpoint at `resumeOffset`; null when the header itself failed (every change rescans). */
  readonly state: TitleScanCheckpoint | null;
}

/** One indexed artifact, both parts decoded. */
export interface TitleIndexEntry extends TitleIndexAnswer, TitleIndexCheckpoint {}

/** A piece of a file: `bytes` found at file offset `offset`. */
export interface FileSlice {
  readonly offset: number;
  readonly bytes: Uint8Array;
}

/** SHA-256 (hex) of the file bytes `[start, end)`, taken from slices that together cover that range. */
export function digestRange(slices: readonly FileSlice[], start: number, end: number): string {
  const hash = createHash('sha256');
  let covered = start;
  for (const slice of slices) {
    const sliceEnd = slice.offset + slice.bytes.length;
    if (sliceEnd <= covered || slice.offset > covered) continue;
    const to = Math.min(end, sliceEnd);
    hash.update(slice.bytes.subarray(covered - slice.offset, to - slice.offset));
    covered = to;
    if (covered >= end) break;
  }
  if (covered < end) throw new RangeError(`file slices do not cover bytes ${start}..${end}`);
  return hash.digest('hex');
}

/** The start of the guard window ending at `resumeOffset`. */
export function guardStart(resumeOffset: number): number {
  return Math.max(0, resumeOffset - GUARD_WINDOW_BYTES);
}

function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && /^\d+$/.test(value);
}

function isOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isSerializedError(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const error = value as Record<string, unknown>;
  return (
    typeof error['name'] === 'string' &&
    typeof error['message'] === 'string' &&
    (error['code'] === null || typeof error['code'] === 'string') &&
    (error['cause'] === null || isSerializedError(error['cause']))
  );
}

function isOutcome(value: unknown): value is TitleScanOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const outcome = value as Record<string, unknown>;
  switch (outcome['kind']) {
    case 'read-failed':
      return isSerializedError(outcome['error']);
    case 'invalid':
      return outcome['headerLine'] instanceof Uint8Array && isSerializedError(outcome['error']);
    case 'valid':
      return outcome['headerLine'] instanceof Uint8Array && (outcome['titleLine'] === null || outcome['titleLine'] instanceof Uint8Array);
    default:
      return false;
  }
}

function isCheckpoint(value: unknown): value is TitleScanCheckpoint {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Record<string, unknown>;
  const scanner = state['scanner'] as Record<string, unknown> | null | undefined;
  const validator = state['validator'];
  return (
    (state['compression'] === 'none' || state['compression'] === 'zstd') &&
    isOffset(state['resumeOffset']) &&
    isOffset(state['headerLength']) &&
    state['headerLine'] instanceof Uint8Array &&
    typeof scanner === 'object' &&
    scanner !== null &&
    isOffset(scanner['lineStart']) &&
    isOffset(scanner['committedBytes']) &&
    isOffset(scanner['eventCount']) &&
    isOffset(scanner['eventLine']) &&
    typeof validator === 'object' &&
    validator !== null &&
    isOffset((validator as Record<string, unknown>)['eventCount'])
  );
}

/** True when `value` has the shape of a {@link TitleIndexAnswer}. */
export function isTitleIndexAnswer(value: unknown): value is TitleIndexAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    isDecimal(entry['dev']) &&
    isDecimal(entry['ino']) &&
    isDecimal(entry['size']) &&
    isDecimal(entry['mtimeNs']) &&
    isDecimal(entry['ctimeNs']) &&
    isOutcome(entry['outcome'])
  );
}

/**
 * True when `value` has the shape of a {@link TitleIndexCheckpoint}. Deeper damage inside a checkpoint that its
 * checksum did not catch (an entry written wrong) makes its use throw, which the index treats like a missing
 * checkpoint; every checkpoint is re-verified against its file anyway (header and guard digests).
 */
export function isTitleIndexCheckpoint(value: unknown): value is TitleIndexCheckpoint {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  const withState = entry['state'] !== null;
  return (
    isOffset(entry['resumeOffset']) &&
    (withState ? isCheckpoint(entry['state']) : true) &&
    (withState
      ? typeof entry['headerDigest'] === 'string' && typeof entry['guard'] === 'string'
      : entry['headerDigest'] === null && entry['guard'] === null)
  );
}

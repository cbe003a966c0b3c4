/**
 * The title index's scans on the host's thread, in slices (issue 27 item 6, main-thread budget). A log is scanned in
 * one synchronous pass (`scanTitleLog`); for a long log (tens of megabytes) that pass held the event loop for hundreds
 * of milliseconds. Here a log longer than a slice is scanned a slice at a time, each slice resumed from the previous
 * one's clean point — the checkpoint the index's incremental rule already resumes appended logs from — with a
 * macrotask hop in between. The answer is the one a single pass gives (the resume contract of SESSION-LOG.md §10.7).
 */
import { yieldToEventLoop } from '../../../../io/yield-to-event-loop.js';
import { yieldIfTurnSpent } from '../../../../io/turn-budget.js';
import type { TitleScanInput, TitleScanResult } from '../../../../workers/titles/title-scan.js';

/** Bytes scanned between two hops: a millisecond or two of scanning (256 KiB held the loop 6–15 ms under load). */
export const TITLE_SCAN_SLICE_BYTES = 64 * 1024;

/** How {@link scanTitleLogInSlices} slices. */
export interface TitleScanSlicing {
  /** Bytes per slice (default {@link TITLE_SCAN_SLICE_BYTES}). */
  readonly sliceBytes?: number;
  /** The hop between two slices (default: one macrotask, `yieldToEventLoop`). */
  readonly pause?: () => Promise<void>;
}

/**
 * {@link scanTitleLog} of `input`, a slice at a time. A slice that does not end on a clean step forward (a failure,
 * no clean point yet, one turn longer than the slice) hands the rest to one pass from the last clean point, which the
 * resume contract makes the same answer as a pass from the start.
 * @param input - what `scanTitleLog` reads (the whole file, or the bytes after a checkpoint with it).
 * @param slicing - slice size and hop (tests count the hops).
 */
export async function scanTitleLogInSlices(input: TitleScanInput, slicing: TitleScanSlicing = {}): Promise<TitleScanResult> {
  const sliceBytes = slicing.sliceBytes ?? TITLE_SCAN_SLICE_BYTES;
  const pause = slicing.pause ?? yieldToEventLoop;
  // The scan (the validator, the folds: a tenth of a listing's modules) loads with the first log that needs one; a
  // listing the index answers whole never scans.
  const { scanTitleLog } = await import('../../../../workers/titles/title-scan.js');
  const { bytes } = input;
  // Many reads complete in one turn, each followed by its scan: the turn's budget is shared (issue 27 item 6).
  await yieldIfTurnSpent();
  if (bytes.length <= sliceBytes) return scanTitleLog(input);
  // The file offset of bytes[0]: resume offsets are file offsets.
  const base = input.checkpoint?.resumeOffset ?? 0;
  let checkpoint = input.checkpoint;
  let offset = 0;
  for (;;) {
    const end = Math.min(bytes.length, offset + sliceBytes);
    const from = checkpoint === undefined ? {} : { checkpoint };
    const part = scanTitleLog({ ...input, ...from, bytes: bytes.subarray(offset, end) });
    if (end === bytes.length) return part;
    const next = part.checkpoint;
    if (part.outcome.kind !== 'valid' || next === null || next.resumeOffset - base <= offset) {
      return scanTitleLog({ ...input, ...from, bytes: bytes.subarray(offset) });
    }
    checkpoint = next;
    offset = next.resumeOffset - base;
    await pause();
  }
}

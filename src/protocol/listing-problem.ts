/**
 * What a tolerant listing reports instead of failing (SESSION-LOG.md §9.13, this project's tolerant mode): one
 * problem per artifact or directory it had to skip, each with a stable code, so one damaged log no longer makes
 * a whole root unusable and a caller can still say what was skipped and why.
 */
import type { SessionHeader } from './events.js';

/**
 * Why an entry was skipped. Stable; a closed union (callers may switch over it exhaustively).
 *
 * - `SESSION_STORE_CORRUPT_HEADER` — the header line or frame cannot be decoded, is not JSON, is not a session
 *   header, or uses retired header fields (dsh fails the listing for the frame cases and silently skips a raw
 *   first line that is not a header).
 * - `SESSION_STORE_INCOMPLETE_HEADER` — the artifact ends before its header is complete (empty or torn; dsh
 *   skips it silently).
 * - `SESSION_STORE_NOT_A_FILE` — the artifact path is a FIFO, socket, device or directory.
 * - `SESSION_STORE_ACCESS_DENIED` — the file system refused to open or list it (EACCES, EPERM).
 * - `SESSION_STORE_IO_FAILED` — any other file-system failure.
 * - `SESSION_STORE_BROKEN_LINK` — the artifact is a symbolic link whose target does not exist (dsh skips it as
 *   missing).
 * - `SESSION_STORE_MIXED_ENCODING` — the session directory holds an artifact of the other encoding.
 * - `SESSION_STORE_FLAT_LAYOUT` — a transcript file sits directly in a project directory.
 * - `SESSION_STORE_DUPLICATE_ID` — another artifact carries the same header id (every one of them is reported
 *   and none is listed).
 * - `SESSION_STORE_MISPLACED_ARTIFACT` — the header's id and cwd name another path (identity rule, §9.5).
 * - `SESSION_STORE_UNNAMEABLE_HEADER` — the header's id or cwd cannot name a storage path (§9.5).
 */
export type ListingProblemCode =
  | 'SESSION_STORE_CORRUPT_HEADER'
  | 'SESSION_STORE_INCOMPLETE_HEADER'
  | 'SESSION_STORE_NOT_A_FILE'
  | 'SESSION_STORE_ACCESS_DENIED'
  | 'SESSION_STORE_IO_FAILED'
  | 'SESSION_STORE_BROKEN_LINK'
  | 'SESSION_STORE_MIXED_ENCODING'
  | 'SESSION_STORE_FLAT_LAYOUT'
  | 'SESSION_STORE_DUPLICATE_ID'
  | 'SESSION_STORE_MISPLACED_ARTIFACT'
  | 'SESSION_STORE_UNNAMEABLE_HEADER';

/** One skipped entry of a tolerant listing. Plain data (it crosses threads and prints as JSON). */
export interface ListingProblem {
  /** The artifact, flat file or directory that was skipped (absolute). */
  readonly path: string;
  readonly code: ListingProblemCode;
  /** What is wrong; the error text a strict listing or an inspection would give where there is one. */
  readonly message: string;
}

/** A listing with what it skipped. */
export interface ListingReport {
  /** The listed headers, in directory-walk order (what `list()` returns). */
  readonly headers: readonly SessionHeader[];
  /** Every skipped entry, once each, sorted by path (always empty in strict mode, which throws instead). */
  readonly problems: readonly ListingProblem[];
}

/**
 * The messages of the worker pipeline (ARCHITECTURE.md §2–§3): one payload and one result shape per
 * task kind, the control message of a task's `MessagePort`, and the outcome envelope every task returns
 * (tasks never throw across the boundary; failures travel as {@link WireError} data).
 */
import type { LedgerFold, LedgerWindow } from '../dcp/ledger-fold.js';
import type { RetentionStats } from '../retention-stats.js';
import type { SessionHeader, SessionTitleSnapshot } from '../events.js';
import type { Compression } from '../storage-paths.js';
import type { SearchRole } from '../search-types.js';
import type { LiveLogCapture } from './live-log-codec.js';
import type { WireError } from './wire-error.js';

/** The task kinds, one named export of the worker entry each. */
export const TASK_KINDS = ['readSource', 'inspect', 'observeTitles', 'dcpLedger', 'searchDocuments'] as const;

/** A task kind of the production worker entry. */
export type TaskKind = (typeof TASK_KINDS)[number];

/** True when `kind` is one of {@link TASK_KINDS}. */
export function isTaskKind(kind: string): kind is TaskKind {
  return (TASK_KINDS as readonly string[]).includes(kind);
}

/** The only control message: the caller gave up; stop at the next poll and return the thread warm. */
export interface AbortControlMessage {
  readonly type: 'abort';
}

/** The abort control message. */
export const ABORT_MESSAGE: AbortControlMessage = Object.freeze({ type: 'abort' });

/** True for `{type:'abort'}`. */
export function isAbortControlMessage(value: unknown): value is AbortControlMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'abort';
}

/**
 * The only message a worker sends on a control port: its task began running on the thread. The abort
 * grace period counts from the later of the abort and this message, so time spent queued is never held
 * against a task.
 */
export interface TaskStartedMessage {
  readonly type: 'started';
}

/** The task-started message. */
export const TASK_STARTED_MESSAGE: TaskStartedMessage = Object.freeze({ type: 'started' });

/** Whether `value` is {@link TASK_STARTED_MESSAGE}. */
export function isTaskStartedMessage(value: unknown): value is TaskStartedMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'started';
}

/** A persisted artifact's identity and size when it was captured (decimal strings, as file revisions). */
export interface CapturedRevision {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
}

/** A persisted session's artifact as a task reads it itself. */
export interface ArtifactRef {
  /** The id the caller asked for (inspection stages R4 and S1 compare the header with it). */
  readonly sessionId: string;
  /** The artifact path found by the lookup (SESSION-LOG.md §9.14). */
  readonly path: string;
  /** The store root, for the identity rule (§9.5). */
  readonly root: string;
  readonly compression: Compression;
  /** When present, the task reads the prefix of this size if the file is still the same file (append-only logs). */
  readonly capture?: CapturedRevision;
}

/** `readSource` of a persisted session. */
export interface ReadPersistedSourcePayload {
  readonly source: 'persisted';
  readonly artifact: ArtifactRef;
  readonly label: string;
  readonly maxBytes: number;
}

/** `readSource` of a live session: its header and a captured prefix of its byte log. */
export interface ReadLiveSourcePayload {
  readonly source: 'live';
  readonly header: SessionHeader;
  readonly log: LiveLogCapture;
  readonly label: string;
  readonly maxBytes: number;
}

/**
 * Where a source-cache scan continues: the resumable validator checkpoint of the title scan (opaque here; the
 * worker owns its shape) and the digests that prove the bytes before its resume offset unchanged.
 */
export interface ScanSourceResume {
  /** A `TitleScanCheckpoint` (workers/titles/title-scan.ts). */
  readonly checkpoint: unknown;
  /** SHA-256 (hex) of the header record (raw) or frame 0 (zstd). */
  readonly headerDigest: string;
  /** SHA-256 (hex) of the up to 4096 bytes ending at the resume offset. */
  readonly guard: string;
}

/**
 * `readSource` for the source cache (issue 15): scan a persisted artifact as of its capture — from the start, or
 * continuing `resume` over the appended bytes — and return what preparation needs instead of a rendering.
 */
export interface ScanPersistedSourcePayload {
  readonly source: 'scan';
  /** The artifact; `capture` is required (the scan is of that prefix). */
  readonly artifact: ArtifactRef & { readonly capture: CapturedRevision };
  /** The capture's `ctimeNs` (decimal), recorded with the cache entry. */
  readonly ctimeNs: string;
  readonly resume: ScanSourceResume | null;
  /**
   * When present, the worker builds the cache entry itself (issue 27): it folds the steps onto `base` (the kept
   * nodes of an appended scan), encodes the entry file and, with `render`, renders the answer; it answers `entry`.
   */
  readonly entry?: {
    readonly key: string;
    readonly base: {
      readonly nodes: readonly { readonly seq: number; readonly item: ScannedItem | null }[];
      readonly committedEvents: number;
    } | null;
    readonly render: { readonly label: string; readonly maxBytes: number } | null;
  };
}

/** The payload of a `readSource` task. */
export type ReadSourcePayload = ReadPersistedSourcePayload | ReadLiveSourcePayload | ScanPersistedSourcePayload;

/** A projected conversation item as it crosses (workers/reference/project-surface.ts `ProjectedItem`). */
export interface ScannedItem {
  readonly role: 'user' | 'assistant';
  readonly originalText: string;
  readonly checkpoint: boolean;
}

/** One surface-eligible event's effect on the projection (workers/reference/projection-fold.ts `ProjectionStep`). */
export interface ScannedStep {
  readonly seq: number;
  readonly replace: { readonly start: number; readonly end: number } | null;
  readonly item: ScannedItem | null;
}

/** What a successful source-cache scan returns. */
export interface ScannedSource {
  /** `cold`: scanned from offset 0; `appended`: continued from the resume checkpoint. */
  readonly served: 'cold' | 'appended';
  /** The revision of the bytes scanned (the capture, or the current file when it was replaced or shortened). */
  readonly revision: { readonly dev: string; readonly ino: string; readonly size: string; readonly ctimeNs: string };
  /** SHA-256 (hex) of the up to 4096 bytes ending at `revision.size`: the warm path's content check. */
  readonly tailDigest: string;
  /** The new resume point: the validator checkpoint and its digests. */
  readonly resume: ScanSourceResume;
  /** Stored events before the checkpoint's resume offset (the committed ones). */
  readonly committedEvents: number;
  /** The inspection's balanced event count (stored events plus closers). */
  readonly balancedEvents: number;
  /** Steps of every adopted event from `fromSeq` on (committed, then provisional), in seq order. */
  readonly fromSeq: number;
  readonly steps: readonly ScannedStep[];
}

/** Retention statistics (SESSION-REFERENCE.md §10.5), keys in metadata order. */
export type SourceStats = RetentionStats;

/** A source rendered within its budget, or one that cannot fit. */
export type SourceRender =
  | {
      readonly fits: true;
      readonly sessionId: string;
      readonly capturedThroughSeq: number | null;
      readonly json: string;
      readonly stats: SourceStats;
    }
  /** `minimumBudgetBytes`: the least budget the source would fit (`minimumFittingBudget`), for the budget error. */
  | { readonly fits: false; readonly minimumBudgetBytes: number };

/**
 * The value of a `readSource` task. `header` is the observation's header (the validated stored header
 * of a persisted source), which the main thread checks against the listing (SESSION-LOG.md §10.4 step
 * 5) after deciding whether a live session won (step 4); `surface-failed` is step 6's fold failure,
 * already mapped to `SESSION_QUERY_INVALID_SURFACE`. Inspection failures (§9.15) are the task's error.
 */
export type ReadSourceValue =
  | { readonly status: 'rendered'; readonly header: SessionHeader; readonly render: SourceRender }
  | { readonly status: 'surface-failed'; readonly header: SessionHeader; readonly error: WireError }
  /** A `scan` payload's answer (only to a `scan` payload). */
  | { readonly status: 'scanned'; readonly header: SessionHeader; readonly scan: ScannedSource }
  /** A `scan` payload with `entry`: the built entry (its record opaque here), its file bytes and the rendering asked for. */
  | {
      readonly status: 'entry';
      readonly header: SessionHeader;
      readonly served: 'cold' | 'appended';
      readonly record: unknown;
      readonly items: readonly ScannedItem[];
      readonly estimatedBytes: number;
      readonly bytes: Uint8Array;
      readonly render: SourceRender | null;
    }
  /**
   * A `scan` payload whose observation is not a valid session (or could not be scanned): the caller reads it with
   * a `persisted` payload, which reports the failure exactly as an uncached read does.
   */
  | { readonly status: 'unscannable' };

/** The payload of an `inspect` task (the `foldLog` of ARCHITECTURE.md §2: a whole inspection for heavy reads). */
export interface InspectPayload {
  readonly artifact: ArtifactRef;
}

/**
 * The value of an `inspect` task: the validated header and the balanced events. The events travel by
 * structured clone, which bench/transport-codec.ts measured cheaper than msgpackr + transfer on both
 * sides for this payload kind.
 */
export interface InspectValue {
  readonly header: SessionHeader;
  readonly events: readonly unknown[];
  readonly eventCount: number;
}

/** The payload of an `observeTitles` task: many artifacts, observed one after another. */
export interface ObserveTitlesPayload {
  readonly files: readonly ArtifactRef[];
}

/**
 * One artifact's title observation (SESSION-LOG.md §10.5 step 5, computed as a full inspection and the
 * title fold). A rejection says which phase failed: `inspect` (to be mapped per §10.1, before any other
 * check) or `fold` (thrown as is, but only after the live-wins and compatibility checks, which need `header`).
 */
export type TitleFileOutcome =
  | { readonly status: 'fulfilled'; readonly header: SessionHeader; readonly title?: SessionTitleSnapshot }
  | { readonly status: 'rejected'; readonly phase: 'inspect'; readonly error: WireError }
  | { readonly status: 'rejected'; readonly phase: 'fold'; readonly header: SessionHeader; readonly error: WireError };

/** The value of an `observeTitles` task, one outcome per file in order. */
export interface ObserveTitlesValue {
  readonly outcomes: readonly TitleFileOutcome[];
}

/**
 * The payload of a `dcpLedger` task (a `foldLog` of DCP.md §19 D6): a captured prefix of a live session's byte log
 * and the prefix invalidations whose re-read tokens `/dcp stats` shows.
 */
export interface DcpLedgerPayload {
  readonly log: LiveLogCapture;
  readonly windows: readonly LedgerWindow[];
}

/** The value of a `dcpLedger` task: the §15.1 ledger of the captured prefix and one re-read figure per window. */
export type DcpLedgerValue = LedgerFold;

/** What a `searchDocuments` scan continues from: the title scan's checkpoint and the indexed surface's seqs. */
export interface SearchDocumentsState {
  readonly resume: ScanSourceResume;
  /** The committed surface nodes' seqs, in surface order. */
  readonly committed: readonly number[];
  /** The seqs of the current answer (what the documents are of). */
  readonly answer: readonly number[];
}

/**
 * The payload of a `searchDocuments` task (fleet search, docs/FLEET.md §7): the search documents of a persisted
 * artifact as of its capture, by the local search index's rules (docs/SEARCH.md §3–4).
 */
export interface SearchDocumentsPayload {
  /** The artifact; `capture` is required (the scan is of that prefix). */
  readonly artifact: ArtifactRef & { readonly capture: CapturedRevision };
  /** The capture's `ctimeNs` (decimal). */
  readonly ctimeNs: string;
  /** Whether tool calls and results are documents (`search.includeTools`). */
  readonly includeTools: boolean;
  /** The stored state of an earlier, shorter revision of the same file to continue, or `null`: scanned whole. */
  readonly previous: SearchDocumentsState | null;
}

/** One event's documents: its seq, time, and one text per role. */
export interface SearchDocumentStep {
  readonly seq: number;
  readonly time: number;
  readonly documents: readonly { readonly role: SearchRole; readonly text: string }[];
}

/**
 * The value of a `searchDocuments` task: `none` (not a valid session at that revision: no documents), or the change —
 * every document replaced (`rebuilt`), or the `removed` seqs' documents deleted and `steps`' added (`appended`) — with
 * the state the next scan continues from.
 */
export type SearchDocumentsValue =
  | { readonly status: 'none' }
  | {
      readonly status: 'rebuilt' | 'appended';
      readonly state: SearchDocumentsState;
      readonly removed: readonly number[];
      readonly steps: readonly SearchDocumentStep[];
    };

/** Payload type per task kind. */
export interface TaskPayloads {
  readonly readSource: ReadSourcePayload;
  readonly inspect: InspectPayload;
  readonly observeTitles: ObserveTitlesPayload;
  readonly dcpLedger: DcpLedgerPayload;
  readonly searchDocuments: SearchDocumentsPayload;
}

/** Result value type per task kind. */
export interface TaskValues {
  readonly readSource: ReadSourceValue;
  readonly inspect: InspectValue;
  readonly observeTitles: ObserveTitlesValue;
  readonly dcpLedger: DcpLedgerValue;
  readonly searchDocuments: SearchDocumentsValue;
}

/**
 * Task kinds beyond production's with their payload and value types: what a worker entry other than
 * production's (the tests' fault entry) adds. Production's kinds are {@link TaskPayloads} / {@link TaskValues}.
 */
export type TaskTable = Readonly<Record<string, { readonly payload: unknown; readonly value: unknown }>>;

/** What every task returns: its value, or its failure as data. */
export type TaskOutcome<V> = { readonly ok: true; readonly value: V } | { readonly ok: false; readonly error: WireError };

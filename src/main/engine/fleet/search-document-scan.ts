/**
 * The search documents of one artifact revision as the publisher writes them (docs/FLEET.md §7), by the local search
 * index's own rules (docs/SEARCH.md §3–4) and with its own code: the same resumable, digest-guarded scan
 * (`scanSourceWith`), the same document per event and role (`searchStep`), the same surface fold (`continueSurface`).
 * An artifact whose stored state is of the same file, shorter, is continued over its new bytes only (appended: the
 * documents a compaction shadows leave, the new ones come); anything else is scanned whole (rebuilt); a revision that
 * is not a valid session has no documents.
 */
import type { StoreLayout } from '../../../io/artifact-path.js';
import type { FileRevision } from '../../../io/file-revision.js';
import type { SessionId } from '../../../protocol/events.js';
import type { ScanSourceResume } from '../../../protocol/wire/task-shapes.js';
import { scanSourceWith, type ScanControl } from '../../../workers/tasks/scan-source.js';
import { searchStep, type SearchStep } from '../../../workers/search/search-documents.js';
import { continueSurface, type IndexedSurface } from '../../../workers/search/search-surface.js';

/** What the next publish continues an artifact's documents from: the scan's checkpoint and the indexed surface. */
export interface PublishedSearchState extends IndexedSurface {
  readonly resume: ScanSourceResume;
}

/** One artifact whose documents are asked for, with what the database holds of it. */
export interface DocumentScanRequest {
  readonly sessionId: SessionId;
  readonly path: string;
  /** The revision the publisher saw (the bytes up to its size are read). */
  readonly revision: FileRevision;
  /** The stored state and the revision it is of, when it can be continued (same tool setting). */
  readonly previous: { readonly revision: FileRevision; readonly state: PublishedSearchState } | undefined;
}

/** What changes in an artifact's documents. */
export type DocumentScan =
  /** Not a valid session at this revision: no documents. */
  | { readonly kind: 'none' }
  | {
      /** `rebuilt`: every document replaced; `appended`: `removed` seqs leave, `steps` are added. */
      readonly kind: 'rebuilt' | 'appended';
      readonly state: PublishedSearchState;
      readonly removed: readonly number[];
      readonly steps: readonly SearchStep[];
    };

/** A scan's control over an abort signal (this thread's awaited reads; no port to poll). */
function controlOf(signal: AbortSignal | undefined): ScanControl {
  const own = signal ?? new AbortController().signal;
  const poll = (): void => own.throwIfAborted();
  return { signal: own, poll, pollFn: poll };
}

/**
 * The documents of `request`'s artifact at its revision.
 * @param includeTools - whether tool calls and results are documents (`search.includeTools`).
 * @throws the signal's reason when it aborts
 */
export async function scanSearchDocuments(
  layout: StoreLayout,
  request: DocumentScanRequest,
  includeTools: boolean,
  signal?: AbortSignal,
): Promise<DocumentScan> {
  const { revision, previous } = request;
  const appendable =
    previous !== undefined &&
    previous.revision.dev === revision.dev &&
    previous.revision.ino === revision.ino &&
    BigInt(revision.size) > BigInt(previous.revision.size);
  const control = controlOf(signal);
  const stepOf = (event: Parameters<typeof searchStep>[0]): SearchStep | undefined => searchStep(event, includeTools);
  const scan = async (resume: ScanSourceResume | null) =>
    scanSourceWith(
      {
        source: 'scan',
        artifact: {
          sessionId: request.sessionId,
          path: request.path,
          root: layout.root,
          compression: layout.compression,
          capture: { dev: revision.dev, ino: revision.ino, size: revision.size },
        },
        ctimeNs: revision.ctimeNs,
        resume,
      },
      control,
      stepOf,
    );
  let outcome: Awaited<ReturnType<typeof scan>>;
  try {
    outcome = await scan(appendable ? previous.state.resume : null);
  } catch {
    signal?.throwIfAborted();
    // A log that cannot be read now is indexed as nothing until it changes, as the local index records it.
    return { kind: 'none' };
  }
  if (outcome.status !== 'scanned') return { kind: 'none' };
  const continued = outcome.scan.served === 'appended' && appendable;
  const update = continueSurface(continued ? previous.state : undefined, outcome.scan.steps, outcome.scan.committedEvents);
  if (update === undefined) {
    // Steps that do not fit the stored surface: the whole log decides (as the local index rescans it).
    if (continued) return scanSearchDocuments(layout, { ...request, previous: undefined }, includeTools, signal);
    return { kind: 'none' };
  }
  return {
    kind: update.reset ? 'rebuilt' : 'appended',
    state: { resume: outcome.scan.resume, committed: update.committed, answer: update.answer },
    removed: update.removed,
    steps: update.steps,
  };
}

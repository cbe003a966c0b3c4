/**
 * The search documents of one artifact revision as the publisher writes them (docs/FLEET.md §7), asked of the
 * engine's pool: a `searchDocuments` task (`workers/tasks/search-documents-task.ts`) reads the log by the local search
 * index's own rules and code, continuing an appended log from the state the database holds of it. The publisher's
 * thread reads and decodes no log.
 */
import type { StoreLayout } from '../../../io/artifact-path.js';
import type { FileRevision } from '../../../io/file-revision.js';
import type { SessionId } from '../../../protocol/events.js';
import type { SearchDocumentsState, SearchDocumentsValue } from '../../../protocol/wire/task-shapes.js';
import type { TaskRunner } from '../pool/task-runner.js';

/** What the next publish continues an artifact's documents from: the scan's checkpoint and the indexed surface. */
export type PublishedSearchState = SearchDocumentsState;

/** One artifact whose documents are asked for, with what the database holds of it. */
export interface DocumentScanRequest {
  readonly sessionId: SessionId;
  readonly path: string;
  /** The revision the publisher saw (the bytes up to its size are read). */
  readonly revision: FileRevision;
  /** The stored state and the revision it is of, when it can be continued (same tool setting). */
  readonly previous: { readonly revision: FileRevision; readonly state: PublishedSearchState } | undefined;
}

/**
 * What changes in an artifact's documents: the `searchDocuments` task's value as it is — `none` (not a valid session at
 * this revision), or `rebuilt` (every document replaced) / `appended` (`removed` seqs leave, `steps` are added).
 */
export type DocumentScan = SearchDocumentsValue;

/**
 * The documents of `request`'s artifact at its revision, scanned on `runner`'s pool.
 * @param includeTools - whether tool calls and results are documents (`search.includeTools`).
 * @throws the signal's reason when it aborts; the pool's own failures (a worker that died)
 */
export async function scanSearchDocuments(
  runner: Pick<TaskRunner, 'run'>,
  layout: StoreLayout,
  request: DocumentScanRequest,
  includeTools: boolean,
  signal?: AbortSignal,
): Promise<DocumentScan> {
  const { revision, previous } = request;
  // Only an earlier, shorter revision of the same file can be continued (the scan's digests check the rest).
  const appendable =
    previous !== undefined &&
    previous.revision.dev === revision.dev &&
    previous.revision.ino === revision.ino &&
    BigInt(revision.size) > BigInt(previous.revision.size);
  const value = await runner.run(
    'searchDocuments',
    {
      artifact: {
        sessionId: request.sessionId,
        path: request.path,
        root: layout.root,
        compression: layout.compression,
        capture: { dev: revision.dev, ino: revision.ino, size: revision.size },
      },
      ctimeNs: revision.ctimeNs,
      includeTools,
      previous: appendable ? previous.state : null,
    },
    signal === undefined ? {} : { signal },
  );
  return value;
}

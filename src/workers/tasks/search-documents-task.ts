/**
 * The `searchDocuments` task (fleet search, docs/FLEET.md §7): the search documents of one persisted artifact as of
 * its capture, by the local search index's own rules and code (docs/SEARCH.md §3–4) — the same resumable,
 * digest-guarded scan (`scanSourceWith`), the same document per event and role (`searchStep`), the same surface fold
 * (`continueSurface`). A stored state of an earlier, shorter revision of the same file is continued over the new
 * bytes only (appended: the documents a compaction shadows leave, the new ones come); anything else is scanned whole
 * (rebuilt); a capture that is not a valid session (or cannot be read now) has no documents. It runs on the pool, so
 * the publisher's thread reads and decodes no log.
 */
import type {
  ScanPersistedSourcePayload,
  ScanSourceResume,
  SearchDocumentsPayload,
  SearchDocumentsValue,
} from '../../protocol/wire/task-shapes.js';
import { searchStep, type SearchStep } from '../search/search-documents.js';
import { continueSurface } from '../search/search-surface.js';
import { scanSourceWith, type ScanControl } from './scan-source.js';
import type { TaskControl } from './task-control.js';
import { runTask, type TaskReply, type TaskRequest } from './task-request.js';

/** The documents of `payload`'s artifact (continued from `payload.previous` when it can be). */
export async function scanSearchDocumentsOf(payload: SearchDocumentsPayload, control: ScanControl): Promise<SearchDocumentsValue> {
  const stepOf = (event: Parameters<typeof searchStep>[0]): SearchStep | undefined => searchStep(event, payload.includeTools);
  const scan = (resume: ScanSourceResume | null) => {
    const source: ScanPersistedSourcePayload = { source: 'scan', artifact: payload.artifact, ctimeNs: payload.ctimeNs, resume };
    return scanSourceWith(source, control, stepOf);
  };
  const { previous } = payload;
  let outcome: Awaited<ReturnType<typeof scan>>;
  try {
    outcome = await scan(previous?.resume ?? null);
  } catch (error) {
    if (control.signal.aborted) throw error;
    // A log that cannot be read now is indexed as nothing until it changes, as the local index records it.
    return { status: 'none' };
  }
  if (outcome.status !== 'scanned') return { status: 'none' };
  const continued = outcome.scan.served === 'appended' && previous !== null;
  const update = continueSurface(continued ? previous : undefined, outcome.scan.steps, outcome.scan.committedEvents);
  if (update === undefined) {
    // Steps that do not fit the stored surface: the whole log decides (as the local index rescans it).
    return continued ? scanSearchDocumentsOf({ ...payload, previous: null }, control) : { status: 'none' };
  }
  return {
    status: update.reset ? 'rebuilt' : 'appended',
    state: { resume: outcome.scan.resume, committed: update.committed, answer: update.answer },
    removed: update.removed,
    // Only what the documents need crosses back (the replace ranges were folded here).
    steps: update.steps.map((step) => ({ seq: step.seq, time: step.time, documents: step.documents })),
  };
}

async function searchDocumentsWork(payload: SearchDocumentsPayload, control: TaskControl): Promise<{ value: SearchDocumentsValue }> {
  return { value: await scanSearchDocumentsOf(payload, control) };
}

/** Runs one `searchDocuments` task. A failure and the abort come back as the outcome's error. */
export function searchDocumentsTask(request: TaskRequest<SearchDocumentsPayload>): Promise<TaskReply<SearchDocumentsValue>> {
  return runTask(request, searchDocumentsWork);
}

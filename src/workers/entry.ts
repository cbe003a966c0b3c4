/**
 * The piscina worker entry (ARCHITECTURE.md §1–§2): one named export per task kind of `TASK_KINDS`. Each takes
 * the posted request (payload and control port) and resolves to the task's outcome envelope, served by
 * `serveTask` (started message first, buffers moved rather than cloned).
 */
import type {
  DcpLedgerPayload,
  DcpLedgerValue,
  InspectPayload,
  InspectValue,
  ObserveTitlesPayload,
  ObserveTitlesValue,
  ReadSourcePayload,
  ReadSourceValue,
  SearchDocumentsPayload,
  SearchDocumentsValue,
  TaskOutcome,
} from '../protocol/wire/task-shapes.js';
import { serveTask } from './serve-task.js';
import { dcpLedgerTask } from './tasks/dcp-ledger.js';
import { inspectTask } from './tasks/inspect-log.js';
import { observeTitlesTask } from './tasks/observe-titles.js';
import { readSourceTask } from './tasks/read-source.js';
import { searchDocumentsTask } from './tasks/search-documents-task.js';
import type { TaskRequest } from './tasks/task-request.js';
// msgpackr's full Node entry, for its side effect: it installs the native string extractor (msgpackr-extract) into
// the decoder every codec of this thread shares. The main thread uses the plain entry (protocol/wire/log-entry-codec.ts).
import 'msgpackr';

/** `readSource`: read → fold → project → retain → serialise one reference source. */
export function readSource(request: TaskRequest<ReadSourcePayload>): Promise<TaskOutcome<ReadSourceValue>> {
  return serveTask(request, readSourceTask);
}

/** `inspect` (foldLog): a whole persisted inspection, events returned as transferred log entries. */
export function inspect(request: TaskRequest<InspectPayload>): Promise<TaskOutcome<InspectValue>> {
  return serveTask(request, inspectTask);
}

/** `observeTitles`: a batch of title observations. */
export function observeTitles(request: TaskRequest<ObserveTitlesPayload>): Promise<TaskOutcome<ObserveTitlesValue>> {
  return serveTask(request, observeTitlesTask);
}

/** `dcpLedger` (foldLog): the `/dcp stats` ledger of a live session's captured log. */
export function dcpLedger(request: TaskRequest<DcpLedgerPayload>): Promise<TaskOutcome<DcpLedgerValue>> {
  return serveTask(request, dcpLedgerTask);
}

/** `searchDocuments`: the search documents of one artifact revision, for publishing into the fleet (docs/FLEET.md §7). */
export function searchDocuments(request: TaskRequest<SearchDocumentsPayload>): Promise<TaskOutcome<SearchDocumentsValue>> {
  return serveTask(request, searchDocumentsTask);
}

/**
 * The model context windows a stored log records. dsh writes a log-only `request/context` event
 * `{provider, model, contextWindow}` right after each `request/header` it sends (the dsh-small fixtures carry them),
 * and `sessionctx script run` records a scenario's `contextWindow` the same way. A stored session reloaded without
 * the model registry that ran it (the `sessionctx dcp` CLI) takes its windows from these records, so `/dcp context`
 * shows the pressure the live session had; a log that records none keeps the window unknown.
 */
import type { SessionEvent } from '../../../protocol/events.js';
import { isRecord } from '../../../protocol/record-guard.js';
import type { ContextWindowLookup } from '../../host-api/host-api.js';

/** The event type dsh records a request's context window in. */
export const REQUEST_CONTEXT_TYPE = 'request/context';

/** The data of a `request/context` event, keys in dsh's order. */
export interface RequestContextData {
  readonly provider: string;
  readonly model: string;
  readonly contextWindow: number;
}

/** The record's window, or `undefined` when the data is not a usable `request/context` record. */
function recordOf(data: unknown): RequestContextData | undefined {
  if (!isRecord(data)) return undefined;
  const { provider, model, contextWindow } = data;
  if (typeof provider !== 'string' || typeof model !== 'string') return undefined;
  if (typeof contextWindow !== 'number' || !Number.isSafeInteger(contextWindow) || contextWindow <= 0) return undefined;
  return { provider, model, contextWindow };
}

/**
 * The window lookup of `events`: for each (provider, model), the window of its latest well-formed `request/context`
 * record; `undefined` for a pair the log records no window for. A malformed record (no positive integer window) is
 * skipped rather than trusted, so it can only leave a window unknown. O(events) once; each lookup is O(1).
 */
export function recordedContextWindows(events: readonly SessionEvent[]): ContextWindowLookup {
  const windows = new Map<string, number>();
  for (const event of events) {
    if (event.type !== REQUEST_CONTEXT_TYPE) continue;
    const record = recordOf(event.data);
    if (record !== undefined) windows.set(JSON.stringify([record.provider, record.model]), record.contextWindow);
  }
  return (provider, model) => windows.get(JSON.stringify([provider, model]));
}

/**
 * The request invariant (HOST.md §6.5): what the model receives is exactly what the log says it sees. The
 * agent checks it against the live session on every dispatch; the test harness also checks it against a cold
 * fold of cloned events, which catches bugs of the incremental fold too.
 */
import type { Message, SessionEvent } from '../../../protocol/events.js';
import { isRecord } from '../../../protocol/events.js';
import { deriveModelMessages, foldSurface } from '../../../protocol/surface-fold.js';
import { jsonEqual } from '../../../protocol/json-equal.js';
import type { ModelRequest } from './model-client.js';
import type { RequestHeaderRecord } from '../../../protocol/event-map.js';
import { isEventOf } from '../../../protocol/event-map.js';

/** A violated request invariant; the turn fails with it. */
export class RequestInvariantError extends Error {
  /** Always `HOST_REQUEST_INVARIANT`. */
  readonly code = 'HOST_REQUEST_INVARIANT' as const;

  constructor(message: string) {
    super(message);
    Object.defineProperty(this, 'name', { value: 'RequestInvariantError', enumerable: false, configurable: true, writable: true });
  }
}

/**
 * Throws `RequestInvariantError` unless `JSON.stringify(request.messages) === JSON.stringify(messages)` and
 * `request.system` / `request.tools` deep-equal `header.system` / `header.tools`.
 */
export function assertRequestMatches(request: ModelRequest, messages: readonly Message[], header: RequestHeaderRecord | undefined): void {
  if (header === undefined) throw new RequestInvariantError('request dispatched without a logged request/header');
  // The same frozen array needs no serialisation; anything else is compared byte for byte.
  if (request.messages !== messages && JSON.stringify(request.messages) !== JSON.stringify(messages)) {
    throw new RequestInvariantError('request messages differ from the messages derived from the log');
  }
  if (!jsonEqual(request.system, header.system) || !jsonEqual(request.tools, header.tools)) {
    throw new RequestInvariantError('request system/tools differ from the latest request/header');
  }
}

/** The `data.header` of the last `request/header` in `events`, or `undefined`. */
function lastRequestHeader(events: readonly SessionEvent[]): RequestHeaderRecord | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as SessionEvent;
    // The cold fold below validates the clone; a header that is not a record fails the check as "no header".
    if (isEventOf(event, 'request/header')) return isRecord(event.data) && isRecord(event.data.header) ? event.data.header : undefined;
  }
  return undefined;
}

/**
 * The cold check: folds a structured clone of `events` from scratch (SESSION-LOG.md §5) and compares `request`
 * with its derived messages and last `request/header`. O(log size); meant for tests.
 */
export function assertRequestMatchesColdFold(request: ModelRequest, events: readonly SessionEvent[]): void {
  const cloned = structuredClone(events) as SessionEvent[];
  const messages = deriveModelMessages(cloned, foldSurface(cloned));
  assertRequestMatches(request, messages, lastRequestHeader(cloned));
}

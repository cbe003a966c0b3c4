/**
 * Reading logs written by older dsh builds (SESSION-LOG.md §8): the retired vocabulary that refuses a whole
 * log (§8.1), the per-event migrations of pre-react-loop and pre-identity shapes followed by adoption (§8.2),
 * and the refusal of event types this build does not know (§8.3).
 *
 * These stages run on stored events before envelope validation, so events are read with plain property access:
 * where dsh reads a field of `null` data it throws a native `TypeError`, and so do these functions.
 */
import { SessionFormatUnsupportedError, SessionLogError } from './errors.js';
import type { SessionEvent } from './events.js';
import { KNOWN_EVENT_TYPES, isSurfaceType } from './events.js';
import { deepFreeze } from './deep-freeze.js';
import { isRecord } from './record-guard.js';
import { checkMessageShape } from './message-shape.js';

/** An event as stored: any object, read field by field. */
type StoredEvent = Readonly<Record<string, unknown>>;

/** A mutable-free view of a JSON record. */
type JsonRecord = Readonly<Record<string, unknown>>;

/** The record behind `value`, or `undefined` for null, arrays and non-objects. */
function asRecord(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}

/** True when `record` has every `required` key and no key outside `required` ∪ `optional`. */
function hasOnlyKeys(record: JsonRecord, required: readonly string[], optional: readonly string[] = []): boolean {
  for (const key of Object.keys(record)) {
    if (!required.includes(key) && !optional.includes(key)) return false;
  }
  return required.every((key) => Object.hasOwn(record, key));
}

/** A safe integer at least `min`. */
function isSafeIntegerAtLeast(value: unknown, min: number): boolean {
  return Number.isSafeInteger(value) && (value as number) >= min;
}

function legacyError(message: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_LEGACY_FORMAT', message);
}

/**
 * The first retired-vocabulary violation of a stored log (SESSION-LOG.md §8.1), searched over the whole log
 * with dsh's precedence: any `request/header-delta` (first one), else any `mode/set`, else the first
 * `request/header` with `data.reason === 'fallback'`. Returns the error to throw (code
 * `SESSION_LOG_LEGACY_FORMAT`), or `undefined` for a clean log. One pass over the log.
 *
 * dsh reads `data.reason` of every `request/header` it walks past in the third search; a `null` or missing
 * `data` there throws the native `TypeError` (thrown, not returned) unless an earlier rule already matched.
 */
export function findRejectedLegacy(events: readonly unknown[], sessionId: string): SessionLogError | undefined {
  let headerDelta: StoredEvent | undefined;
  let modeSet: StoredEvent | undefined;
  let fallbackOrUnreadable: StoredEvent | undefined;
  for (const value of events) {
    const event = value as StoredEvent;
    const type = event['type'];
    if (type === 'request/header-delta') {
      headerDelta ??= event;
    } else if (type === 'mode/set') {
      modeSet ??= event;
    } else if (type === 'request/header' && fallbackOrUnreadable === undefined) {
      const data = event['data'];
      if (data === null || data === undefined || (data as JsonRecord)['reason'] === 'fallback') fallbackOrUnreadable = event;
    }
    // A header-delta outranks everything and is the first of its kind once seen.
    if (headerDelta !== undefined) break;
  }
  if (headerDelta !== undefined) {
    return legacyError(
      `session "${sessionId}" contains unsupported legacy request/header-delta event at seq ${String(headerDelta['seq'])}`,
    );
  }
  if (modeSet !== undefined) {
    return legacyError(`session "${sessionId}" contains unsupported legacy mode/set event at seq ${String(modeSet['seq'])}`);
  }
  if (fallbackOrUnreadable === undefined) return undefined;
  // Reading `reason` of null/undefined data throws the TypeError dsh throws at this point of its search.
  void (fallbackOrUnreadable['data'] as JsonRecord)['reason'];
  return legacyError(
    `session "${sessionId}" contains unsupported legacy request/header reason "fallback" at seq ${String(fallbackOrUnreadable['seq'])}`,
  );
}

/** `legacy-message:<id>:<S>`, the stable id of a message stored before messages had ids. */
function legacyMessageId(sessionId: string, seq: unknown): string {
  return `legacy-message:${sessionId}:${String(seq)}`;
}

/** §8.2 rule 1: drop the pre-react-loop `trigger` of a `turn/start`. */
function migrateTurnStart(event: StoredEvent, sessionId: string): StoredEvent {
  if (event['type'] !== 'turn/start') return event;
  const data = asRecord(event['data']);
  if (data === undefined || !Object.hasOwn(data, 'trigger')) return event;
  const trigger = asRecord(data['trigger']);
  if (
    !isSafeIntegerAtLeast(data['turn'], 1) ||
    !hasOnlyKeys(data, ['turn', 'trigger']) ||
    trigger === undefined ||
    typeof trigger['kind'] !== 'string' ||
    trigger['kind'].length === 0
  ) {
    throw legacyError(`session "${sessionId}" contains malformed pre-react-loop turn/start at seq ${String(event['seq'])}`);
  }
  return { ...event, data: { turn: data['turn'] } };
}

/** The current `error` reason for a pre-react-loop `{kind: 'error', step, …}`, or `undefined` when malformed. */
function migrateErrorReason(reason: JsonRecord): JsonRecord | undefined {
  if (!isSafeIntegerAtLeast(reason['step'], 0)) return undefined;
  const failure = asRecord(reason['failure']);
  if (
    failure !== undefined &&
    hasOnlyKeys(reason, ['kind', 'step', 'failure']) &&
    hasOnlyKeys(failure, ['message', 'code'], ['status', 'providerRetryAfterMs', 'requestId']) &&
    typeof failure['message'] === 'string' &&
    typeof failure['code'] === 'string' &&
    (failure['status'] === undefined || typeof failure['status'] === 'number') &&
    (failure['providerRetryAfterMs'] === undefined || typeof failure['providerRetryAfterMs'] === 'number') &&
    (failure['requestId'] === undefined || typeof failure['requestId'] === 'string')
  ) {
    return { kind: 'error', error: failure };
  }
  const code = reason['code'];
  const keys = code === undefined ? ['kind', 'step', 'message'] : ['kind', 'step', 'message', 'code'];
  if (!hasOnlyKeys(reason, keys) || typeof reason['message'] !== 'string' || (code !== undefined && typeof code !== 'string')) {
    return undefined;
  }
  return { kind: 'error', error: { message: reason['message'], code: typeof code === 'string' ? code : 'UNKNOWN' } };
}

/** §8.2 rule 2: validate every record-data `turn/end` and upgrade retired reason shapes. */
function migrateTurnEnd(event: StoredEvent, sessionId: string): StoredEvent {
  if (event['type'] !== 'turn/end') return event;
  const data = asRecord(event['data']);
  if (data === undefined) return event;
  const malformed = (): SessionLogError =>
    legacyError(`session "${sessionId}" contains malformed pre-react-loop turn/end at seq ${String(event['seq'])}`);
  const reason = asRecord(data['reason']);
  if (
    !isSafeIntegerAtLeast(data['turn'], 1) ||
    !hasOnlyKeys(data, ['turn', 'reason']) ||
    reason === undefined ||
    typeof reason['kind'] !== 'string'
  ) {
    throw malformed();
  }
  let current: JsonRecord | undefined;
  switch (reason['kind']) {
    case 'completed':
    case 'blocked':
    case 'max-tokens':
    case 'interrupted':
      if (!hasOnlyKeys(reason, ['kind'])) throw malformed();
      return event;
    case 'aborted':
      if (Object.hasOwn(reason, 'reason')) return event;
      if (!hasOnlyKeys(reason, ['kind'])) throw malformed();
      current = { kind: 'aborted', reason: { kind: 'legacy' } };
      break;
    case 'disposed':
      if (!hasOnlyKeys(reason, ['kind'])) throw malformed();
      current = { kind: 'aborted', reason: { kind: 'disposed' } };
      break;
    case 'error':
      if (Object.hasOwn(reason, 'error')) return event;
      current = migrateErrorReason(reason);
      if (current === undefined) throw malformed();
      break;
    default:
      return event;
  }
  // Spreading then overwriting keeps `reason` at its original key position.
  return { ...event, data: { ...data, reason: current } };
}

/** §8.2 rule 3: turn a pre-react-loop `steering/message` into a `user/message`. */
function migrateSteering(event: StoredEvent, sessionId: string): StoredEvent {
  if (event['type'] !== 'steering/message') return event;
  const malformed = (): SessionLogError =>
    legacyError(`session "${sessionId}" contains malformed pre-react-loop steering/message at seq ${String(event['seq'])}`);
  const data = asRecord(event['data']);
  if (data === undefined) throw malformed();
  const wrapped = asRecord(data['message']);
  if (wrapped !== undefined && Number.isSafeInteger(data['turn']) && hasOnlyKeys(data, ['turn', 'message'])) {
    return { ...event, type: 'user/message', data: wrapped };
  }
  if (!Number.isSafeInteger(data['turn']) || !hasOnlyKeys(data, ['turn', 'content', 'source'])) throw malformed();
  const { turn: _turn, ...message } = data;
  return { ...event, type: 'user/message', data: { ...message, id: legacyMessageId(sessionId, event['seq']), role: 'user' } };
}

/** The seq a replacement starts at when `surfaceOp` looks like a replace, else `undefined`. */
function replacementStart(event: StoredEvent): number | undefined {
  const op = asRecord(event['surfaceOp']);
  return op?.['op'] === 'replace' && typeof op['start'] === 'number' ? op['start'] : undefined;
}

/** §8.2 rule 4: wrap the bare content of pre-identity message events into identified messages. */
function migrateMessage(event: StoredEvent, sessionId: string, messageIds: ReadonlyMap<number, string>): StoredEvent {
  const data = asRecord(event['data']);
  if (data === undefined) return event;
  switch (event['type']) {
    case 'user/message':
      if (
        Object.hasOwn(data, 'id') ||
        Object.hasOwn(data, 'role') ||
        Object.hasOwn(data, 'message') ||
        !Object.hasOwn(data, 'content') ||
        !Object.hasOwn(data, 'source')
      )
        return event;
      return { ...event, data: { ...data, id: legacyMessageId(sessionId, event['seq']), role: 'user' } };
    case 'assistant/message': {
      if (Object.hasOwn(data, 'message') || !Object.hasOwn(data, 'content') || !Object.hasOwn(data, 'provenance')) return event;
      const { content, provenance, ...rest } = data;
      return {
        ...event,
        data: {
          ...rest,
          message: {
            id: legacyMessageId(sessionId, event['seq']),
            role: 'assistant',
            content,
            source: { ...asRecord(provenance), kind: 'model' },
          },
        },
      };
    }
    case 'tool/result': {
      if (
        Object.hasOwn(data, 'message') ||
        !Object.hasOwn(data, 'callId') ||
        !Object.hasOwn(data, 'content') ||
        !Object.hasOwn(data, 'isError')
      )
        return event;
      const { callId, content, isError, ...rest } = data;
      const start = replacementStart(event);
      return {
        ...event,
        data: {
          ...rest,
          message: {
            id: start === undefined ? legacyMessageId(sessionId, event['seq']) : messageIds.get(start),
            role: 'user',
            content: [{ type: 'tool-result', toolCallId: callId, content, isError }],
            source: { kind: 'tool', callId },
          },
        },
      };
    }
    default:
      return event;
  }
}

/** The string id of the message an event carries (`data` for a user message, else `data.message`). */
function carriedMessageId(event: StoredEvent): string | undefined {
  const data = asRecord(event['data']);
  const message = event['type'] === 'user/message' ? data : asRecord(data?.['message']);
  const id = message?.['id'];
  return typeof id === 'string' ? id : undefined;
}

/**
 * Adoption (§8.2): the message-shape rules with subject `session event at seq <S>`, then the message is
 * deep-frozen in place (unless `freeze` is false: a worker's events leave it only as unfrozen clones).
 */
function adopt(event: StoredEvent, freeze: boolean): void {
  const type = event['type'];
  if (typeof type !== 'string' || !isSurfaceType(type)) return;
  const data = event['data'];
  checkMessageShape(type, data, `session event at seq ${String(event['seq'])}`);
  if (freeze) deepFreeze(type === 'user/message' ? data : (data as JsonRecord)['message']);
}

/**
 * Runs the per-event migrations of SESSION-LOG.md §8.2 (turn/start, turn/end, steering, message shapes, in
 * that order) and adoption over a stored log, in one pass, and returns the resulting events. Unchanged events
 * are returned as the same objects and migrated ones as shallow copies (with new `data`), so ownership of the
 * input passes to the result: adopted messages are frozen in place (unless `freeze` is false). Malformed legacy shapes throw
 * `SessionLogError` (`SESSION_LOG_LEGACY_FORMAT`); adoption throws the §4.4 texts.
 */
export function migrateAndAdopt(events: readonly unknown[], sessionId: string, freeze = true): SessionEvent[] {
  const messageIds = new Map<number, string>();
  const out: SessionEvent[] = new Array<SessionEvent>(events.length);
  for (let index = 0; index < events.length; index++) {
    let event = events[index] as StoredEvent;
    event = migrateTurnStart(event, sessionId);
    event = migrateTurnEnd(event, sessionId);
    event = migrateSteering(event, sessionId);
    event = migrateMessage(event, sessionId, messageIds);
    adopt(event, freeze);
    const id = carriedMessageId(event);
    if (id !== undefined) messageIds.set(event['seq'] as number, id);
    out[index] = event as unknown as SessionEvent;
  }
  return out;
}

/**
 * The refusal of the first event whose type this build does not know and that is not marked
 * `ignorable: true` (SESSION-LOG.md §8.3), with ` (raw log: <path>)` appended when the path is known; or
 * `undefined` when every event is readable. Run on migrated events.
 */
export function findUnknownType(events: readonly unknown[], sessionId: string, path?: string): SessionFormatUnsupportedError | undefined {
  for (const value of events) {
    const event = value as StoredEvent;
    const type = event['type'];
    if ((typeof type === 'string' && KNOWN_EVENT_TYPES.has(type)) || event['ignorable'] === true) continue;
    const reason = `session "${sessionId}" contains event type "${String(type)}" (seq ${String(event['seq'])}) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness`;
    return new SessionFormatUnsupportedError(path === undefined ? reason : `${reason} (raw log: ${path})`);
  }
  return undefined;
}

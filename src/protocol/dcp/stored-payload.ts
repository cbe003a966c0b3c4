/**
 * The payload of a log-only event as a stored log may hold it. Stored logs come from other writers too, and the
 * storage boundary validates surface messages, not log-only payloads (`turn/start`, `tool/call`, `command/*`,
 * `compaction/*`, …): such a payload may lack a field, give it another type, or not be a record at all. DCP's folds
 * read these payloads through this view, so the field names come from {@link SessionEventMap} while each value
 * stays `unknown` until checked, and an odd record folds as "field absent" instead of crashing a cold replay.
 */
import type { KnownEventType, SessionEventMap, TypedEvent } from '../event-map.js';
import { isRecord } from '../record-guard.js';

/** Every field of the map's payload for `K`, each possibly missing and of any type. */
export type StoredPayload<K extends KnownEventType> = { readonly [P in keyof SessionEventMap[K]]?: unknown };

/**
 * The payload of `event` with its fields unchecked: the data itself when it is a record, else an empty one.
 * @param event - an event of a log-only type, narrowed by `isEventOf`
 * @returns the payload view; a field absent from the data reads as `undefined`
 */
export function storedPayload<K extends KnownEventType>(event: TypedEvent<K>): StoredPayload<K> {
  const data: unknown = event.data;
  return isRecord(data) ? (data as StoredPayload<K>) : {};
}

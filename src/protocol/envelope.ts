/**
 * Event envelope validation: the seed/restore rules of SESSION-LOG.md §2.3 (every event of a seeded or
 * restored log, by index) and the live-append checks of §2.4 that run before an event is built.
 */
import { SessionLogError } from './errors.js';
import type { SessionEvent } from './events.js';
import { isSurfaceType } from './events.js';
import { isLosslessJson } from './lossless-json.js';
import { checkMessageShape, checkRequestHeader } from './message-shape.js';
import { SurfaceFold } from './surface-fold.js';
import { isRecord } from './record-guard.js';

/** The seven envelope keys of §2.1. */
const ENVELOPE_KEY_SET: ReadonlySet<string> = new Set(['type', 'seq', 'time', 'data', 'sourceEventSeqs', 'surfaceOp', 'ignorable']);

/** True when `type`/`data` name a `request/header` with the retired `reason: 'fallback'`. */
function isFallbackRequestHeader(type: unknown, data: unknown): boolean {
  return type === 'request/header' && isRecord(data) && data['reason'] === 'fallback';
}

/**
 * Validates one event of a seed or restored log at position `index` (SESSION-LOG.md §2.3 rules 1–7, first
 * failure wins) and, when it passes, applies it to `fold`. Rules 1–6 throw `SessionLogError` with the exact
 * §2.3 texts; a surface failure `<m>` (rule 7) is rethrown as `invalid seed event at index <N>: <m>` with code
 * `SESSION_LOG_INVALID_SURFACE` and the fold error as `cause`. `event` is read with plain property access, so a
 * `null`/`undefined` event throws the native `TypeError` dsh throws. Only `fold.apply` is used, so a resumable
 * fold with the same rules (the title index's) can stand in for a `SurfaceFold`.
 */
export function validateSeedEvent(event: unknown, index: number, fold: Pick<SurfaceFold, 'apply'>): void {
  const record = event as Readonly<Record<string, unknown>>;
  const type = record['type'];
  if (type === 'request/header-delta') {
    throw new SessionLogError(
      'SESSION_LOG_LEGACY_FORMAT',
      `seed event at index ${index} uses unsupported legacy request/header-delta format`,
    );
  }
  for (const key in record) {
    if (!ENVELOPE_KEY_SET.has(key)) {
      throw new SessionLogError('SESSION_LOG_INVALID_ENVELOPE', `seed event at index ${index} has an invalid event envelope`);
    }
  }
  const seq = record['seq'];
  const time = record['time'];
  const data = record['data'];
  const ignorable = record['ignorable'];
  if (
    typeof type !== 'string' ||
    typeof seq !== 'number' ||
    !Number.isSafeInteger(seq) ||
    seq < 0 ||
    typeof time !== 'number' ||
    !Number.isSafeInteger(time) ||
    data === undefined ||
    (ignorable !== undefined && ignorable !== true)
  ) {
    throw new SessionLogError('SESSION_LOG_INVALID_ENVELOPE', `seed event at index ${index} has an invalid event envelope`);
  }
  if (type === 'request/header') checkRequestHeader(data, index);
  if (isSurfaceType(type)) checkMessageShape(type, data, `seed ${type} at index ${index}`);
  if (isFallbackRequestHeader(type, data)) {
    throw new SessionLogError(
      'SESSION_LOG_LEGACY_FORMAT',
      `seed event at index ${index} uses unsupported legacy request/header reason "fallback"`,
    );
  }
  if (seq !== index) {
    throw new SessionLogError(
      'SESSION_LOG_INVALID_ENVELOPE',
      `seed event at index ${index} has seq ${seq} (expected ${index}); seed must be contiguous from 0`,
    );
  }
  try {
    fold.apply(event as SessionEvent);
  } catch (error) {
    const message = error instanceof Error ? error.message : 'invalid surface metadata';
    throw new SessionLogError('SESSION_LOG_INVALID_SURFACE', `invalid seed event at index ${index}: ${message}`, { cause: error });
  }
}

/**
 * Validates a whole seed or restored log (§2.3, in log order) and returns the fold of its events. The events
 * are not copied or frozen here.
 */
export function validateSeedEvents(events: readonly unknown[]): SurfaceFold {
  const fold = new SurfaceFold();
  for (let index = 0; index < events.length; index++) validateSeedEvent(events[index], index, fold);
  return fold;
}

/** The surface metadata a caller passes with a live append (SESSION-LOG.md §2.4). */
export interface AppendSurfaceMetadata {
  readonly sourceEventSeqs?: unknown;
  readonly surfaceOp?: unknown;
}

/**
 * The live-append checks of SESSION-LOG.md §2.4 that do not depend on the store: rule 2 (lossless data),
 * rule 3 (retired request-header vocabulary), rule 4 (lossless surface metadata) and rule 6 (the §5.2 surface
 * rules for the candidate at seq `fold.nextSeq`, messages unwrapped). Nothing is applied to `fold`; the
 * caller builds, freezes and applies the accepted event. Rule 5 (re-entrancy) belongs to the store.
 */
export function checkAppendCandidate(type: string, data: unknown, meta: AppendSurfaceMetadata, fold: SurfaceFold): void {
  if (!isLosslessJson(data)) {
    throw new SessionLogError('SESSION_LOG_INVALID_APPEND', `session event "${type}" carries non-JSON-serializable data`);
  }
  if (type === 'request/header-delta') {
    throw new SessionLogError('SESSION_LOG_LEGACY_FORMAT', `session event "${type}" uses unsupported legacy request/header-delta format`);
  }
  if (isFallbackRequestHeader(type, data)) {
    throw new SessionLogError(
      'SESSION_LOG_LEGACY_FORMAT',
      `session event "${type}" uses unsupported legacy request/header reason "fallback"`,
    );
  }
  // Only metadata actually given takes part, exactly as the event would be built (§2.2 omits absent keys).
  const metadata: { sourceEventSeqs?: unknown; surfaceOp?: unknown } = {};
  if (meta.sourceEventSeqs !== undefined) metadata.sourceEventSeqs = meta.sourceEventSeqs;
  if (meta.surfaceOp !== undefined) metadata.surfaceOp = meta.surfaceOp;
  if (!isLosslessJson(metadata)) {
    throw new SessionLogError('SESSION_LOG_INVALID_APPEND', `session event "${type}" carries non-JSON-serializable surface metadata`);
  }
  // `time` is irrelevant to the surface rules; the real event gets `Date.now()` when it is built.
  fold.check({ type, seq: fold.nextSeq, time: 0, data, ...metadata } as SessionEvent);
}

/**
 * The shared rule checks of the surface fold (SESSION-LOG.md §5.2): replace-marker shape and
 * provenance, used by the full fold and by the title index's resumable fold so both throw the
 * same texts.
 */
import { SessionLogError } from './errors.js';
import type { SessionEvent } from './events.js';
import { isSurfaceType } from './events.js';

/** A record-shaped `surfaceOp` that passed rule 2.6. */
export interface CheckedReplaceOp {
  readonly start: number;
  readonly end: number;
}

/** A fold-rule failure: the raw §5.2 text, code `SESSION_LOG_INVALID_SURFACE`. */
export function surfaceError(message: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_INVALID_SURFACE', message);
}

/** A non-negative safe integer, the only valid event seq. */
export function isEventSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Rule 2.6: exactly the own keys `op`, `start`, `end`, with `op: 'replace'` and seq-valued bounds. */
export function isReplaceOp(value: object): value is CheckedReplaceOp {
  const op = value as Readonly<Record<string, unknown>>;
  return (
    Object.keys(op).length === 3 &&
    Object.hasOwn(op, 'op') &&
    Object.hasOwn(op, 'start') &&
    Object.hasOwn(op, 'end') &&
    op['op'] === 'replace' &&
    isEventSeq(op['start']) &&
    isEventSeq(op['end'])
  );
}

/** What rules 1–2 of §5.2 make of an event's marker: no surface change, an append, or a shaped replace. */
export type CheckedSurfaceOp = 'log-only' | 'append' | CheckedReplaceOp;

/**
 * Rules 1–2 of §5.2 for `event` as the event with seq `expectedSeq`: contiguity, surface eligibility against the
 * marker and `sourceEventSeqs`, and the marker's shape (an append's provenance is checked here too). Shared by the
 * full fold and the title index's resumable fold, so both throw the same texts in the same order.
 */
export function checkSurfaceOp(event: SessionEvent, expectedSeq: number): CheckedSurfaceOp {
  if (event.seq !== expectedSeq) {
    throw surfaceError(`session event seq ${event.seq} is not contiguous; expected ${expectedSeq}`);
  }
  const surfaceOp: unknown = event.surfaceOp;
  if (!isSurfaceType(event.type)) {
    if (surfaceOp !== undefined) {
      throw surfaceError(`session event "${event.type}" is not surface-eligible and cannot carry surfaceOp`);
    }
    if (event.sourceEventSeqs !== undefined) {
      throw surfaceError(`session event "${event.type}" is not surface-eligible and cannot carry sourceEventSeqs`);
    }
    return 'log-only';
  }
  if (surfaceOp === undefined) {
    throw surfaceError(`session event "${event.type}" is surface-eligible and requires a surfaceOp marker`);
  }
  if (surfaceOp === 'append') {
    checkProvenance(event, []);
    return 'append';
  }
  if (surfaceOp === null || typeof surfaceOp !== 'object' || Array.isArray(surfaceOp)) {
    throw surfaceError(`session event "${event.type}" carries an invalid surfaceOp`);
  }
  if (!isReplaceOp(surfaceOp)) {
    throw surfaceError(`session event "${event.type}" carries an invalid replace surfaceOp`);
  }
  return surfaceOp;
}

/** Rule 5: provenance checks against the shadow set (empty for an append). */
export function checkProvenance(event: SessionEvent, shadowed: readonly number[]): void {
  const raw: unknown = event.sourceEventSeqs;
  const cited = new Set<number>();
  if (raw !== undefined) {
    if (!Array.isArray(raw)) {
      throw surfaceError(`sourceEventSeqs on event at seq ${event.seq} must be an array when present`);
    }
    if (raw.length === 0 && event.type !== 'assistant/message') {
      throw surfaceError('sourceEventSeqs must not be empty except on assistant/message');
    }
    let firstNotEarlier: number | undefined;
    // A plain index loop visits holes of a sparse array as `undefined`, which rule 5.3 rejects.
    for (let index = 0; index < raw.length; index++) {
      const source: unknown = raw[index];
      if (!isEventSeq(source)) {
        throw surfaceError(`session event "${event.type}" sourceEventSeqs must densely contain non-negative safe integers`);
      }
      cited.add(source);
      if (firstNotEarlier === undefined && source >= event.seq) firstNotEarlier = source;
    }
    if (cited.size !== raw.length) {
      throw surfaceError('sourceEventSeqs must not contain duplicates');
    }
    if (firstNotEarlier !== undefined) {
      throw surfaceError(`sourceEventSeqs must reference earlier events: ${firstNotEarlier} >= current seq ${event.seq}`);
    }
  }
  const missing = shadowed.filter((seq) => !cited.has(seq));
  if (missing.length > 0) {
    throw surfaceError(`surface replace: sourceEventSeqs must include every shadowed surface node; missing ${missing.join(', ')}`);
  }
}

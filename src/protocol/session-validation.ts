/**
 * The validation stages S1–S6 of a persisted-session inspection (SESSION-LOG.md §9.15), run on what the
 * storage reader decoded (stages R1–R4): identity and version, retired vocabulary, migrations and adoption,
 * unknown types, crash closers, then the session build (header and every balanced event).
 */
import { SessionFormatUnsupportedError, SessionLogError, SessionPersistenceCorruptionError } from './errors.js';
import type { SessionEvent, SessionHeader } from './events.js';
import { interruptedTurnClosers } from './closers.js';
import { deepFreeze } from './deep-freeze.js';
import { validateSeedEvent } from './envelope.js';
import { findRejectedLegacy, findUnknownType, migrateAndAdopt } from './legacy.js';
import { formatVersionRefusal, validateSessionHeader } from './session-header.js';
import { SurfaceFold } from './surface-fold.js';

/** What the storage reader hands to the validation stages. */
export interface StoredSessionInput {
  /** The id the caller asked for. */
  readonly requestedId: string;
  /** The header record converted from the header line (SESSION-LOG.md §9.6), without `type`. */
  readonly header: Readonly<Record<string, unknown>>;
  /** The decoded stored events (committed region plus recovered tail), in seq order. Ownership passes here. */
  readonly storedEvents: readonly unknown[];
  /** The artifact path, appended to format refusals as ` (raw log: <path>)`. */
  readonly path?: string;
  /**
   * Called between stages and every {@link VALIDATION_POLL_EVENTS} events of the session build; a worker
   * checks its control port here (SESSION-LOG.md §10.6). What it throws is rethrown as is, not wrapped.
   */
  readonly poll?: () => void;
  /**
   * Deep-freeze each balanced event, as dsh's session build does (default true). A worker passes false: its events
   * leave the thread only as structured clones, which are never frozen, so freezing there is pure cost (the
   * receiving side freezes what it hands out).
   */
  readonly freeze?: boolean;
}

/** Events validated between two polls in stage S6. */
export const VALIDATION_POLL_EVENTS = 512;

/** Marks a poll's throw so the classification below rethrows it unwrapped. */
class PollInterruption {
  constructor(readonly reason: unknown) {}
}

/** A validated inspection: the frozen header and the frozen balanced events (stored + closers). */
export interface ValidatedSession {
  readonly meta: SessionHeader;
  readonly events: readonly SessionEvent[];
}

/**
 * Runs stages S1–S6 of SESSION-LOG.md §9.15 in order; the first failure ends the inspection. A
 * `SessionFormatUnsupportedError` (S1 version, S4 unknown type) is thrown as is; every other failure —
 * including native `TypeError`s from malformed data — is wrapped in `SessionPersistenceCorruptionError`
 * (`stored session "<id>" failed validation: <String(error)>`, the original as `cause`).
 *
 * Each stage is one pass over the log; the S6 surface fold is O(1) per append. The stored events are adopted
 * and frozen in place (no copy), so the caller must not keep using them as mutable values. The result does not
 * include dsh's in-memory `session/end-seed` marker.
 */
export function validateStoredSession(input: StoredSessionInput): ValidatedSession {
  try {
    return runValidationStages(input);
  } catch (error) {
    if (error instanceof PollInterruption) throw error.reason;
    if (error instanceof SessionFormatUnsupportedError) throw error;
    throw new SessionPersistenceCorruptionError(input.requestedId, error);
  }
}

/** Stages S1–S6 without the failure classification of `validateStoredSession`. */
function runValidationStages(input: StoredSessionInput): ValidatedSession {
  const { requestedId, header, storedEvents, path } = input;
  const freeze = input.freeze ?? true;
  const poll = input.poll === undefined ? undefined : guardedPoll(input.poll);
  // S1: identity, then version.
  if (header['id'] !== requestedId) {
    throw new SessionLogError(
      'SESSION_LOG_INVALID_HEADER',
      `stored session identity mismatch: requested "${requestedId}", header contains "${String(header['id'])}"`,
    );
  }
  if (header['version'] !== 0) throw formatVersionRefusal(header['id'], header['version'] as number, path);
  poll?.();
  // S2: retired vocabulary, whole log.
  const legacy = findRejectedLegacy(storedEvents, requestedId);
  if (legacy !== undefined) throw legacy;
  poll?.();
  // S3: per-event migrations and adoption.
  const events = migrateAndAdopt(storedEvents, requestedId, freeze);
  poll?.();
  // S4: unknown required event types.
  const unknown = findUnknownType(events, requestedId, path);
  if (unknown !== undefined) throw unknown;
  poll?.();
  // S5: closers of an interrupted final turn.
  for (const closer of interruptedTurnClosers(events)) events.push(closer);
  // S6: session build — header, then each balanced event's envelope and surface.
  const meta = validateSessionHeader(header, requestedId);
  const fold = new SurfaceFold();
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as SessionEvent;
    validateSeedEvent(event, index, fold);
    if (freeze) deepFreeze(event);
    if (poll !== undefined && index % VALIDATION_POLL_EVENTS === VALIDATION_POLL_EVENTS - 1) poll();
  }
  return { meta, events: freeze ? Object.freeze(events) : events };
}

/** Wraps a poll so that what it throws passes the failure classification unchanged. */
function guardedPoll(poll: () => void): () => void {
  return () => {
    try {
      poll();
    } catch (error) {
      throw new PollInterruption(error);
    }
  };
}

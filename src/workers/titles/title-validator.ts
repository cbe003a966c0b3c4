/**
 * The validation stages S1–S6 of a persisted-session inspection (SESSION-LOG.md §9.15) as a resumable,
 * event-at-a-time validator for the title index (§10.7). It keeps, as plain data, exactly what the stages
 * need to continue over appended events — first failures per stage, the §8.1 first hits, the `seq → message
 * id` classes, the closer scan and the resumable surface fold — plus the last `session/title` line, and
 * computes the inspection's result for the events seen so far in §9.15's failure order.
 *
 * Each stage runs the protocol's own function on one event (with a minimal synthetic context where a stage
 * needs earlier events), so every text, including engine `TypeError`s, is the one a full inspection produces.
 */
import { SessionFormatUnsupportedError, SessionPersistenceCorruptionError } from '../../protocol/errors.js';
import type { SessionEvent } from '../../protocol/events.js';
import { isRecord } from '../../protocol/record-guard.js';
import { validateSeedEvent } from '../../protocol/envelope.js';
import { findUnknownType, migrateAndAdopt } from '../../protocol/legacy.js';
import { formatVersionRefusal, validateSessionHeader } from '../../protocol/session-header.js';
import { CloserTracker, type CloserCheckpoint } from './closer-tracker.js';
import { encodeValue, quoteText, unquoteText, type EncodedValue, type QuotedText } from './json-text.js';
import { LegacyTracker, type LegacyCheckpoint } from './legacy-tracker.js';
import { MessageIdClasses, type MessageIdCheckpoint } from './message-id-classes.js';
import { ResumableSurfaceFold, type SurfaceFoldCheckpoint } from './resumable-surface-fold.js';
import { rebuildError, serializeError, type SerializedError } from './serialized-error.js';
import { toolResultDigest } from './tool-result-digest.js';
import { assertNever } from '../../protocol/assert-never.js';
import { ownBytes } from '../../protocol/own-bytes.js';

/** The plain-data state of a {@link TitleValidator} after some number of stored events. */
export interface TitleValidatorCheckpoint {
  /** The session id the stage messages name (the header's id, equal to the requested id after stage R4). */
  readonly sessionId: QuotedText;
  /** Stored events seen (the seq the next one carries). */
  readonly eventCount: number;
  /** `time` of the last stored event (the closers' time). */
  readonly lastTime: EncodedValue;
  /** The line (without LF) of the last `session/title` event, which the title fold reads. */
  readonly lastTitleLine: Uint8Array | null;
  /** S1: the header's format-version refusal. */
  readonly s1Error: SerializedError | null;
  /** S2: first hits of the §8.1 rules. */
  readonly legacy: LegacyCheckpoint;
  /** S3: the first migration or adoption failure; later stages stop there. */
  readonly s3Error: SerializedError | null;
  /** S3: the classes of the remembered message ids. */
  readonly messageIds: MessageIdCheckpoint;
  /** S4: the first unknown-type refusal (or what building it threw); S5 and S6 stop there. */
  readonly s4Error: SerializedError | null;
  /** S5: the closer scan (with its own first error, which stops S6). */
  readonly closers: CloserCheckpoint;
  /** S6: the header validation failure. */
  readonly s6HeaderError: SerializedError | null;
  /** S6: the first envelope or surface failure of a stored event. */
  readonly s6Error: SerializedError | null;
  /** S6: the surface fold over the stored events. */
  readonly surface: SurfaceFoldCheckpoint;
}

/** The inspection's result for the events seen: valid (with the last title line), or the classified failure. */
export type ValidationOutcome =
  | { readonly ok: true; readonly titleLine: Uint8Array | null }
  | { readonly ok: false; readonly error: SerializedError };

/** Any non-empty id: stands in for a remembered id whose value cannot change the result (see MessageIdClasses). */
const PLACEHOLDER_MESSAGE_ID = 'sessionctx:remembered-message-id';

const LF = 0x0a;

/** The id `migrateAndAdopt` remembers for an adopted event: `data.id` of a user message, else `data.message.id`. */
function carriedMessageId(event: SessionEvent): string | undefined {
  const data = isRecord(event.data) ? event.data : undefined;
  const message = event.type === 'user/message' ? data : isRecord(data?.['message']) ? data['message'] : undefined;
  const id = message?.['id'];
  return typeof id === 'string' ? id : undefined;
}

/** `surfaceOp.start` of a `tool/result` shaped like a replacement: the seq rule 4c may look up. */
function replacementStart(event: Readonly<Record<string, unknown>>): number | undefined {
  if (event['type'] !== 'tool/result') return undefined;
  const op = event['surfaceOp'];
  if (!isRecord(op) || op['op'] !== 'replace') return undefined;
  const start = op['start'];
  return typeof start === 'number' ? start : undefined;
}

/** §9.15's classification: format refusals as they are, everything else wrapped as corruption of `sessionId`. */
function classify(sessionId: string, error: unknown): Error {
  if (error instanceof SessionFormatUnsupportedError) return error;
  return new SessionPersistenceCorruptionError(sessionId, error);
}

/** Stages S1–S6 over stored events fed one at a time in seq order; see the module comment. */
export class TitleValidator {
  readonly #sessionId: string;
  readonly #path: string;
  #eventCount: number;
  /** The last event's `time` as read, and its encoding once something asked for it (a checkpoint, the closers). */
  #lastTimeValue: unknown;
  #lastTimeText: EncodedValue | null;
  /** Whether adopted messages are frozen (only when an observer on this thread may keep them). */
  readonly #freeze: boolean;
  #lastTitleLine: Uint8Array | null;
  readonly #s1Error: SerializedError | null;
  readonly #legacy: LegacyTracker;
  #s3Error: SerializedError | null;
  readonly #messageIds: MessageIdClasses;
  #s4Error: SerializedError | null;
  readonly #closers: CloserTracker;
  readonly #s6HeaderError: SerializedError | null;
  #s6Error: SerializedError | null;
  readonly #surface: ResumableSurfaceFold;

  private constructor(checkpoint: TitleValidatorCheckpoint, path: string, freeze: boolean) {
    this.#sessionId = unquoteText(checkpoint.sessionId);
    this.#path = path;
    this.#freeze = freeze;
    this.#eventCount = checkpoint.eventCount;
    this.#lastTimeValue = undefined;
    this.#lastTimeText = checkpoint.lastTime;
    this.#lastTitleLine = checkpoint.lastTitleLine;
    this.#s1Error = checkpoint.s1Error;
    this.#legacy = LegacyTracker.restore(checkpoint.legacy);
    this.#s3Error = checkpoint.s3Error;
    this.#messageIds = MessageIdClasses.restore(checkpoint.messageIds);
    this.#s4Error = checkpoint.s4Error;
    this.#closers = CloserTracker.restore(checkpoint.closers);
    this.#s6HeaderError = checkpoint.s6HeaderError;
    this.#s6Error = checkpoint.s6Error;
    this.#surface = ResumableSurfaceFold.restore(checkpoint.surface);
  }

  /**
   * A validator before the first event, for a header record that stage R3 accepted (so `id` is a string).
   * Runs the header parts of S1 (version) and S6 (§7.2) now. The identity part of S1 cannot fail: the caller
   * checks the requested id against the header's (stage R4) before using the result.
   *
   * @param path the artifact path, for the ` (raw log: <path>)` suffix of format refusals.
   * @param freeze whether adopted messages are deep-frozen (as a full inspection's are); false when no adopted event
   *   outlives the scan on this thread (the title index reads titles only; a worker's events leave it as clones).
   */
  static start(headerRecord: Record<string, unknown>, path: string, freeze = true): TitleValidator {
    const sessionId = headerRecord['id'] as string;
    const version = headerRecord['version'];
    const s1Error = version === 0 ? null : serializeError(formatVersionRefusal(headerRecord['id'], version as number, path));
    let s6HeaderError: SerializedError | null = null;
    try {
      validateSessionHeader(headerRecord, sessionId);
    } catch (error) {
      s6HeaderError = serializeError(error);
    }
    return new TitleValidator(
      {
        sessionId: quoteText(sessionId),
        eventCount: 0,
        lastTime: '',
        lastTitleLine: null,
        s1Error,
        legacy: LegacyTracker.empty().checkpoint(),
        s3Error: null,
        messageIds: MessageIdClasses.empty().checkpoint(),
        s4Error: null,
        closers: CloserTracker.empty().checkpoint(),
        s6HeaderError,
        s6Error: null,
        surface: ResumableSurfaceFold.empty().checkpoint(),
      },
      path,
      freeze,
    );
  }

  /** A validator continuing from `checkpoint` (copied, never aliased) for the artifact at `path`; `freeze` as for `start`. */
  static restore(checkpoint: TitleValidatorCheckpoint, path: string, freeze = true): TitleValidator {
    return new TitleValidator(checkpoint, path, freeze);
  }

  /** The last event's `time`, encoded (once per value: most events never need it). */
  #lastTime(): EncodedValue {
    this.#lastTimeText ??= encodeValue(this.#lastTimeValue);
    return this.#lastTimeText;
  }

  /** Stored events seen so far. */
  get eventCount(): number {
    return this.#eventCount;
  }

  /** The plain-data state (a copy: later pushes do not change it). */
  checkpoint(): TitleValidatorCheckpoint {
    return {
      sessionId: quoteText(this.#sessionId),
      eventCount: this.#eventCount,
      lastTime: this.#lastTime(),
      lastTitleLine: this.#lastTitleLine,
      s1Error: this.#s1Error,
      legacy: this.#legacy.checkpoint(),
      s3Error: this.#s3Error,
      messageIds: this.#messageIds.checkpoint(),
      s4Error: this.#s4Error,
      closers: this.#closers.checkpoint(),
      s6HeaderError: this.#s6HeaderError,
      s6Error: this.#s6Error,
      surface: this.#surface.checkpoint(),
    };
  }

  /**
   * Feeds the next stored event: a committed event as the scanner (§9.11) returned it, which is an object whose
   * `seq` equals its position. `line` is the storage line it came from (needed only for `session/title`).
   * Each stage stops at its first failure, and a stage whose result can no longer matter stops with it.
   *
   * @returns the adopted (migrated) event when stage S3 accepted it, else `undefined` — what the source cache
   *   projects (the same value a full inspection's S3 yields for this event).
   */
  push(event: unknown, line: Uint8Array): SessionEvent | undefined {
    const stored = event as Readonly<Record<string, unknown>>;
    const seq = this.#eventCount;
    this.#eventCount += 1;
    this.#lastTimeValue = stored['time'];
    this.#lastTimeText = null;
    if (stored['type'] === 'session/title') {
      // A title event is always one whole line (rows only expand into chunks); keep it without its LF.
      this.#lastTitleLine = ownBytes(line, 0, line.length > 0 && line[line.length - 1] === LF ? line.length - 1 : line.length);
    }
    this.#legacy.observe(stored, seq);
    if (this.#s3Error !== null) return undefined;
    let migrated: SessionEvent;
    try {
      migrated = this.#migrate(stored);
    } catch (error) {
      this.#s3Error = serializeError(error);
      return undefined;
    }
    this.#messageIds.record(seq, carriedMessageId(migrated));
    if (this.#s4Error !== null) return migrated;
    this.#s4Error = this.#unknownTypeFailure(migrated);
    if (this.#s4Error !== null) return migrated;
    this.#closers.observe(migrated, seq);
    if (this.#closers.error !== null || this.#s6HeaderError !== null || this.#s6Error !== null) return migrated;
    // The digest is not a validation step, so it is computed outside the try that records S6 failures.
    const digest = migrated.type === 'tool/result' ? toolResultDigest(migrated.data) : undefined;
    try {
      validateSeedEvent(migrated, seq, this.#surface.sink(digest));
    } catch (error) {
      this.#s6Error = serializeError(error);
    }
    return migrated;
  }

  /**
   * The inspection result for the events seen so far (§10.7 lookup rule 4): the first of S1, S2, S3, S4, the
   * closer scan, the closers (S5), the header and stored events (S6) and the closers' own S6 checks, classified
   * as §9.15 does; else valid with the last title line. Applies the closers to this validator, so take any
   * checkpoint first; the validator must not be used afterwards.
   */
  finish(): ValidationOutcome {
    const fail = (error: unknown): ValidationOutcome => ({ ok: false, error: serializeError(classify(this.#sessionId, error)) });
    if (this.#s1Error !== null) return fail(rebuildError(this.#s1Error));
    let legacy: Error | undefined;
    try {
      legacy = this.#legacy.result(this.#sessionId);
    } catch (error) {
      return fail(error);
    }
    if (legacy !== undefined) return fail(legacy);
    if (this.#s3Error !== null) return fail(rebuildError(this.#s3Error));
    if (this.#s4Error !== null) return fail(rebuildError(this.#s4Error));
    if (this.#closers.error !== null) return fail(rebuildError(this.#closers.error));
    let closers: SessionEvent[];
    try {
      closers = this.#closers.closers(this.#eventCount - 1, this.#lastTime());
    } catch (error) {
      return fail(error);
    }
    if (this.#s6HeaderError !== null) return fail(rebuildError(this.#s6HeaderError));
    if (this.#s6Error !== null) return fail(rebuildError(this.#s6Error));
    for (const closer of closers) {
      const digest = closer.type === 'tool/result' ? toolResultDigest(closer.data) : undefined;
      try {
        validateSeedEvent(closer, this.#eventCount, this.#surface.sink(digest));
      } catch (error) {
        return fail(error);
      }
      this.#eventCount += 1;
    }
    return { ok: true, titleLine: this.#lastTitleLine };
  }

  /**
   * Stage S3 for one event: `migrateAndAdopt` over the event, preceded — when rule 4c may look up the id of
   * `surfaceOp.start` — by a synthetic event of an unscanned type carrying an id of the remembered class.
   */
  #migrate(stored: Readonly<Record<string, unknown>>): SessionEvent {
    const log: unknown[] = [];
    const start = replacementStart(stored);
    if (start !== undefined) {
      const id = this.#rememberedId(start);
      if (id !== undefined) log.push({ type: 'sessionctx/remembered-message-id', seq: start, data: { message: { id } } });
    }
    log.push(stored);
    const migrated = migrateAndAdopt(log, this.#sessionId, this.#freeze);
    return migrated[migrated.length - 1] as SessionEvent;
  }

  /** A stand-in for `messageIds.get(seq)` with the same class; the real id when `seq` is a current tool/result. */
  #rememberedId(seq: number): string | undefined {
    const kind = this.#messageIds.classOf(seq);
    switch (kind) {
      case 'none':
        return undefined;
      case 'empty':
        return '';
      case 'non-empty':
        return this.#surface.toolResultMessageId(seq) ?? PLACEHOLDER_MESSAGE_ID;
      default:
        assertNever(kind, 'unknown message id class');
    }
  }

  /** Stage S4 for one migrated event: its refusal, what building the refusal threw, or null. */
  #unknownTypeFailure(migrated: SessionEvent): SerializedError | null {
    let refusal: Error | undefined;
    try {
      refusal = findUnknownType([migrated], this.#sessionId, this.#path);
    } catch (error) {
      return serializeError(error);
    }
    return refusal === undefined ? null : serializeError(refusal);
  }
}

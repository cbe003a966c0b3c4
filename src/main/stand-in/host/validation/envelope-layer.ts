/**
 * HOST.md §3.2: the SESSION-LOG writer rules (lossless JSON, retired vocabulary, re-entrancy) and the surface
 * fold, with SESSION-LOG's messages. Live appends also get the message-shape and request-header checks that a
 * reload would apply, so that every log the host writes loads again.
 */
import { checkAppendCandidate, validateSeedEvent } from '../../../../protocol/envelope.js';
import { SessionLogError } from '../../../../protocol/errors.js';
import { assertEventDepth } from '../../../../protocol/json-depth.js';
import { isSurfaceType } from '../../../../protocol/events.js';
import { checkMessageShape, checkRequestHeader } from '../../../../protocol/message-shape.js';
import { SessionAppendError } from '../session-append-error.js';
import type { AppendCandidate, ValidationLayer, ValidationState } from './validation-layer.js';

/** SESSION-LOG.md §2.4 rule 5. */
const REENTRANT_APPEND_MESSAGE = 'session append cannot reenter while another append is being published';

/** Rethrows a SESSION-LOG error as `HOST_INVALID_EVENT` with the same message; anything else unchanged. */
function asAppendError(error: unknown, seq: number): unknown {
  return error instanceof SessionLogError ? new SessionAppendError('HOST_INVALID_EVENT', error.message, { cause: error, seq }) : error;
}

/** The shape checks a reload runs (SESSION-LOG.md §2.3 rule 4), applied at append time. */
function checkReloadShape(candidate: AppendCandidate): void {
  if (isSurfaceType(candidate.type)) checkMessageShape(candidate.type, candidate.data, `session event at seq ${candidate.seq}`);
  if (candidate.type === 'request/header') checkRequestHeader(candidate.data, candidate.seq);
}

/** The live checks of SESSION-LOG.md §2.4 in their order: rules 2–4, then 5 (re-entrancy), then 6 (fold). */
function checkLive(candidate: AppendCandidate, state: ValidationState): void {
  if (candidate.ignorable !== undefined) {
    // sessionctx never writes `ignorable` (SESSION-LOG.md §2.2); only seeds may carry it.
    throw new SessionLogError('SESSION_LOG_INVALID_APPEND', `session event "${candidate.type}" cannot be appended as ignorable`);
  }
  // First, so that no recursive check below can overflow on a pathological value: one typed rule for every path.
  assertEventDepth({ type: candidate.type, seq: candidate.seq, data: candidate.data }, { type: candidate.type, seq: candidate.seq });
  checkReloadShape(candidate);
  const meta = { sourceEventSeqs: candidate.sourceEventSeqs, surfaceOp: candidate.surfaceOp };
  if (!state.publishing) {
    checkAppendCandidate(candidate.type, candidate.data, meta, state.fold);
    return;
  }
  // Rule 5 sits between rules 2–4 and rule 6: a rules 2–4 failure still wins, a fold failure does not.
  try {
    checkAppendCandidate(candidate.type, candidate.data, meta, state.fold);
  } catch (error) {
    if (!(error instanceof SessionLogError) || error.code !== 'SESSION_LOG_INVALID_SURFACE') throw error;
  }
  throw new SessionAppendError('HOST_REENTRANT_APPEND', REENTRANT_APPEND_MESSAGE, { seq: candidate.seq });
}

/**
 * Live: SESSION-LOG.md §2.4 (plus the reload shape checks). Seed: SESSION-LOG.md §2.3 rules 1–7 by index,
 * which also folds the event (see `ValidationState`). SESSION-LOG failures become `HOST_INVALID_EVENT` with the
 * message unchanged; native `TypeError`s of malformed seed events propagate as dsh throws them.
 */
export const envelopeLayer: ValidationLayer = {
  name: 'HOST §3.2 envelope and surface fold',
  check(candidate: AppendCandidate, state: ValidationState): void {
    try {
      if (state.mode === 'seed') validateSeedEvent(candidate, state.events.length, state.fold);
      else checkLive(candidate, state);
    } catch (error) {
      throw asAppendError(error, candidate.seq);
    }
  },
  commit(event, state): void {
    // A seed event was already folded by `validateSeedEvent` during its check.
    if (state.mode === 'live') state.fold.apply(event);
  },
};

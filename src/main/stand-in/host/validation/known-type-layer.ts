/**
 * HOST.md §3.1: only the 48 known event types may enter a log. Plugins keep their metadata inside `source`
 * fields instead of inventing types.
 */
import { SessionFormatUnsupportedError } from '../../../../protocol/errors.js';
import { KNOWN_EVENT_TYPES } from '../../../../protocol/events.js';
import { SessionAppendError } from '../session-append-error.js';
import type { AppendCandidate, ValidationLayer, ValidationState } from './validation-layer.js';

function isKnownType(type: unknown): boolean {
  return typeof type === 'string' && KNOWN_EVENT_TYPES.has(type);
}

/**
 * Live: an unknown type throws `HOST_UNKNOWN_EVENT_TYPE: unknown session event type "<type>"`. Seed: an unknown
 * type marked `ignorable: true` is kept (it is log-only for every fold); without the marker the seed is
 * refused with SESSION-LOG.md §8.3's `SessionFormatUnsupportedError` text (without a path suffix, since a seed
 * has no artifact).
 */
export const knownTypeLayer: ValidationLayer = {
  name: 'HOST §3.1 known event types',
  check(candidate: AppendCandidate, state: ValidationState): void {
    if (isKnownType(candidate.type)) return;
    if (state.mode === 'seed') {
      if (candidate.ignorable === true) return;
      throw new SessionFormatUnsupportedError(
        `session "${state.sessionId}" contains event type "${String(candidate.type)}" (seq ${String(candidate.seq)}) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness`,
      );
    }
    throw new SessionAppendError('HOST_UNKNOWN_EVENT_TYPE', `unknown session event type "${String(candidate.type)}"`, {
      seq: candidate.seq,
    });
  },
};

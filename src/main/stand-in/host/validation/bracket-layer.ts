/**
 * HOST.md §3.5: the compaction bracket invariant. At most one non-stale bracket is open; its summary,
 * checkpoint and end name it and stay in its turn; turns neither start nor end inside it; a bracket a seed left
 * open turns stale at `session/end-seed` and can never be continued. Metering fields of summaries and prunes
 * are checked here too, because the claim rule (§3.6) prices replaces with them.
 */
import { isCompactionCheckpoint } from '../../../../protocol/checkpoint.js';
import { isNonNegativeSafeInteger, isRecord } from '../../../../protocol/events.js';
import { SessionAppendError } from '../session-append-error.js';
import { dataField } from '../../../host-kit/turn-state.js';
import type { AppendCandidate, ValidationLayer, ValidationState } from './validation-layer.js';
import type { OpenBracket } from '../../../host-api/host-api.js';

/** `<T|none>` for the open turn, `<T|null>` for a bracket or event turn (a missing field shows as `undefined`). */
function renderTurn(turn: unknown, absent: 'none' | 'null'): string {
  return turn === null ? absent : String(turn);
}

/** `HOST_BRACKET: <event> does not match the open compaction bracket (<detail>)`. */
function bracketError(candidate: AppendCandidate, detail: string): SessionAppendError {
  return new SessionAppendError('HOST_BRACKET', `${candidate.type} does not match the open compaction bracket (${detail})`, {
    seq: candidate.seq,
  });
}

/** §3.5 rule 1: nothing open, a non-empty string id, and a turn that matches the turn state. */
function checkStart(candidate: AppendCandidate, state: ValidationState): void {
  const open = state.brackets.open;
  if (open !== undefined) {
    throw new SessionAppendError('HOST_STILL_COMPACTING', `still compacting ${open.compactionId}`, { seq: candidate.seq });
  }
  const compactionId = dataField(candidate.data, 'compactionId');
  if (typeof compactionId !== 'string' || compactionId === '') throw bracketError(candidate, 'compactionId must be a non-empty string');
  const turn = dataField(candidate.data, 'turn');
  const openTurn = state.turns.openTurn;
  if (turn === null) {
    if (openTurn !== null) throw bracketError(candidate, `turn null requires no open turn; open turn ${openTurn}`);
    return;
  }
  if (typeof turn !== 'number') throw bracketError(candidate, 'turn must be a number or null');
  if (turn !== openTurn) throw bracketError(candidate, `turn ${turn} is not the open turn ${renderTurn(openTurn, 'none')}`);
}

/**
 * The open bracket that `compactionId` names. A stale id with no new bracket of that id open is
 * `HOST_STALE_BRACKET` (rule 6); any other mismatch is `HOST_BRACKET`.
 */
function namedBracket(candidate: AppendCandidate, state: ValidationState, compactionId: unknown): OpenBracket {
  const open = state.brackets.open;
  if (open !== undefined && open.compactionId === compactionId) return open;
  if (state.brackets.isStale(compactionId)) {
    throw new SessionAppendError('HOST_STALE_BRACKET', `compaction bracket ${String(compactionId)} is stale`, { seq: candidate.seq });
  }
  if (open === undefined) throw bracketError(candidate, 'no compaction bracket is open');
  throw bracketError(candidate, `compactionId ${String(compactionId)} is not the open bracket ${open.compactionId}`);
}

/** Rules 2 and 7: the pricing fields of a summary or a prune. */
function checkPricingFields(candidate: AppendCandidate): void {
  const seqs = dataField(candidate.data, 'shadowedSeqs');
  if (!Array.isArray(seqs) || seqs.length === 0) throw bracketError(candidate, 'shadowedSeqs must be a non-empty array');
  const range = dataField(candidate.data, 'shadowedRange');
  if (!isRecord(range) || range['start'] !== seqs[0] || range['end'] !== seqs.at(-1)) {
    throw bracketError(candidate, 'shadowedRange must be {start: shadowedSeqs[0], end: shadowedSeqs.at(-1)}');
  }
  if (!isNonNegativeSafeInteger(dataField(candidate.data, 'shadowedTokenCount'))) {
    throw bracketError(candidate, 'shadowedTokenCount must be a non-negative safe integer');
  }
}

/** Rule 2: the open bracket's first summary, written in the bracket's turn state, with valid pricing fields. */
function checkSummary(candidate: AppendCandidate, state: ValidationState): void {
  const bracket = namedBracket(candidate, state, dataField(candidate.data, 'compactionId'));
  if (bracket.summarySeq !== undefined) {
    throw bracketError(candidate, `bracket ${bracket.compactionId} already has a summary at seq ${bracket.summarySeq}`);
  }
  const openTurn = state.turns.openTurn;
  if (openTurn !== bracket.turn) {
    throw bracketError(candidate, `bracket turn ${renderTurn(bracket.turn, 'null')}, open turn ${renderTurn(openTurn, 'none')}`);
  }
  checkPricingFields(candidate);
}

/** Rule 3: a checkpoint replace names the open bracket through `source.compactionId`. */
function checkCheckpoint(candidate: AppendCandidate, state: ValidationState): void {
  const source = dataField(candidate.data, 'source');
  namedBracket(candidate, state, dataField(source, 'compactionId'));
}

/** Rule 4: the open bracket's id and turn; a successful end needs a summary, a failed one (`error`) does not. */
function checkEnd(candidate: AppendCandidate, state: ValidationState): void {
  const bracket = namedBracket(candidate, state, dataField(candidate.data, 'compactionId'));
  const turn = dataField(candidate.data, 'turn');
  if (turn !== bracket.turn) {
    throw bracketError(candidate, `turn ${renderTurn(turn, 'null')} is not the bracket turn ${renderTurn(bracket.turn, 'null')}`);
  }
  const failed = dataField(candidate.data, 'error') !== undefined;
  if (!failed && bracket.summarySeq === undefined) throw bracketError(candidate, 'a successful end requires a summary');
}

/**
 * Rule 5 with the seed exception of §3.8: a synthetic crash closer `turn/end {reason:{kind:'interrupted'}}` may
 * close the turn of a bracket a crash left open; that bracket turns stale at the `session/end-seed` that follows.
 */
function checkTurnEvent(candidate: AppendCandidate, state: ValidationState): void {
  const open = state.brackets.open;
  if (open === undefined) return;
  const crashCloser =
    state.mode === 'seed' && candidate.type === 'turn/end' && dataField(dataField(candidate.data, 'reason'), 'kind') === 'interrupted';
  if (!crashCloser) throw bracketError(candidate, `bracket ${open.compactionId} is open`);
}

/** True for a `user/message` replace whose message is a compaction checkpoint (SESSION-LOG.md §4.5). */
function isCheckpointReplace(candidate: AppendCandidate): boolean {
  return candidate.type === 'user/message' && isRecord(candidate.surfaceOp) && isCompactionCheckpoint(candidate.data);
}

/**
 * §3.5 rules 1–7 with their messages: `HOST_STILL_COMPACTING: still compacting <openId>`,
 * `HOST_STALE_BRACKET: compaction bracket <id> is stale`, and otherwise
 * `HOST_BRACKET: <event> does not match the open compaction bracket (<detail>)` where `<event>` is the type.
 * A fork may not cut the log inside an open, non-stale bracket.
 */
export const bracketLayer: ValidationLayer = {
  name: 'HOST §3.5 compaction bracket invariant',
  check(candidate: AppendCandidate, state: ValidationState): void {
    switch (candidate.type) {
      case 'compaction/start':
        checkStart(candidate, state);
        return;
      case 'compaction/summary':
        checkSummary(candidate, state);
        return;
      case 'compaction/end':
        checkEnd(candidate, state);
        return;
      case 'compaction/prune':
        checkPricingFields(candidate);
        return;
      case 'turn/start':
      case 'turn/end':
        checkTurnEvent(candidate, state);
        return;
      default:
        if (isCheckpointReplace(candidate)) checkCheckpoint(candidate, state);
        return;
    }
  },
  boundaryViolation(state: ValidationState): string | undefined {
    const open = state.brackets.open;
    return open === undefined ? undefined : `open compaction bracket ${open.compactionId}`;
  },
};

/**
 * HOST.md §3.4: turn and step order. Seeds skip the numbering parts (HOST.md §3.8) so that older logs load
 * whatever their numbering; the structure (one open turn, one open step inside it) always applies.
 */
import { SessionAppendError } from '../session-append-error.js';
import { dataField } from '../../../host-kit/turn-state.js';
import type { AppendCandidate, ValidationLayer, ValidationState } from './validation-layer.js';

function render(value: number | null): string {
  return value === null ? 'none' : String(value);
}

/** `HOST_TURN: <event> violates turn/step order (open turn <T|none>, open step <S|none>)`; `<event>` is the type. */
function turnError(candidate: AppendCandidate, state: ValidationState): SessionAppendError {
  const { openTurn, openStep } = state.turns;
  return new SessionAppendError(
    'HOST_TURN',
    `${candidate.type} violates turn/step order (open turn ${render(openTurn)}, open step ${render(openStep)})`,
    { seq: candidate.seq },
  );
}

/** Whether `candidate` keeps the turn/step structure legal. */
function isLegal(candidate: AppendCandidate, state: ValidationState): boolean {
  const { openTurn, openStep, maxTurn, lastStep } = state.turns;
  const numbered = state.mode === 'live';
  const turn = dataField(candidate.data, 'turn');
  const step = dataField(candidate.data, 'step');
  switch (candidate.type) {
    case 'turn/start':
      // Rule 1: a number greater than every turn of the log; a log with no turn accepts 1 and up.
      return openTurn === null && Number.isSafeInteger(turn) && (!numbered || (turn as number) > Math.max(maxTurn ?? 0, 0));
    case 'turn/end':
      return openTurn !== null && turn === openTurn && openStep === null;
    case 'step/start':
      return (
        openTurn !== null && turn === openTurn && openStep === null && Number.isSafeInteger(step) && (!numbered || step === lastStep + 1)
      );
    case 'step/end':
      return openStep !== null && turn === openTurn && step === openStep;
    case 'assistant/message':
    case 'tool/result':
      // Replacements follow §3.3 instead.
      if (candidate.surfaceOp !== 'append') return true;
      return openStep !== null && turn === openTurn && step === openStep;
    default:
      return true;
  }
}

/** Throws `HOST_TURN` for every violation of §3.4 rules 1–5 (rule 6: other types carry no requirement). */
export const turnLayer: ValidationLayer = {
  name: 'HOST §3.4 turn and step legality',
  check(candidate: AppendCandidate, state: ValidationState): void {
    if (!isLegal(candidate, state)) throw turnError(candidate, state);
  },
};

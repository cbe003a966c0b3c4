/**
 * HOST.md §3.3: the host's replacement rules on top of SESSION-LOG.md §5.2 rule 6. A tool result may be
 * rewritten while any turn is open; an assistant message only inside its own open step.
 */
import { SessionAppendError } from '../session-append-error.js';
import { dataField } from '../../../host-kit/turn-state.js';
import { shadowedByCandidate } from './replace-shadow.js';
import type { AppendCandidate, ValidationLayer, ValidationState } from './validation-layer.js';

const NO_OPEN_TURN = 'tool/result replacement requires an open turn';
const ASSISTANT_REPLACE = 'assistant/message replacement must stay inside its own open step';

/** §3.3 row 4: one shadowed `assistant/message` of the same turn/step, and that step is the open step. */
function checkAssistantReplace(candidate: AppendCandidate, state: ValidationState): void {
  const shadowed = shadowedByCandidate(candidate, state.surface) ?? [];
  const original = shadowed.length === 1 ? state.events[shadowed[0] as number] : undefined;
  const turn = dataField(candidate.data, 'turn');
  const step = dataField(candidate.data, 'step');
  const legal =
    original?.type === 'assistant/message' &&
    dataField(original.data, 'turn') === turn &&
    dataField(original.data, 'step') === step &&
    state.turns.openStep !== null &&
    state.turns.openTurn === turn &&
    state.turns.openStep === step;
  if (!legal) throw new SessionAppendError('HOST_ASSISTANT_REPLACE', ASSISTANT_REPLACE, { seq: candidate.seq });
}

/**
 * `tool/result` replace → `HOST_NO_OPEN_TURN` without an open turn (an open step is not needed);
 * `assistant/message` replace → `HOST_ASSISTANT_REPLACE` outside its own open step. `user/message` replaces
 * have no host rule. The first two rows of §3.3 are SESSION-LOG rules, checked by the envelope layer.
 */
export const replacementLayer: ValidationLayer = {
  name: 'HOST §3.3 replacement legality',
  check(candidate: AppendCandidate, state: ValidationState): void {
    if (candidate.surfaceOp === undefined || candidate.surfaceOp === 'append') return;
    switch (candidate.type) {
      case 'tool/result':
        if (state.turns.openTurn === null) throw new SessionAppendError('HOST_NO_OPEN_TURN', NO_OPEN_TURN, { seq: candidate.seq });
        return;
      case 'assistant/message':
        checkAssistantReplace(candidate, state);
        return;
      default:
        return;
    }
  },
};

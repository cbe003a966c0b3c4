/**
 * The host's validation layers in HOST.md §3 order: known types, envelope and fold, replacement legality, turn
 * order, the compaction bracket invariant and the shadow-price claim rule.
 */
import { bracketLayer } from './bracket-layer.js';
import { claimLayer } from './claim-layer.js';
import { envelopeLayer } from './envelope-layer.js';
import { knownTypeLayer } from './known-type-layer.js';
import { replacementLayer } from './replacement-layer.js';
import { turnLayer } from './turn-layer.js';
import type { ValidationLayer } from './validation-layer.js';

/**
 * A fresh layer list for one session. The host layers are stateless: what they check against (turn state,
 * brackets, the armed claim) is kept by the session, which updates it only with stored events. A layer with
 * state of its own must be created here per call, because its state belongs to one log.
 */
export function createHostValidationLayers(): ValidationLayer[] {
  return [knownTypeLayer, envelopeLayer, replacementLayer, turnLayer, bracketLayer, claimLayer];
}

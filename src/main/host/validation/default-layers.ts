/**
 * The host's validation layers in HOST.md §3 order. The compaction bracket layer (§3.5) and the shadow-price
 * claim layer (§3.6) slot in after the turn layer.
 */
import { envelopeLayer } from './envelope-layer.js';
import { knownTypeLayer } from './known-type-layer.js';
import { replacementLayer } from './replacement-layer.js';
import { turnLayer } from './turn-layer.js';
import type { ValidationLayer } from './validation-layer.js';

/**
 * A fresh layer list for one session. Stateless layers are shared; a stateful layer (brackets, claims) must be
 * created here per call, because its state belongs to one log.
 */
export function createHostValidationLayers(): ValidationLayer[] {
  return [knownTypeLayer, envelopeLayer, replacementLayer, turnLayer];
}

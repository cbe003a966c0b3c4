/**
 * What the DCP index reads from its host while it folds an event (DCP.md §3.4): the surface and the meter as they
 * stand right after that event. A live session provides this directly; a cold replay provides it from a fresh
 * host fold (`ReplayHost`), so both paths fold the same facts.
 */
import type { SurfaceReader } from '../../../protocol/surface-view.js';
import type { TokenMeasure } from '../../host-api/host-api.js';

/** The meter figures the index needs. */
export interface IndexMeter {
  /** The current figures (the nudge fold reads `totalTokens` and `contextWindow`). */
  measure(): TokenMeasure;
  /** The estimate of a surface node, current or shadowed. */
  estimateOf(seq: number): number | undefined;
}

/** The host state the index reads while folding. A `Session` satisfies it. */
export interface IndexHost {
  readonly surface: SurfaceReader;
  readonly meter: IndexMeter;
}

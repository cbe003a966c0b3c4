/**
 * The shape of one append-validation layer (HOST.md §3). The session runs its layers in list order before
 * an event is stored (first failure wins) and lets each layer update its own state after the event was stored.
 */
import type { SessionEvent } from '../../../../protocol/events.js';
import type { SurfaceFold } from '../../../../protocol/surface-fold.js';
import type { CompactionBracketReader } from '../../../host-kit/compaction-brackets.js';
import type { ShadowClaimReader } from '../../../host-api/shadow-price-claim.js';
import type { SurfaceReader } from '../../../../protocol/surface-view.js';
import type { TurnState } from '../../../host-kit/turn-state.js';

/** `live` for appends to a running session, `seed` for the replay of a seed (HOST.md §3.8). */
export type ValidationMode = 'live' | 'seed';

/**
 * The event being validated. For a live append it is built from the caller's arguments (`seq` and `time`
 * assigned, `data` not yet cloned); for a seed it is the seed event itself, still unvalidated, so every field
 * is `unknown` until the envelope layer has passed.
 */
export interface AppendCandidate {
  readonly type: string;
  readonly seq: number;
  readonly time: number;
  readonly data: unknown;
  readonly sourceEventSeqs?: unknown;
  readonly surfaceOp?: unknown;
  readonly ignorable?: unknown;
}

/**
 * What a layer may read while checking. Everything reflects the log *before* the candidate, except `fold` in
 * seed mode: seed envelope validation is check-and-apply (SESSION-LOG.md §2.3), and a failed seed discards the
 * whole session, so layers after the envelope layer must read the surface through `surface`, never `fold`.
 */
export interface ValidationState {
  readonly mode: ValidationMode;
  readonly sessionId: string;
  readonly events: readonly SessionEvent[];
  readonly fold: SurfaceFold;
  readonly surface: SurfaceReader;
  readonly turns: TurnState;
  /** The open compaction bracket and the stale bracket ids (HOST.md §3.5). */
  readonly brackets: CompactionBracketReader;
  /** The shadow-price claim armed by the previous event (HOST.md §3.6). */
  readonly claim: ShadowClaimReader;
  /** True while the session is notifying append listeners (SESSION-LOG.md §2.4 rule 5). */
  readonly publishing: boolean;
}

/** One layer of HOST.md §3. `check` has no side effects; state changes happen in `commit`. */
export interface ValidationLayer {
  /** The HOST.md section the layer implements, for diagnostics. */
  readonly name: string;
  /** Throws `SessionAppendError` (or, for seeds, the SESSION-LOG error class) when `candidate` breaks a rule. */
  check(candidate: AppendCandidate, state: ValidationState): void;
  /** Updates the layer's own state with an event that every layer accepted and the log stored. */
  commit?(event: SessionEvent, state: ValidationState): void;
  /**
   * Why the log may not be cut after its last event (a fork, HOST.md §2.1 rule 3), or `undefined` when this
   * layer has no objection. Layers with open structures (brackets) implement it.
   */
  boundaryViolation?(state: ValidationState): string | undefined;
}

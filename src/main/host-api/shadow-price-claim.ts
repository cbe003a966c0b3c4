/**
 * The shadow-price claim (HOST.md §3.6): a `compaction/summary` or `compaction/prune` announces the range and
 * token count of the replace that follows it. Only the very next event can consume the claim; a replace with
 * the same `{start, end}` is then priced exactly in the meter's projection.
 */
import type { SessionEvent } from '../../protocol/events.js';
import type { ShadowedSpan } from '../../protocol/event-map.js';

/** An armed claim: the announced replace range and its `shadowedTokenCount`. */
export interface ShadowClaim {
  readonly start: unknown;
  readonly end: unknown;
  readonly tokens: number;
  /** The seq of the metering event that armed the claim. */
  readonly seq: number;
}

/** Read access to the claim state. */
export interface ShadowClaimReader {
  /** The claim the next event may consume, or `undefined`. */
  readonly armed: ShadowClaim | undefined;
}

/** True for the two metering event types that arm a claim. */
export function isMeteringEvent(type: string): boolean {
  return type === 'compaction/summary' || type === 'compaction/prune';
}

/**
 * The claim armed by the latest event, updated with every stored event. The values are read as stored; the
 * bracket layer has validated them when the host layers run (§3.5 rules 2 and 7).
 */
export class ShadowClaimState implements ShadowClaimReader {
  #armed: ShadowClaim | undefined;

  get armed(): ShadowClaim | undefined {
    return this.#armed;
  }

  /**
   * The claim that prices `event`: the armed claim when `event` is a surface replace with the claim's
   * `{start, end}`, else `undefined`. Call before {@link apply} for the same event.
   */
  pricing(event: SessionEvent): ShadowClaim | undefined {
    const claim = this.#armed;
    const op = event.surfaceOp;
    if (claim === undefined || op === undefined || op === 'append') return undefined;
    return op.start === claim.start && op.end === claim.end ? claim : undefined;
  }

  /** Every event consumes the armed claim; a metering event then arms a new one. */
  apply(event: SessionEvent): void {
    this.#armed = isMeteringEvent(event.type) ? claimOf(event) : undefined;
  }
}

/** The claim a metering event arms. */
function claimOf(event: SessionEvent): ShadowClaim | undefined {
  // A metering event passed the bracket layer: its shadowed span is well-formed (HOST.md §3.5 rule 2).
  const { shadowedRange, shadowedTokenCount } = event.data as ShadowedSpan;
  return { start: shadowedRange.start, end: shadowedRange.end, tokens: shadowedTokenCount, seq: event.seq };
}

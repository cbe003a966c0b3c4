/**
 * The session's token meter (HOST.md §4.2). Every figure is a heuristic estimate (§4.1). The surface total is
 * kept exact with O(1) work per append and O(k) per k-node replace; the projection follows the shadow-price
 * claim rule (§3.6), so it moves by a writer's own count and drifts when a replace is not priced, as in dsh.
 */
import type { SessionEvent } from '../../protocol/events.js';
import type { RequestHeaderData } from '../../protocol/event-map.js';
import { isEventOf } from '../../protocol/event-map.js';
import { eventMessage, isModelVisible } from '../../protocol/event-message.js';
import { SeqTable } from './seq-table.js';
import type { ShadowClaim } from './shadow-price-claim.js';
import type { SurfaceDelta } from '../../protocol/surface-view.js';
import { estimateEvent, estimateSystem, estimateTools } from '../../protocol/token-estimator.js';
import type { TokenMeasure, SessionMeter } from './host-api.js';

/**
 * The meter's running sums, updated by the session after each stored event (after the surface view, before
 * listeners run). Estimates are computed once per node, when it joins the surface.
 */
export class TokenMeter implements SessionMeter {
  readonly #events: readonly SessionEvent[];
  readonly #contextWindow: () => number | undefined;
  /** Estimate by seq for every event that joined the surface; every estimate is ≥ 4, so 0 means "never a node". */
  readonly #estimates = new SeqTable();
  #surfaceTokens = 0;
  /** The part of `#surfaceTokens` that `deriveMessages()` skips (assistant messages with empty content). */
  #hiddenTokens = 0;
  #projectedTokens = 0;
  #systemTokens = 0;
  #toolsTokens = 0;

  /** `events` is the session's log (read to classify shadowed nodes); `contextWindow` reads `requestContext()`. */
  constructor(events: readonly SessionEvent[], contextWindow: () => number | undefined) {
    this.#events = events;
    this.#contextWindow = contextWindow;
  }

  measure(): TokenMeasure {
    const messageTokens = this.#surfaceTokens - this.#hiddenTokens;
    const totalTokens = messageTokens + this.#systemTokens + this.#toolsTokens;
    const base = {
      surfaceTokens: this.#surfaceTokens,
      messageTokens,
      systemTokens: this.#systemTokens,
      toolsTokens: this.#toolsTokens,
      totalTokens,
      projectedTokens: this.#projectedTokens,
    };
    const contextWindow = this.#contextWindow();
    return Object.freeze(contextWindow === undefined ? base : { ...base, contextWindow, ratio: totalTokens / contextWindow });
  }

  estimateOf(seq: number): number | undefined {
    const estimate = this.#estimates.get(seq);
    return estimate === 0 ? undefined : estimate;
  }

  /**
   * Folds in one stored event: a `request/header` resets the system and tools figures; a surface change moves
   * the sums. `pricing` is the claim that priced this event (a replace with the claim's range), if any.
   */
  apply(event: SessionEvent, delta: SurfaceDelta | undefined, pricing: ShadowClaim | undefined): void {
    if (isEventOf(event, 'request/header')) this.#applyHeader(event.data);
    if (delta === undefined) return;
    const estimate = estimateEvent(event);
    this.#estimates.set(event.seq, estimate);
    this.#surfaceTokens += estimate;
    if (this.#isHidden(event)) this.#hiddenTokens += estimate;
    if (delta.kind === 'append') {
      this.#projectedTokens += estimate;
      return;
    }
    for (const seq of delta.shadowed) {
      const removed = this.#estimates.get(seq);
      this.#surfaceTokens -= removed;
      if (this.#isHidden(this.#events[seq] as SessionEvent)) this.#hiddenTokens -= removed;
    }
    // HOST.md §3.6 rule 3: an unpriced replace leaves the projection where it was (dsh does the same).
    if (pricing !== undefined) this.#projectedTokens += estimate - pricing.tokens;
  }

  #applyHeader(data: RequestHeaderData): void {
    this.#systemTokens = estimateSystem(data.header.system);
    this.#toolsTokens = estimateTools(data.header.tools);
  }

  #isHidden(event: SessionEvent): boolean {
    const message = eventMessage(event);
    return message !== undefined && !isModelVisible(event, message);
  }
}

/**
 * A fresh host fold for cold replays (DCP.md §3.4 rule 2): the host's own surface view and token meter, driven
 * event by event over a stored log, so that the index sees at each event exactly what a live session showed its
 * listeners. The log was validated when it was stored; nothing is validated again here.
 */
import type { SessionEvent } from '../../protocol/events.js';
import { isRecord, isSurfaceType } from '../../protocol/events.js';
import type { ContextWindowLookup } from '../host/session.js';
import type { SurfaceDelta } from '../../protocol/surface-view.js';
import { SurfaceView } from '../../protocol/surface-view.js';
import { TokenMeter } from '../host/token-meter.js';
import type { IndexHost } from './index-host.js';

/** The replayed host state; `apply` folds one stored event and returns its surface delta. */
export class ReplayHost implements IndexHost {
  readonly surface = new SurfaceView();
  readonly meter: TokenMeter;
  readonly #events: SessionEvent[] = [];
  #provider: unknown;
  #model: unknown;

  /** `contextWindowOf` gives the model window of a header's (provider, model), as the session's registry does. */
  constructor(contextWindowOf: ContextWindowLookup | undefined) {
    this.meter = new TokenMeter(this.#events, () => {
      if (contextWindowOf === undefined || typeof this.#provider !== 'string' || typeof this.#model !== 'string') return undefined;
      return contextWindowOf(this.#provider, this.#model);
    });
  }

  /** Folds `event` (the next seq of the log) and returns what a live session would have published. */
  apply(event: SessionEvent): SurfaceDelta | undefined {
    this.#events.push(event);
    if (event.type === 'request/header') this.#readHeader(event);
    const delta = this.#updateSurface(event);
    // Pricing only moves `projectedTokens`, which the index never reads.
    this.meter.apply(event, delta, undefined);
    return delta;
  }

  #updateSurface(event: SessionEvent): SurfaceDelta | undefined {
    const op = event.surfaceOp;
    if (op === undefined || !isSurfaceType(event.type)) return undefined;
    if (op === 'append') return this.surface.append(event.seq);
    return this.surface.replace(this.surface.positionOf(op.start), this.surface.positionOf(op.end), event.seq);
  }

  #readHeader(event: SessionEvent): void {
    const header = isRecord(event.data) ? event.data['header'] : undefined;
    const config = isRecord(header) ? header['config'] : undefined;
    this.#provider = isRecord(config) ? config['provider'] : undefined;
    this.#model = isRecord(config) ? config['model'] : undefined;
  }
}

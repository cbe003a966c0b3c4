/**
 * A fresh host fold for cold replays (DCP.md §3.4 rule 2): the host's own surface view and token meter, driven
 * event by event over a stored log, so that the index sees at each event exactly what a live session showed its
 * listeners. The log was validated when it was stored; nothing is validated again here.
 */
import type { SessionEvent } from '../../../protocol/events.js';
import { isSurfaceType } from '../../../protocol/events.js';
import type { RequestHeaderData, TypedEvent } from '../../../protocol/event-map.js';
import { isEventOf } from '../../../protocol/event-map.js';
import { storedPayload } from '../../../protocol/dcp/stored-payload.js';
import { isRecord } from '../../../protocol/record-guard.js';
import type { ContextWindowLookup } from '../../host-api/host-api.js';
import type { SurfaceDelta } from '../../../protocol/surface-view.js';
import { SurfaceView } from '../../../protocol/surface-view.js';
import { TokenMeter } from '../../host-api/token-meter.js';
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
    if (isEventOf(event, 'request/header')) this.#readHeader(event);
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

  /** A header names the (provider, model) of the next requests; a stored one may lack any field (stored-payload.ts). */
  #readHeader(event: TypedEvent<'request/header'>): void {
    const { header } = storedPayload(event);
    const config: unknown = isRecord(header) ? (header as Partial<RequestHeaderData['header']>).config : undefined;
    const names = isRecord(config) ? (config as Partial<RequestHeaderData['header']['config']>) : {};
    this.#provider = names.provider;
    this.#model = names.model;
  }
}

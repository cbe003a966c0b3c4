/**
 * The projections a session keeps beside its log (HOST.md §2.4–§2.5, §4.2, §5), folded event by event, once for
 * both places that keep them: the stand-in host's `Session` and `sessionctx/dsh-dcp`'s view of a dsh session. The
 * indexed surface (O(1) seq → position), the open turn and step, the compaction brackets, the shadow-price claims,
 * the token meter, the tool-pairing counts and the latest request header. Each fold is O(1) amortised (a replace:
 * what `SurfaceView.replace` costs).
 */
import type { SessionEvent } from '../../protocol/events.js';
import { isRecord, isSurfaceType } from '../../protocol/events.js';
import type { RequestHeaderData } from '../../protocol/event-map.js';
import { isEventOf } from '../../protocol/event-map.js';
import type { SurfaceDelta } from '../../protocol/surface-view.js';
import { SurfaceView } from '../../protocol/surface-view.js';
import type { OpenBracket, OpenStep } from '../host-api/host-api.js';
import { ShadowClaimState } from '../host-api/shadow-price-claim.js';
import { TokenMeter } from '../host-api/token-meter.js';
import { CompactionBracketState } from './compaction-brackets.js';
import { ToolPairingIndex } from './tool-pairing-index.js';
import { TurnState } from './turn-state.js';

/** No open bracket (the usual answer, shared). */
const NO_OPEN_BRACKETS: readonly OpenBracket[] = Object.freeze([]);

/** Every projection of one session's log. */
export class SessionProjections {
  /** The log as folded (seq `i` at index `i`). */
  readonly events: SessionEvent[] = [];
  readonly surface = new SurfaceView();
  readonly turns = new TurnState();
  readonly brackets = new CompactionBracketState();
  readonly claim = new ShadowClaimState();
  readonly meter: TokenMeter;
  readonly pairing: ToolPairingIndex;
  /** `data.header` of the latest `request/header` when it is a record (a session without envelope checks stays safe). */
  #latestHeader: RequestHeaderData['header'] | undefined;

  /** @param contextWindow - the current context window for the meter's ratio (read when measured), if known */
  constructor(contextWindow: () => number | undefined) {
    this.meter = new TokenMeter(this.events, contextWindow);
    this.pairing = new ToolPairingIndex(this.surface);
  }

  /** Folds one stored event into every projection; returns its surface delta (`undefined` for log-only events). */
  fold(event: SessionEvent): SurfaceDelta | undefined {
    this.events.push(event);
    this.turns.apply(event);
    this.brackets.apply(event);
    if (isEventOf(event, 'request/header')) {
      const data: unknown = event.data;
      this.#latestHeader = isRecord(data) && isRecord(data.header) ? (data.header as RequestHeaderData['header']) : undefined;
    }
    // The claim armed by the previous event prices this one; then this event consumes it (or arms a new one).
    const pricing = this.claim.pricing(event);
    const delta = this.#updateSurface(event);
    this.meter.apply(event, delta, pricing);
    this.pairing.apply(event, delta);
    this.claim.apply(event);
    return delta;
  }

  /** The open turn, or `null`. */
  openTurn(): { readonly turn: number } | null {
    const turn = this.turns.openTurn;
    return turn === null ? null : { turn };
  }

  /** The open step with its turn, or `null`. */
  openStep(): OpenStep | null {
    const { openTurn, openStep } = this.turns;
    return openTurn === null || openStep === null ? null : { turn: openTurn, step: openStep };
  }

  /** The open, non-stale compaction brackets (at most one); the shared empty list when none is open. */
  openBrackets(): readonly OpenBracket[] {
    const open = this.brackets.open;
    return open === undefined ? NO_OPEN_BRACKETS : Object.freeze([Object.freeze({ ...open })]);
  }

  /** The greatest turn number started in the log, or `null`. */
  highestTurn(): number | null {
    return this.turns.maxTurn;
  }

  /** The `data.header` of the latest `request/header` event, or `undefined`. */
  latestRequestHeader(): RequestHeaderData['header'] | undefined {
    return this.#latestHeader;
  }

  #updateSurface(event: SessionEvent): SurfaceDelta | undefined {
    const op = event.surfaceOp;
    if (op === undefined || !isSurfaceType(event.type)) return undefined;
    if (op === 'append') return this.surface.append(event.seq);
    return this.surface.replace(this.surface.positionOf(op.start), this.surface.positionOf(op.end), event.seq);
  }
}

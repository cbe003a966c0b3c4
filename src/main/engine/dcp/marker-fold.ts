/**
 * Boundary markers as the DCP index folds them (DCP.md §3.1 "markers", §4.5, §9 rule 3): each marker by ref (the
 * first one written), the marker at each seq, the alias lines read and the refs still waiting for one, and the
 * nudge state the markers and checkpoints drive. O(aliases of a marker) per marker; a replace of k nodes is O(k).
 */
import type { Message } from '../../../protocol/events.js';
import { isEventOf } from '../../../protocol/event-map.js';
import type { RecognizedMarker } from '../../../protocol/dcp/marker-recognition.js';
import { parseStrictMarkerLine } from '../../../protocol/dcp/marker-recognition.js';
import type { NudgeState } from '../../../protocol/dcp/nudge.js';
import { foldNudgeCheckpoint, foldNudgeMarker, INITIAL_NUDGE_STATE } from '../../../protocol/dcp/nudge.js';
import { isCheckpointClass, isNativeLike } from '../../../protocol/dcp/replace-class.js';
import type { IndexHost } from './index-host.js';
import type { IndexStep, ReplaceStep } from './index-step.js';
import type { PendingAlias } from './pending-aliases.js';
import { PendingAliases } from './pending-aliases.js';
import type { DcpWorkCounters } from './work-counters.js';

/** A DCP boundary marker (§3.1 "markers"). It is active iff its node is on the surface. */
export interface MarkerRecord {
  readonly ref: string;
  readonly seq: number;
  readonly number: number;
  /** The marker line's turn, or the node's `turnOf` when a lenient (dsh-dcp) line has none. */
  readonly turn: number;
  /** The marker line's step, or `null` when a lenient line has none. */
  readonly step: number | null;
  readonly hasNudge: boolean;
}

/** `turn="T"` / `step="S"` of a lenient marker line (dsh-dcp), when present. */
function lenientAttribute(line: string, name: 'turn' | 'step'): number | undefined {
  const match = new RegExp(`${name}="(\\d+)"`).exec(line);
  const value = match === null ? NaN : Number(match[1]);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The first line of a message's first block (a recognised marker's first block is its text). */
function firstLine(message: Message): string {
  const first = message.content[0];
  const text = first?.type === 'text' ? first.text : undefined;
  return typeof text === 'string' ? (text.split('\n', 1)[0] as string) : '';
}

/** `measure().ratio` just before the node `seq` joined the surface (§9 rule 3: `r_M`). */
function ratioBefore(seq: number, host: IndexHost): number | undefined {
  const measure = host.meter.measure();
  if (measure.contextWindow === undefined) return undefined;
  return (measure.totalTokens - (host.meter.estimateOf(seq) ?? 0)) / measure.contextWindow;
}

/** What the marker fold reads besides the event. */
export interface MarkerFoldOptions {
  /** `nudge.minRatio`: the low-pressure reset of the nudge fold. */
  readonly nudgeMinRatio: number;
  readonly counters: DcpWorkCounters;
  /** `turnOf` of the turn fold, which has folded the same event before this one. */
  readonly turnOf: (seq: number) => number;
}

/** The marker fold of one session. */
export class MarkerFold {
  readonly #options: MarkerFoldOptions;
  readonly #markers = new Map<string, MarkerRecord>();
  readonly #refBySeq = new Map<number, string>();
  #maxNumber = 0;
  readonly #aliases = new Map<string, number>();
  readonly #pending = new PendingAliases();
  #nudge: NudgeState = INITIAL_NUDGE_STATE;

  constructor(options: MarkerFoldOptions) {
    this.#options = options;
  }

  /** The greatest marker number in the log, shadowed markers included (0 when none). */
  get maxNumber(): number {
    return this.#maxNumber;
  }

  /** The marker with this ref (the first one written), or `undefined`. */
  get(ref: string): MarkerRecord | undefined {
    return this.#markers.get(ref);
  }

  /** Every marker record (the first one written per ref), in write order. O(markers). */
  records(): MarkerRecord[] {
    return [...this.#markers.values()];
  }

  /** The ref of the marker message at `seq`, or `undefined`. */
  refAt(seq: number): string | undefined {
    return this.#refBySeq.get(seq);
  }

  /** Every (seq, ref) of a marker message. */
  refsBySeq(): ReadonlyMap<number, string> {
    return this.#refBySeq;
  }

  /** The alias target of a marker ref (the first alias line for it), or `undefined`. */
  alias(ref: string): number | undefined {
    return this.#aliases.get(ref);
  }

  /** Every alias read, by ref. */
  aliases(): ReadonlyMap<string, number> {
    return this.#aliases;
  }

  /** The pending aliases (§4.5). */
  get pending(): PendingAliases {
    return this.#pending;
  }

  /** The folded nudge state (§9 rule 3). */
  get nudgeState(): NudgeState {
    return this.#nudge;
  }

  /** The first `limit` pending aliases in marker-number order (§4.5 rule 2), counting each entry examined. */
  pendingAliases(limit: number): PendingAlias[] {
    return this.#pending.first(limit, () => {
      this.#options.counters.nodesVisited += 1;
    });
  }

  /** Folds one event. */
  apply(step: IndexStep): void {
    const { event } = step;
    if (step.marker !== undefined && isEventOf(event, 'user/message')) this.#foldMarker(event.seq, event.data, step.marker, step.host);
    else if (step.replace !== undefined) this.#foldReplace(event.seq, step.replace);
  }

  #foldMarker(seq: number, message: Message, marker: RecognizedMarker, host: IndexHost): void {
    const line = firstLine(message);
    const strict = parseStrictMarkerLine(line);
    const turn = strict?.turn ?? lenientAttribute(line, 'turn') ?? this.#options.turnOf(seq);
    const step = strict?.step ?? lenientAttribute(line, 'step') ?? null;
    if (!this.#markers.has(marker.ref)) {
      this.#markers.set(marker.ref, { ref: marker.ref, seq, number: marker.number, turn, step, hasNudge: marker.hasNudge });
    }
    this.#refBySeq.set(seq, marker.ref);
    this.#maxNumber = Math.max(this.#maxNumber, marker.number);
    for (const alias of marker.aliases) {
      this.#options.counters.nodesVisited += 1;
      // §4.5 rule 4: the first line for a ref wins; a target that is not in the log is ignored.
      if (this.#aliases.has(alias.ref) || alias.seq >= seq) continue;
      this.#aliases.set(alias.ref, alias.seq);
      this.#pending.remove(alias.ref);
    }
    this.#nudge = foldNudgeMarker(this.#nudge, marker.hasNudge, ratioBefore(seq, host), this.#options.nudgeMinRatio);
  }

  #foldReplace(seq: number, replace: ReplaceStep): void {
    const kind = replace.classified.kind;
    const nativeLike = isNativeLike(kind);
    for (const shadowed of replace.delta.shadowed) {
      // A native-like replace moves a pending chain on; a DCP-class one ends it (§4.5).
      this.#options.counters.nodesVisited += this.#pending.shadowTarget(shadowed, nativeLike ? seq : undefined);
      const markerRef = this.#refBySeq.get(shadowed);
      if (markerRef !== undefined && nativeLike && !this.#aliases.has(markerRef)) {
        this.#pending.add(markerRef, this.#markers.get(markerRef)?.number ?? 0, seq);
      }
    }
    if (isCheckpointClass(kind)) this.#nudge = foldNudgeCheckpoint(this.#nudge);
  }
}

/**
 * The DCP index (DCP.md §3): all derived DCP state of one session, folded event by event. It is built once by a
 * cold replay and then kept current from the host's append notifications, with O(1) amortised work per event and
 * O(k) per replace that shadows k nodes — never a refold. Every part is a function of (log, configuration), so a
 * cold replay of any log equals the incremental result (§3.4, tested by property).
 *
 * The index is a composition of small folds, one per kind of state, each with one `apply`: turns, calls and
 * results, markers and aliases, blocks and membership, replace classes, the manual state, snapshots, brackets and
 * prefix invalidations. `apply` derives the facts several folds need once (a replace's class, a message's marker)
 * and feeds the step to each fold in turn; the queries below read the folds.
 */
import type { SessionEvent } from '../../../protocol/events.js';
import { isEventOf } from '../../../protocol/event-map.js';
import { recognizeMarker } from '../../../protocol/dcp/marker-recognition.js';
import type { NudgeState } from '../../../protocol/dcp/nudge.js';
import type { CompactionClassification } from '../../../protocol/dcp/crash-classification.js';
import type { DcpDiagnostic, ReplaceClass } from '../../../protocol/dcp/replace-class.js';
import type { SurfaceDelta } from '../../../protocol/surface-view.js';
import type { BlockRecord } from './block-fold.js';
import { BlockFold } from './block-fold.js';
import type { BracketRecord } from './bracket-records.js';
import { BracketRecords } from './bracket-records.js';
import type { CallRecord } from './call-record.js';
import type { ResultRecord } from './call-fold.js';
import { CallFold } from './call-fold.js';
import type { IndexHost } from './index-host.js';
import type { IndexStep } from './index-step.js';
import { ManualFold } from './manual-fold.js';
import type { MarkerRecord } from './marker-fold.js';
import { MarkerFold } from './marker-fold.js';
import type { PendingAlias } from './pending-aliases.js';
import type { PrefixInvalidation } from './prefix-invalidations.js';
import { PrefixInvalidations } from './prefix-invalidations.js';
import { ReplaceClasses } from './replace-classes.js';
import { SnapshotStack } from './snapshot-stack.js';
import { TurnFold } from './turn-fold.js';
import type { DedupGroups, ErrorUnits } from './strategy-candidates.js';
import { DcpWorkCounters } from './work-counters.js';

export type { BlockRecord } from './block-fold.js';
export type { ResultRecord } from './call-fold.js';
export type { MarkerRecord } from './marker-fold.js';

/** Index settings that depend on the configuration. */
export interface DcpIndexOptions {
  /** `manualMode.default`: the manual state before any command. */
  readonly manualDefault: boolean;
  /** `nudge.minRatio`: the low-pressure reset of the nudge fold. */
  readonly nudgeMinRatio: number;
  readonly counters?: DcpWorkCounters;
  /** Called once when a `foreign-dcp` diagnostic is recorded. */
  readonly onDiagnostic?: (seq: number, diagnostic: DcpDiagnostic) => void;
}

/** The folds an index is made of, in the order each event reaches them. */
export interface DcpIndexFolds {
  readonly replaces: ReplaceClasses;
  readonly turns: TurnFold;
  readonly calls: CallFold;
  readonly markers: MarkerFold;
  readonly blocks: BlockFold;
  readonly manual: ManualFold;
  readonly snapshots: SnapshotStack;
  readonly brackets: BracketRecords;
  readonly invalidations: PrefixInvalidations;
}

/** The DCP index of one session. */
export class DcpIndex {
  readonly counters: DcpWorkCounters;
  /** The folds, for readers that need a part's whole state (the replay-equality tests). */
  readonly folds: DcpIndexFolds;
  #eventCount = 0;

  constructor(options: DcpIndexOptions) {
    const counters = options.counters ?? new DcpWorkCounters();
    this.counters = counters;
    const turns = new TurnFold();
    const turnOf = (seq: number): number => turns.turnOf(seq);
    this.folds = {
      replaces: new ReplaceClasses(),
      turns,
      calls: new CallFold(turnOf),
      markers: new MarkerFold({ nudgeMinRatio: options.nudgeMinRatio, counters, turnOf }),
      blocks: new BlockFold(options.onDiagnostic),
      manual: new ManualFold(options.manualDefault, turnOf),
      snapshots: new SnapshotStack(counters),
      brackets: new BracketRecords(),
      invalidations: new PrefixInvalidations(),
    };
  }

  // ---- queries -------------------------------------------------------------------------------------------

  /** The number of events folded so far. */
  get eventCount(): number {
    return this.#eventCount;
  }

  /** The open turn as last folded, or `null`. */
  get openTurn(): number | null {
    return this.folds.turns.openTurn;
  }

  /** `turnOf[seq]` (§3.3) of a surface node, current or shadowed. O(1). */
  turnOf(seq: number): number {
    return this.folds.turns.turnOf(seq);
  }

  /** The greatest marker number in the log, shadowed markers included (0 when none). */
  get maxMarkerNumber(): number {
    return this.folds.markers.maxNumber;
  }

  /** The marker with this ref (the first one written), or `undefined`. */
  marker(ref: string): MarkerRecord | undefined {
    return this.folds.markers.get(ref);
  }

  /** Every marker record (the first one written per ref), in write order. O(markers). */
  markerRecords(): MarkerRecord[] {
    return this.folds.markers.records();
  }

  /** The ref of the marker message at `seq`, or `undefined`. */
  markerRefAt(seq: number): string | undefined {
    return this.folds.markers.refAt(seq);
  }

  /** The greatest block number of any decodable block ever written (0 when none). */
  get maxBlockNumber(): number {
    return this.folds.blocks.maxNumber;
  }

  /** The block with this ref, or `undefined`. */
  block(ref: string): BlockRecord | undefined {
    return this.folds.blocks.get(ref);
  }

  /** The ref of the block whose checkpoint is `seq`, or `undefined`. */
  blockRefAt(seq: number): string | undefined {
    return this.folds.blocks.refAt(seq);
  }

  /** The ref of the **active** block whose checkpoint is `seq`, or `undefined`. */
  activeBlockRefAt(seq: number): string | undefined {
    return this.folds.blocks.activeRefAt(seq);
  }

  /** Every block in ref-number order. */
  blocks(): BlockRecord[] {
    return this.folds.blocks.list();
  }

  /** The diagnostic of an undecodable DCP checkpoint at `seq`, or `undefined` (§6.4). */
  diagnostic(seq: number): DcpDiagnostic | undefined {
    return this.folds.blocks.diagnostic(seq);
  }

  /** Every diagnostic in seq order. */
  diagnostics(): Array<{ readonly seq: number } & DcpDiagnostic> {
    return this.folds.blocks.diagnostics();
  }

  /** The alias target of a marker ref (the first alias line for it), or `undefined`. */
  alias(ref: string): number | undefined {
    return this.folds.markers.alias(ref);
  }

  /** The first `limit` pending aliases in marker-number order (§4.5 rule 2). */
  pendingAliases(limit: number): PendingAlias[] {
    return this.folds.markers.pendingAliases(limit);
  }

  /** The number of pending aliases. */
  get pendingAliasCount(): number {
    return this.folds.markers.pending.size;
  }

  /** The call with this id (the latest one when a provider reused ids), or `undefined`. */
  call(callId: string): CallRecord | undefined {
    return this.folds.calls.call(callId);
  }

  /** The original tool result appended at `seq`, or `undefined`. */
  result(seq: number): ResultRecord | undefined {
    return this.folds.calls.result(seq);
  }

  /** The dedup groups and their dirty set (§8.3). */
  get dedupGroups(): DedupGroups {
    return this.folds.calls.dedupGroups;
  }

  /** The errored originals waiting for the purge age (§8.4). */
  get errorUnits(): ErrorUnits {
    return this.folds.calls.errorUnits;
  }

  /** The class of the replacing event `seq`, or `undefined` for any other seq. */
  replaceClass(seq: number): ReplaceClass | undefined {
    return this.folds.replaces.get(seq);
  }

  /** The newest `form:'snapshot'` user message still on the surface, or `undefined`. */
  get latestSnapshot(): number | undefined {
    return this.folds.snapshots.latest;
  }

  /** The bracket records. */
  get brackets(): {
    readonly open: BracketRecord | undefined;
    get(startSeq: number): BracketRecord | undefined;
    hasCompactionId(id: string): boolean;
    list(): BracketRecord[];
  } {
    return this.folds.brackets;
  }

  /** The crash classification of the last bracket (§13.3). O(1). */
  classifyLastBracket(): CompactionClassification {
    return this.folds.brackets.classifyLast();
  }

  /** The replayed manual state (§11.4). */
  get manualOn(): boolean {
    return this.folds.manual.manualOn;
  }

  /** `turnOf` of the latest manual trigger message, or `undefined`. */
  get lastTriggerTurn(): number | undefined {
    return this.folds.manual.lastTriggerTurn;
  }

  /** The folded nudge state (§9 rule 3). */
  get nudgeState(): NudgeState {
    return this.folds.markers.nudgeState;
  }

  /** The prefix-invalidation records (§14). */
  get invalidations(): { readonly count: number; list(): PrefixInvalidation[]; recent(count: number): PrefixInvalidation[] } {
    return this.folds.invalidations;
  }

  // ---- folding -------------------------------------------------------------------------------------------

  /**
   * Folds one stored event. `delta` is the host's notification delta, and `host` shows the surface and meter as
   * they stand right after the event. Read-only towards the host.
   */
  apply(event: SessionEvent, delta: SurfaceDelta | undefined, host: IndexHost): void {
    this.counters.nodesVisited += 1;
    this.#eventCount = event.seq + 1;
    const folds = this.folds;
    const appended = delta?.kind === 'append';
    const replaceDelta = delta?.kind === 'replace' ? delta : undefined;
    const classified = folds.replaces.apply(event, replaceDelta !== undefined);
    const replace = replaceDelta === undefined || classified === undefined ? undefined : { delta: replaceDelta, classified };
    // Each shadowed node is visited once by the folds together.
    if (replace !== undefined) this.counters.nodesVisited += replace.delta.shadowed.length;
    const step: IndexStep = {
      event,
      appended,
      replace,
      marker: appended && isEventOf(event, 'user/message') ? recognizeMarker(event.data) : undefined,
      host,
    };
    // The turn fold goes first: the call, marker and manual folds read `turnOf` of the same event.
    folds.turns.apply(step);
    folds.calls.apply(step);
    folds.markers.apply(step);
    folds.blocks.apply(step);
    folds.manual.apply(step);
    folds.snapshots.apply(step);
    folds.brackets.apply(event);
    folds.invalidations.apply(step);
  }
}

/**
 * The DCP index (DCP.md §3): all derived DCP state of one session, folded event by event. It is built once by a
 * cold replay and then kept current from the host's append notifications, with O(1) amortised work per event and
 * O(k) per replace that shadows k nodes — never a refold. Every part is a function of (log, configuration), so a
 * cold replay of any log equals the incremental result (§3.4, tested by property).
 */
import type { SessionEvent } from '../../protocol/events.js';
import { isRecord } from '../../protocol/events.js';
import type { DcpMetaV1 } from '../../protocol/dcp/dcp-meta.js';
import { manualStateFromCommand } from '../../protocol/dcp/manual-replay.js';
import type { RecognizedMarker } from '../../protocol/dcp/marker-recognition.js';
import { parseStrictMarkerLine, recognizeMarker } from '../../protocol/dcp/marker-recognition.js';
import type { NudgeState } from '../../protocol/dcp/nudge.js';
import { foldNudgeCheckpoint, foldNudgeMarker, INITIAL_NUDGE_STATE } from '../../protocol/dcp/nudge.js';
import { blockNumber } from '../../protocol/dcp/refs.js';
import { isManualTriggerMessage } from '../../protocol/dcp/trigger-message.js';
import type { CompactionClassification } from '../../protocol/dcp/crash-classification.js';
import type { SurfaceDelta } from '../../protocol/surface-view.js';
import { SeqTable } from '../host/seq-table.js';
import type { BracketRecord } from './bracket-records.js';
import type { CallRecord } from './call-record.js';
import { CallEntry, rawArguments } from './call-record.js';
import { BracketRecords } from './bracket-records.js';
import type { IndexHost } from './index-host.js';
import type { PendingAlias } from './pending-aliases.js';
import { PendingAliases } from './pending-aliases.js';
import type { PrefixInvalidation } from './prefix-invalidations.js';
import { PrefixInvalidations } from './prefix-invalidations.js';
import type { DcpDiagnostic, ReplaceClass } from '../../protocol/dcp/replace-class.js';
import { classifyReplace, isCheckpointClass, isDcpClass, isNativeLike } from '../../protocol/dcp/replace-class.js';
import { DedupGroups, ErrorUnits } from './strategy-candidates.js';
import { DcpWorkCounters } from './work-counters.js';

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

/** Membership of a block (§13.1). */
export type BlockMembership = 'active' | 'consumed' | 'expanded' | 'absorbed-native';

/** A DCP block: a checkpoint carrying metadata v1 (§3.1 "blocks"). */
export interface BlockRecord {
  readonly ref: string;
  /** The checkpoint's seq. */
  readonly seq: number;
  readonly meta: DcpMetaV1;
  readonly membership: BlockMembership;
  /** The block that consumed or expanded it. */
  readonly successor?: string;
}

/** An original (appended) tool result (§3.1 "results"). */
export interface ResultRecord {
  readonly callId: string;
  readonly isError: boolean;
  readonly turn: number;
}

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

interface MutableBlock {
  readonly ref: string;
  readonly seq: number;
  readonly meta: DcpMetaV1;
  membership: BlockMembership;
  successor?: string;
}

function field(data: unknown, key: string): unknown {
  return isRecord(data) ? data[key] : undefined;
}

/** `turn="T"` / `step="S"` of a lenient marker line (dsh-dcp), when present. */
function lenientAttribute(line: string, name: 'turn' | 'step'): number | undefined {
  const match = new RegExp(`${name}="(\\d+)"`).exec(line);
  const value = match === null ? NaN : Number(match[1]);
  return Number.isSafeInteger(value) ? value : undefined;
}

function firstLine(message: unknown): string {
  const content = field(message, 'content');
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const text = field(first, 'text');
  return typeof text === 'string' ? (text.split('\n', 1)[0] as string) : '';
}

function membershipAfter(kind: ReplaceClass): BlockMembership {
  if (kind === 'dcp-summary') return 'consumed';
  if (kind === 'dcp-expansion') return 'expanded';
  return 'absorbed-native';
}

/** The DCP index of one session. */
export class DcpIndex {
  readonly counters: DcpWorkCounters;
  readonly #options: DcpIndexOptions;
  readonly #turnOf = new SeqTable();
  #openTurn: number | null = null;
  #lastStartedTurn = 0;
  #previous: SessionEvent | undefined;
  #eventCount = 0;

  readonly #markers = new Map<string, MarkerRecord>();
  readonly #markerRefBySeq = new Map<number, string>();
  #maxMarkerNumber = 0;

  readonly #blocks = new Map<string, MutableBlock>();
  readonly #blockRefBySeq = new Map<number, string>();
  #maxBlockNumber = 0;

  readonly #diagnostics = new Map<number, DcpDiagnostic>();
  readonly #aliases = new Map<string, number>();
  readonly #pending = new PendingAliases();

  readonly #calls = new Map<string, CallEntry>();
  readonly #results = new Map<number, ResultRecord>();
  readonly #replaceClasses = new Map<number, ReplaceClass>();
  readonly #dedupGroups = new DedupGroups();
  readonly #errorUnits = new ErrorUnits();
  /** Snapshot seqs in seq order; the last one is always on the surface (popped eagerly after replaces). */
  readonly #snapshots: number[] = [];

  readonly #brackets = new BracketRecords();
  readonly #invalidations = new PrefixInvalidations();
  readonly #runningCommands = new Map<string, { readonly name: unknown; readonly args: unknown }>();
  #manualOn: boolean;
  #lastTriggerTurn: number | undefined;
  #nudge: NudgeState = INITIAL_NUDGE_STATE;

  constructor(options: DcpIndexOptions) {
    this.#options = options;
    this.counters = options.counters ?? new DcpWorkCounters();
    this.#manualOn = options.manualDefault;
  }

  // ---- queries -------------------------------------------------------------------------------------------

  /** The number of events folded so far. */
  get eventCount(): number {
    return this.#eventCount;
  }

  /** The open turn as last folded, or `null`. */
  get openTurn(): number | null {
    return this.#openTurn;
  }

  /** `turnOf[seq]` (§3.3) of a surface node, current or shadowed. O(1). */
  turnOf(seq: number): number {
    return this.#turnOf.get(seq);
  }

  /** The greatest marker number in the log, shadowed markers included (0 when none). */
  get maxMarkerNumber(): number {
    return this.#maxMarkerNumber;
  }

  /** The marker with this ref (the first one written), or `undefined`. */
  marker(ref: string): MarkerRecord | undefined {
    return this.#markers.get(ref);
  }

  /** Every marker record (the first one written per ref), in write order. O(markers). */
  markerRecords(): MarkerRecord[] {
    return [...this.#markers.values()];
  }

  /** The ref of the marker message at `seq`, or `undefined`. */
  markerRefAt(seq: number): string | undefined {
    return this.#markerRefBySeq.get(seq);
  }

  /** The greatest block number of any decodable block ever written (0 when none). */
  get maxBlockNumber(): number {
    return this.#maxBlockNumber;
  }

  /** The block with this ref, or `undefined`. */
  block(ref: string): BlockRecord | undefined {
    const block = this.#blocks.get(ref);
    return block === undefined ? undefined : { ...block };
  }

  /** The ref of the block whose checkpoint is `seq`, or `undefined`. */
  blockRefAt(seq: number): string | undefined {
    return this.#blockRefBySeq.get(seq);
  }

  /** The ref of the **active** block whose checkpoint is `seq`, or `undefined`. */
  activeBlockRefAt(seq: number): string | undefined {
    const ref = this.#blockRefBySeq.get(seq);
    return ref !== undefined && this.#blocks.get(ref)?.membership === 'active' ? ref : undefined;
  }

  /** Every block in ref-number order. */
  blocks(): BlockRecord[] {
    return [...this.#blocks.values()].sort((a, b) => (blockNumber(a.ref) ?? 0) - (blockNumber(b.ref) ?? 0)).map((block) => ({ ...block }));
  }

  /** The diagnostic of an undecodable DCP checkpoint at `seq`, or `undefined` (§6.4). */
  diagnostic(seq: number): DcpDiagnostic | undefined {
    return this.#diagnostics.get(seq);
  }

  /** Every diagnostic in seq order. */
  diagnostics(): Array<{ readonly seq: number } & DcpDiagnostic> {
    return [...this.#diagnostics].sort(([a], [b]) => a - b).map(([seq, diagnostic]) => ({ seq, ...diagnostic }));
  }

  /** The alias target of a marker ref (the first alias line for it), or `undefined`. */
  alias(ref: string): number | undefined {
    return this.#aliases.get(ref);
  }

  /** The first `limit` pending aliases in marker-number order (§4.5 rule 2). */
  pendingAliases(limit: number): PendingAlias[] {
    return this.#pending.first(limit, () => {
      this.counters.nodesVisited += 1;
    });
  }

  /** The number of pending aliases. */
  get pendingAliasCount(): number {
    return this.#pending.size;
  }

  /** The call with this id (the latest one when a provider reused ids), or `undefined`. */
  call(callId: string): CallRecord | undefined {
    return this.#calls.get(callId);
  }

  /** The original tool result appended at `seq`, or `undefined`. */
  result(seq: number): ResultRecord | undefined {
    return this.#results.get(seq);
  }

  /** The dedup groups and their dirty set (§8.3). */
  get dedupGroups(): DedupGroups {
    return this.#dedupGroups;
  }

  /** The errored originals waiting for the purge age (§8.4). */
  get errorUnits(): ErrorUnits {
    return this.#errorUnits;
  }

  /** The class of the replacing event `seq`, or `undefined` for any other seq. */
  replaceClass(seq: number): ReplaceClass | undefined {
    return this.#replaceClasses.get(seq);
  }

  /** The newest `form:'snapshot'` user message still on the surface, or `undefined`. */
  get latestSnapshot(): number | undefined {
    return this.#snapshots.at(-1);
  }

  /** The bracket records. */
  get brackets(): { readonly open: BracketRecord | undefined; get(startSeq: number): BracketRecord | undefined; hasCompactionId(id: string): boolean; list(): BracketRecord[] } {
    return this.#brackets;
  }

  /** The crash classification of the last bracket (§13.3). O(1). */
  classifyLastBracket(): CompactionClassification {
    return this.#brackets.classifyLast();
  }

  /** The replayed manual state (§11.4). */
  get manualOn(): boolean {
    return this.#manualOn;
  }

  /** `turnOf` of the latest manual trigger message, or `undefined`. */
  get lastTriggerTurn(): number | undefined {
    return this.#lastTriggerTurn;
  }

  /** The folded nudge state (§9 rule 3). */
  get nudgeState(): NudgeState {
    return this.#nudge;
  }

  /** The prefix-invalidation records (§14). */
  get invalidations(): { readonly count: number; list(): PrefixInvalidation[]; recent(count: number): PrefixInvalidation[] } {
    return this.#invalidations;
  }

  // ---- folding -------------------------------------------------------------------------------------------

  /**
   * Folds one stored event. `delta` is the host's notification delta, and `host` shows the surface and meter as
   * they stand right after the event. Read-only towards the host.
   */
  apply(event: SessionEvent, delta: SurfaceDelta | undefined, host: IndexHost): void {
    this.counters.nodesVisited += 1;
    this.#eventCount = event.seq + 1;
    switch (event.type) {
      case 'turn/start': {
        const turn = field(event.data, 'turn');
        if (typeof turn === 'number') {
          this.#openTurn = turn;
          this.#lastStartedTurn = turn;
        }
        break;
      }
      case 'turn/end':
        this.#openTurn = null;
        break;
      case 'step/start':
        this.#invalidations.closeWindow();
        break;
      case 'tool/call':
        this.#foldToolCall(event);
        break;
      case 'command/run':
        this.#runningCommands.set(String(field(event.data, 'commandId')), { name: field(event.data, 'name'), args: field(event.data, 'args') });
        break;
      case 'command/done':
        this.#foldCommandDone(event);
        break;
      default:
        break;
    }
    this.#brackets.apply(event);
    if (delta?.kind === 'append') this.#foldAppend(event, host);
    else if (delta?.kind === 'replace') this.#foldReplace(event, delta, host);
    this.#previous = event;
  }

  #foldCommandDone(event: SessionEvent): void {
    const commandId = String(field(event.data, 'commandId'));
    const run = this.#runningCommands.get(commandId);
    if (run === undefined) return;
    this.#runningCommands.delete(commandId);
    const state = manualStateFromCommand(run.name, run.args, field(event.data, 'kind'));
    if (state !== undefined) this.#manualOn = state;
  }

  #foldToolCall(event: SessionEvent): void {
    const callId = field(event.data, 'callId');
    if (typeof callId !== 'string') return;
    const existing = this.#calls.get(callId);
    if (existing !== undefined && existing.callSeq === undefined) {
      existing.callSeq = event.seq;
      return;
    }
    const name = field(event.data, 'name');
    const entry = new CallEntry(callId, typeof name === 'string' ? name : '', rawArguments(field(event.data, 'arguments')));
    entry.callSeq = event.seq;
    this.#calls.set(callId, entry);
  }

  #foldAppend(event: SessionEvent, host: IndexHost): void {
    switch (event.type) {
      case 'user/message': {
        this.#turnOf.set(event.seq, this.#openTurn ?? this.#lastStartedTurn);
        const message = event.data;
        const marker = recognizeMarker(message);
        if (marker !== undefined) this.#foldMarker(event, marker, host);
        else if (isManualTriggerMessage(message)) this.#lastTriggerTurn = this.#turnOf.get(event.seq);
        if (field(field(message, 'source'), 'form') === 'snapshot') this.#snapshots.push(event.seq);
        break;
      }
      case 'assistant/message': {
        this.#turnOf.set(event.seq, Number(field(event.data, 'turn')));
        const content = field(field(event.data, 'message'), 'content');
        if (!Array.isArray(content)) break;
        for (const block of content) {
          if (!isRecord(block) || block['type'] !== 'tool-call' || typeof block['id'] !== 'string') continue;
          const entry = new CallEntry(block['id'], typeof block['name'] === 'string' ? block['name'] : '', rawArguments(block['arguments']));
          entry.assistantSeq = event.seq;
          this.#calls.set(block['id'], entry);
        }
        break;
      }
      case 'tool/result': {
        const turn = Number(field(event.data, 'turn'));
        this.#turnOf.set(event.seq, turn);
        const message = field(event.data, 'message');
        const content = field(message, 'content');
        const first: unknown = Array.isArray(content) ? content[0] : undefined;
        const callId = field(first, 'toolCallId') ?? field(field(message, 'source'), 'callId');
        const isError = field(first, 'isError') === true;
        this.#results.set(event.seq, { callId: String(callId), isError, turn });
        const call = this.#calls.get(String(callId));
        if (call !== undefined) this.#dedupGroups.add(event.seq, call.key);
        if (isError) this.#errorUnits.add(event.seq);
        break;
      }
      default:
        break;
    }
  }

  #foldMarker(event: SessionEvent, marker: RecognizedMarker, host: IndexHost): void {
    const line = firstLine(event.data);
    const strict = parseStrictMarkerLine(line);
    const turn = strict?.turn ?? lenientAttribute(line, 'turn') ?? this.#turnOf.get(event.seq);
    const step = strict?.step ?? lenientAttribute(line, 'step') ?? null;
    if (!this.#markers.has(marker.ref)) {
      this.#markers.set(marker.ref, { ref: marker.ref, seq: event.seq, number: marker.number, turn, step, hasNudge: marker.hasNudge });
    }
    this.#markerRefBySeq.set(event.seq, marker.ref);
    this.#maxMarkerNumber = Math.max(this.#maxMarkerNumber, marker.number);
    for (const alias of marker.aliases) {
      this.counters.nodesVisited += 1;
      // §4.5 rule 4: the first line for a ref wins; a target that is not in the log is ignored.
      if (this.#aliases.has(alias.ref) || alias.seq >= event.seq) continue;
      this.#aliases.set(alias.ref, alias.seq);
      this.#pending.remove(alias.ref);
    }
    this.#nudge = foldNudgeMarker(this.#nudge, marker.hasNudge, this.#ratioBefore(event.seq, host), this.#options.nudgeMinRatio);
  }

  /** `measure().ratio` just before the node `seq` joined the surface (§9 rule 3: `r_M`). */
  #ratioBefore(seq: number, host: IndexHost): number | undefined {
    const measure = host.meter.measure();
    if (measure.contextWindow === undefined) return undefined;
    return (measure.totalTokens - (host.meter.estimateOf(seq) ?? 0)) / measure.contextWindow;
  }

  #foldReplace(event: SessionEvent, delta: Extract<SurfaceDelta, { kind: 'replace' }>, host: IndexHost): void {
    const classified = classifyReplace(event, this.#previous);
    const kind = classified.kind;
    this.#replaceClasses.set(event.seq, kind);
    const shadowed = delta.shadowed;
    if (event.type === 'user/message') {
      let turn = 0;
      for (const seq of shadowed) turn = Math.max(turn, this.#turnOf.get(seq));
      this.#turnOf.set(event.seq, turn);
    } else {
      this.#turnOf.set(event.seq, Number(field(event.data, 'turn')));
    }
    this.#invalidations.recordReplace(event.seq, delta.position, host.surface.length - 1 + shadowed.length, isDcpClass(kind));

    let newBlockRef: string | undefined;
    if (classified.kind === 'dcp-summary' || classified.kind === 'dcp-expansion') {
      newBlockRef = classified.meta.blockRef;
      this.#maxBlockNumber = Math.max(this.#maxBlockNumber, blockNumber(newBlockRef) ?? 0);
      if (!this.#blocks.has(newBlockRef)) {
        this.#blocks.set(newBlockRef, { ref: newBlockRef, seq: event.seq, meta: classified.meta, membership: 'active' });
        this.#blockRefBySeq.set(event.seq, newBlockRef);
      }
    } else if (classified.kind === 'foreign-dcp') {
      this.#diagnostics.set(event.seq, classified.diagnostic);
      this.#options.onDiagnostic?.(event.seq, classified.diagnostic);
    }

    const nativeLike = isNativeLike(kind);
    for (const seq of shadowed) {
      this.counters.nodesVisited += 1;
      const blockRef = this.#blockRefBySeq.get(seq);
      const block = blockRef === undefined ? undefined : this.#blocks.get(blockRef);
      if (block !== undefined && block.membership === 'active') {
        block.membership = membershipAfter(kind);
        if (newBlockRef !== undefined) block.successor = newBlockRef;
      }
      this.counters.nodesVisited += this.#pending.shadowTarget(seq, nativeLike ? event.seq : undefined);
      this.#dedupGroups.remove(seq);
      const markerRef = this.#markerRefBySeq.get(seq);
      if (markerRef !== undefined && nativeLike && !this.#aliases.has(markerRef)) {
        const number = this.#markers.get(markerRef)?.number ?? 0;
        this.#pending.add(markerRef, number, event.seq);
      }
    }

    if (isCheckpointClass(kind)) this.#nudge = foldNudgeCheckpoint(this.#nudge);
    if (event.type === 'user/message' && field(field(event.data, 'source'), 'form') === 'snapshot') this.#snapshots.push(event.seq);
    while (this.#snapshots.length > 0 && !host.surface.has(this.#snapshots.at(-1) as number)) {
      this.counters.nodesVisited += 1;
      this.#snapshots.pop();
    }
  }

  // ---- snapshot ------------------------------------------------------------------------------------------

  /**
   * Every index part as plain data (§3.4: everything except pending controls), for comparing an incremental
   * index with a cold replay. `events` is the log the index folded. O(log); meant for tests.
   */
  snapshot(events: readonly SessionEvent[]): Record<string, unknown> {
    const turnOf: Array<[number, number]> = [];
    for (const event of events.slice(0, this.#eventCount)) {
      if (event.surfaceOp !== undefined && (event.type === 'user/message' || event.type === 'assistant/message' || event.type === 'tool/result')) {
        turnOf.push([event.seq, this.#turnOf.get(event.seq)]);
      }
    }
    const sortedEntries = <V>(map: ReadonlyMap<string | number, V>): Array<[string | number, V]> =>
      [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      eventCount: this.#eventCount,
      openTurn: this.#openTurn,
      lastStartedTurn: this.#lastStartedTurn,
      turnOf,
      markers: sortedEntries(this.#markers),
      markerRefBySeq: sortedEntries(this.#markerRefBySeq),
      maxMarkerNumber: this.#maxMarkerNumber,
      blocks: this.blocks(),
      blockRefBySeq: sortedEntries(this.#blockRefBySeq),
      maxBlockNumber: this.#maxBlockNumber,
      diagnostics: this.diagnostics(),
      aliases: sortedEntries(this.#aliases),
      pendingAliases: this.#pending.list(),
      calls: sortedEntries(this.#calls).map(([, call]) => call.toJSON()),
      results: sortedEntries(this.#results),
      replaceClasses: sortedEntries(this.#replaceClasses),
      dedupGroups: this.#dedupGroups.toJSON(),
      errorUnits: this.#errorUnits.toJSON(),
      snapshots: [...this.#snapshots],
      brackets: this.#brackets.list(),
      openBracket: this.#brackets.open?.startSeq ?? null,
      lastBracketClass: this.#brackets.classifyLast(),
      runningCommands: sortedEntries(this.#runningCommands),
      manualOn: this.#manualOn,
      lastTriggerTurn: this.#lastTriggerTurn ?? null,
      nudge: { ...this.#nudge },
      invalidations: this.#invalidations.list(),
    };
  }
}

/**
 * The automatic strategies (DCP.md §8): deduplication (§8.3) and purge-errors (§8.4), planned against the current
 * surface and appended as one batch of prune units in ascending surface position, in one synchronous run (§8.2).
 * Each unit is a `compaction/prune` directly followed by its priced replace (§1 rule 4, §6.5).
 */
import { errorMessage } from '../../../protocol/errors.js';
import type { Message, SessionEvent } from '../../../protocol/events.js';
import type { ToolResultBlock, ToolResultData } from '../../../protocol/events.js';
import { isEventOf } from '../../../protocol/event-map.js';
import { isTextBlock, isToolCallBlock } from '../../../protocol/dcp/stored-blocks.js';
import { COMPRESS_TOOL_NAME, DCP_MESSAGE_SOURCE } from '../../../protocol/dcp/constants.js';
import { dedupReplacementMessage, purgeText } from '../../../protocol/dcp/strategy-texts.js';
import { createUserMessage } from '../../../protocol/user-message.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import type { HostSession } from '../../host-api/host-api.js';
import type { SessionEventMap } from '../../../protocol/event-map.js';
import type { SurfaceReader } from '../../../protocol/surface-view.js';
import { estimateMessage } from '../../../protocol/token-estimator.js';
import type { ToolPairingReader } from '../../host-api/host-api.js';
import { toolPairingBalancedAfter, toolPairingBalancedBefore } from '../../host-api/tool-pairing.js';
import type { DcpIndex } from './dcp-index.js';
import type { DcpRuntime } from './dcp-runtime.js';
import type { DcpSessionContext } from './dcp-session-context.js';
import { assertNever } from '../../../protocol/assert-never.js';

/** What the batch reads and writes; a `Session` satisfies it. */
export interface StrategyTarget {
  readonly surface: SurfaceReader;
  readonly events: readonly SessionEvent[];
  readonly meter: { estimateOf(seq: number): number | undefined };
  readonly toolPairing: ToolPairingReader;
  readonly append: HostSession['append'];
  openBrackets(): readonly unknown[];
}

/** Which strategies a batch runs. */
export interface StrategySelection {
  readonly deduplication: boolean;
  readonly purgeErrors: boolean;
}

/** The result of a batch with no candidate. */
const NOTHING_PLANNED: StrategyBatchResult = Object.freeze({
  kind: 'ran',
  deduplicated: 0,
  purged: 0,
  tokensSaved: 0,
  firstPosition: undefined,
});

/** One planned prune unit: the shadowed seqs (surface order) and the replacing event, typed by its event type. */
type PruneUnit = {
  readonly kind: 'dedup' | 'purge';
  readonly shadowed: readonly number[];
  readonly position: number;
  readonly replacementTokens: number;
} & (
  | { readonly type: 'tool/result'; readonly data: SessionEventMap['tool/result'] }
  | { readonly type: 'user/message'; readonly data: SessionEventMap['user/message'] }
);

/** The outcome of one batch (§8.2). */
export type StrategyBatchResult =
  /** The session holds an open bracket: nothing was planned or written (§13.2). */
  | { readonly kind: 'busy' }
  | {
      readonly kind: 'ran';
      readonly deduplicated: number;
      readonly purged: number;
      /** Σ (shadowed tokens − replacement tokens) over the written units. */
      readonly tokensSaved: number;
      /** The surface position of the first written unit, `undefined` when none was written. */
      readonly firstPosition: number | undefined;
      /** The host's refusal that stopped the batch, if any. */
      readonly hostError?: string;
    };

/** The inner text blocks of a tool result's tool-result block (§8.4 rule 2); other inner blocks are skipped. */
function innerTexts(event: SessionEvent | undefined): string[] {
  if (event === undefined || !isEventOf(event, 'tool/result')) return [];
  const first = event.data.message.content[0] as ToolResultBlock | undefined;
  const inner: readonly unknown[] = first?.content ?? [];
  return inner.filter(isTextBlock).map((block) => block.text);
}

/** The number of tool-call blocks of an assistant event (0 for any other event). */
function toolCallCount(event: SessionEvent | undefined): number {
  if (event === undefined || !isEventOf(event, 'assistant/message')) return 0;
  const content: readonly unknown[] = event.data.message.content;
  return content.filter(isToolCallBlock).length;
}

/** A current surface result of a known call, with the facts both strategies need. */
interface Candidate {
  readonly seq: number;
  readonly isError: boolean;
  readonly turn: number;
  readonly name: string;
  readonly filePaths: readonly string[];
  readonly assistantSeq: number | undefined;
}

/** The candidate facts of an original result `seq`, or `undefined` when its call is unknown. O(1). */
function candidateAt(index: DcpIndex, seq: number): Candidate | undefined {
  index.counters.nodesVisited += 1;
  const result = index.result(seq);
  const call = result === undefined ? undefined : index.call(result.callId);
  if (result === undefined || call === undefined) return undefined;
  return {
    seq,
    isError: result.isError,
    turn: index.turnOf(seq),
    name: call.name,
    filePaths: call.filePaths,
    assistantSeq: call.assistantSeq,
  };
}

/**
 * §8.3: the dedup units, from the dirty groups only (§8.3 rule 1: the groups hold current original results, so
 * replacements are never candidates). `chosen` collects the pruned result seqs. A group is marked clean when
 * nothing in it is prunable now or later by ageing; a group with units stays dirty until its replaces land.
 */
function planDeduplication({ runtime, index, session: target }: DcpSessionContext, currentTurn: number, chosen: Set<number>): PruneUnit[] {
  const protectedTools = new Set(runtime.config.strategies.deduplication.protectedTools);
  const limit = currentTurn - runtime.config.compress.retainRecentTurns;
  const groups = index.dedupGroups;
  const units: PruneUnit[] = [];
  for (const key of groups.dirtyKeys()) {
    const group = groups
      .members(key)
      .map((seq) => candidateAt(index, seq))
      .filter((candidate): candidate is Candidate => candidate !== undefined);
    const sample = group[0];
    // One key means one tool name and equal arguments, so the exclusions of rule 2 hold for every member alike.
    if (
      sample === undefined ||
      sample.name === COMPRESS_TOOL_NAME ||
      protectedTools.has(sample.name) ||
      sample.filePaths.some((path) => runtime.matchesProtectedFile(path))
    ) {
      groups.markClean(key);
      continue;
    }
    // §8.3 rule 4: the newest success, or the newest member when every member failed. Groups are in seq order.
    let keeper = group[group.length - 1] as Candidate;
    for (let i = group.length - 1; i >= 0; i -= 1) {
      if (!(group[i] as Candidate).isError) {
        keeper = group[i] as Candidate;
        break;
      }
    }
    let waiting = false;
    let planned = false;
    for (const member of group) {
      if (member.seq >= keeper.seq) continue;
      if (member.turn > limit) {
        waiting = true;
        continue;
      }
      // Group members are appended tool results (the call fold adds nothing else).
      const event = target.events[member.seq];
      if (event === undefined || !isEventOf(event, 'tool/result')) continue;
      const replaced = dedupReplacementMessage(event.data.message, member.name);
      if (replaced === undefined) continue;
      chosen.add(member.seq);
      planned = true;
      // Every data field (turn, step, error, meta, …) is copied; only `message` changes, in its own key slot.
      units.push({
        kind: 'dedup',
        shadowed: [member.seq],
        position: target.surface.positionOf(member.seq),
        type: 'tool/result',
        data: { ...event.data, message: replaced } satisfies ToolResultData,
        replacementTokens: estimateMessage(replaced),
      });
    }
    if (!waiting && !planned) groups.markClean(key);
  }
  return units;
}

/** §8.4: the purge units among the errored results that reached the purge age, leaving out results `chosen` by dedup. */
function planPurge({ runtime, index, session: target }: DcpSessionContext, currentTurn: number, chosen: ReadonlySet<number>): PruneUnit[] {
  const settings = runtime.config.strategies.purgeErrors;
  const protectedTools = new Set(settings.protectedTools);
  const units: PruneUnit[] = [];
  for (const seq of index.errorUnits.takeAged(currentTurn - settings.turns, (at) => index.turnOf(at))) {
    if (chosen.has(seq) || !target.surface.has(seq)) continue;
    const candidate = candidateAt(index, seq);
    if (candidate === undefined || protectedTools.has(candidate.name)) continue;
    const assistantSeq = candidate.assistantSeq;
    if (assistantSeq === undefined || !target.surface.has(assistantSeq)) continue;
    if (toolCallCount(target.events[assistantSeq]) !== 1) continue;
    const position = target.surface.positionOf(assistantSeq);
    // The slice must be exactly [a, r], with pairing-balanced cuts on both sides.
    if (target.surface.at(position + 1) !== seq) continue;
    if (!toolPairingBalancedBefore(target, assistantSeq) || !toolPairingBalancedAfter(target, seq)) continue;
    // `content` before `source`: dsh-dcp's key order for the user messages it writes.
    const message = createUserMessage({
      content: [{ type: 'text', text: purgeText(candidate.name, innerTexts(target.events[seq])) }],
      source: { ...DCP_MESSAGE_SOURCE },
    });
    const replacementTokens = estimateMessage(message as unknown as Message);
    const shadowedTokens = (target.meter.estimateOf(assistantSeq) ?? 0) + (target.meter.estimateOf(seq) ?? 0);
    if (replacementTokens >= shadowedTokens) continue;
    units.push({
      kind: 'purge',
      shadowed: [assistantSeq, seq],
      position,
      type: 'user/message',
      data: message satisfies UserMessage,
      replacementTokens,
    });
  }
  return units;
}

/**
 * Plans and writes one strategy batch for `currentTurn` (§8.2). Synchronous; never throws for a host refusal:
 * the first refused append stops the batch and is reported in `hostError`.
 */
export function runStrategyBatch(context: DcpSessionContext, currentTurn: number, selection: StrategySelection): StrategyBatchResult {
  const target: StrategyTarget = context.session;
  if (target.openBrackets().length > 0) return { kind: 'busy' };
  // The usual pre-step: no dedup group is dirty and purge is off, so nothing can be planned (§19 D2: O(candidates)).
  if (!selection.purgeErrors && (!selection.deduplication || !context.index.dedupGroups.hasDirty)) return NOTHING_PLANNED;
  const chosen = new Set<number>();
  const units = [
    ...(selection.deduplication ? planDeduplication(context, currentTurn, chosen) : []),
    ...(selection.purgeErrors ? planPurge(context, currentTurn, chosen) : []),
  ].sort((a, b) => a.position - b.position);
  let deduplicated = 0;
  let purged = 0;
  let tokensSaved = 0;
  let firstPosition: number | undefined;
  for (const unit of units) {
    const first = unit.shadowed[0] as number;
    const last = unit.shadowed[unit.shadowed.length - 1] as number;
    const claim = unit.shadowed.reduce((sum, seq) => sum + (target.meter.estimateOf(seq) ?? 0), 0);
    // Positions shift as earlier purges merge two nodes into one; the first unit's position is still exact.
    const position = target.surface.positionOf(first);
    try {
      target.append('compaction/prune', {
        shadowedRange: { start: first, end: last },
        shadowedSeqs: [...unit.shadowed],
        shadowedTokenCount: claim,
      });
    } catch (error) {
      return { kind: 'ran', deduplicated, purged, tokensSaved, firstPosition, hostError: errorMessage(error) };
    }
    try {
      const options = { surfaceOp: { op: 'replace', start: first, end: last }, sourceEventSeqs: [...unit.shadowed] } as const;
      if (unit.type === 'tool/result') target.append(unit.type, unit.data, options);
      else target.append(unit.type, unit.data, options);
    } catch (error) {
      // The prune stays as an unpriced metering event (a log-only record); the batch stops here.
      return { kind: 'ran', deduplicated, purged, tokensSaved, firstPosition, hostError: errorMessage(error) };
    }
    firstPosition ??= position;
    tokensSaved += claim - unit.replacementTokens;
    if (unit.kind === 'dedup') deduplicated += 1;
    else purged += 1;
  }
  return { kind: 'ran', deduplicated, purged, tokensSaved, firstPosition };
}

/** Where a strategy run is asked from (§8.1). */
export type StrategyOccasion =
  /** The pre-step of step `step` (rule 5 applies `runAt`). */
  | { readonly kind: 'pre-step'; readonly step: number }
  /** Right after a compress commit (§7.3 step 9). */
  | { readonly kind: 'after-compress' }
  /**
   * A sweep control: forced past `runAt`, but not past the manual rule (§8.1 rule 4): manual mode with
   * `automaticStrategies === false` means no strategy runs, a sweep included, as in dsh-dcp.
   */
  | { readonly kind: 'sweep' };

/**
 * §8.1 rules 4–5 and the per-strategy switches: which strategies run on `occasion`, or `undefined` when none.
 * Busy (rule 3) is checked by {@link runStrategyBatch} itself.
 */
export function strategiesFor(runtime: DcpRuntime, manualOn: boolean, occasion: StrategyOccasion): StrategySelection | undefined {
  const { strategies, manualMode } = runtime.config;
  const selection = { deduplication: strategies.deduplication.enabled, purgeErrors: strategies.purgeErrors.enabled };
  if (!selection.deduplication && !selection.purgeErrors) return undefined;
  switch (occasion.kind) {
    case 'sweep':
      break;
    case 'after-compress':
      if (strategies.runAt !== 'with-compress') return undefined;
      break;
    case 'pre-step':
      if (strategies.runAt === 'with-compress' || (strategies.runAt === 'turn-start' && occasion.step !== 1)) return undefined;
      break;
    default:
      return assertNever(occasion, 'unexpected strategy occasion');
  }
  return manualOn && !manualMode.automaticStrategies ? undefined : selection;
}

/**
 * The validating surface fold of SESSION-LOG.md §5: which events currently produce model messages, in what
 * order, and which were shadowed by a replacement. One incremental class serves live logs (validate a
 * candidate, then apply it) and whole-log folds alike.
 */
import { jsonEqual } from './json-equal.js';
import type { Message, SessionEvent } from './events.js';
import { checkProvenance, checkSurfaceOp, surfaceError } from './surface-rules.js';
import { SurfaceView } from './surface-view.js';
import { assertNever } from './assert-never.js';

/** How an event relates to the final surface (SESSION-LOG.md §5.3). */
export type EventClassification = 'current' | 'shadowed' | 'log-only';

/** Per-seq state codes, kept in a byte array so that a 100k-event log costs 100 kB. */
// 0: log-only (the array's initial value, never written).
const CURRENT = 1;
const SHADOWED = 2;

/** A validated transition that has not touched the fold yet. */
type SurfacePlan =
  | { readonly kind: 'log-only' }
  | { readonly kind: 'append' }
  | { readonly kind: 'replace'; readonly startIndex: number; readonly endIndex: number; readonly shadowed: readonly number[] };

const LOG_ONLY_PLAN: SurfacePlan = { kind: 'log-only' };
const APPEND_PLAN: SurfacePlan = { kind: 'append' };

/**
 * A `tool/result` payload with `message.content[0].content` set to `null` (rule 6.3). The reads are plain
 * JavaScript reads on purpose: malformed data — possible only on paths that skip the §4.4 shape check, such as
 * the query layer's fold over a non-validating store — throws the same native `TypeError` dsh throws.
 */
export function withBlankResultContent(data: unknown): Record<string, unknown> {
  const record = data as Record<string, unknown>;
  const message = record['message'] as Record<string, unknown>;
  const first: unknown = (message['content'] as readonly unknown[])[0];
  return { ...record, message: { ...message, content: [{ ...(first as object), content: null }] } };
}

/**
 * The validating surface fold (SESSION-LOG.md §5.2) over one log, fed event by event in seq order.
 *
 * `apply` validates an event against the current state and then commits it; `check` only validates. A failed
 * validation throws `SessionLogError` with code `SESSION_LOG_INVALID_SURFACE` and the raw §5.2 message and
 * leaves the fold exactly as it was. Appending (including log-only events) is O(1); a one-node replace (a
 * pruned tool result, a rewritten message) is O(1) plus its data checks; a k-node replace costs what
 * {@link SurfaceView.replace} costs (O(k) plus one chunk and the chunk list). The fold keeps a reference to every applied event (the tool-result rewrite rule needs
 * the shadowed event's data), so events must not be mutated after they were applied.
 */
export class SurfaceFold {
  readonly #events: SessionEvent[] = [];
  #states = new Uint8Array(256);
  /** The current surface with O(1) seq → position, so validating a replace costs no scan. */
  readonly #surface = new SurfaceView();

  /** The seq the next applied event must carry (the number of events applied so far). */
  get nextSeq(): number {
    return this.#events.length;
  }

  /** The number of current surface nodes. */
  get surfaceLength(): number {
    return this.#surface.length;
  }

  /** Validates `event` as the next event of the log without changing the fold; throws like `apply`. */
  check(event: SessionEvent): void {
    this.#plan(event);
  }

  /** Validates `event` as the next event of the log and folds it in. On a throw nothing changes. */
  apply(event: SessionEvent): void {
    const plan = this.#plan(event);
    const seq = this.#events.length;
    this.#growTo(seq + 1);
    switch (plan.kind) {
      case 'log-only':
        break;
      case 'append':
        this.#surface.append(seq);
        this.#states[seq] = CURRENT;
        break;
      case 'replace':
        for (const shadowedSeq of plan.shadowed) this.#states[shadowedSeq] = SHADOWED;
        this.#surface.replace(plan.startIndex, plan.endIndex, seq);
        this.#states[seq] = CURRENT;
        break;
      default:
        assertNever(plan, 'unreachable surface plan:');
    }
    this.#events.push(event);
  }

  /** A copy of the current surface: the seqs of the current nodes in model order. O(surface length). */
  surfaceSeqs(): readonly number[] {
    return this.#surface.slice(0, this.#surface.length);
  }

  /** True when the event at `seq` is a current surface node. */
  isCurrent(seq: number): boolean {
    return seq < this.#events.length && this.#states[seq] === CURRENT;
  }

  /** True when the event at `seq` joined the surface and was later removed by a replace. */
  isShadowed(seq: number): boolean {
    return seq < this.#events.length && this.#states[seq] === SHADOWED;
  }

  /** The §5.3 classification of the applied event at `seq`; `undefined` for a seq not applied yet. */
  classificationOf(seq: number): EventClassification | undefined {
    if (!Number.isInteger(seq) || seq < 0 || seq >= this.#events.length) return undefined;
    const state = this.#states[seq];
    return state === CURRENT ? 'current' : state === SHADOWED ? 'shadowed' : 'log-only';
  }

  /** The applied event at `seq`, or `undefined`. */
  eventAt(seq: number): SessionEvent | undefined {
    return this.#events[seq];
  }

  #growTo(length: number): void {
    if (length <= this.#states.length) return;
    const grown = new Uint8Array(Math.max(length, this.#states.length * 2));
    grown.set(this.#states);
    this.#states = grown;
  }

  /** Rules 1–6 of §5.2 for `event` as the next event; returns the transition to commit. */
  #plan(event: SessionEvent): SurfacePlan {
    const surfaceOp = checkSurfaceOp(event, this.#events.length);
    if (surfaceOp === 'log-only') return LOG_ONLY_PLAN;
    if (surfaceOp === 'append') return APPEND_PLAN;
    const { start, end } = surfaceOp;
    const startIndex = this.#surface.positionOf(start);
    if (startIndex === -1) throw surfaceError(`surface replace: start seq ${start} not found in surface`);
    const endIndex = this.#surface.positionOf(end);
    if (endIndex === -1) throw surfaceError(`surface replace: end seq ${end} not found in surface`);
    if (startIndex > endIndex) {
      throw surfaceError(`surface replace: start seq ${start} (index ${startIndex}) is after end seq ${end} (index ${endIndex})`);
    }
    const shadowed = this.#surface.slice(startIndex, endIndex + 1);
    checkProvenance(event, shadowed);
    if (event.type === 'tool/result') this.#checkToolResultRewrite(event, shadowed);
    return { kind: 'replace', startIndex, endIndex, shadowed };
  }

  /** Rule 6: a `tool/result` replacement rewrites one current `tool/result` and changes only its content. */
  #checkToolResultRewrite(event: SessionEvent, shadowed: readonly number[]): void {
    if (shadowed.length !== 1) {
      throw surfaceError('tool/result surface replacement must rewrite exactly one current node');
    }
    const original = this.#events[shadowed[0] as number];
    if (original?.type !== 'tool/result') {
      throw surfaceError('tool/result surface replacement must target a current tool/result');
    }
    if (!jsonEqual(withBlankResultContent(original.data), withBlankResultContent(event.data))) {
      throw surfaceError('tool/result surface replacement may change only content');
    }
  }
}

/** Folds a whole log (SESSION-LOG.md §5.2); throws at the first invalid event like `SurfaceFold.apply`. */
export function foldSurface(events: readonly SessionEvent[]): SurfaceFold {
  const fold = new SurfaceFold();
  for (const event of events) fold.apply(event);
  return fold;
}

/**
 * The §5.3 classification of every event of `events`, by index. Pass the fold already computed over exactly
 * these events to avoid folding twice.
 */
export function classifyEvents(events: readonly SessionEvent[], fold: SurfaceFold = foldSurface(events)): EventClassification[] {
  const out: EventClassification[] = new Array<EventClassification>(events.length);
  for (let seq = 0; seq < events.length; seq++) out[seq] = fold.classificationOf(seq) ?? 'log-only';
  return out;
}

/**
 * The model messages of the current surface in order (SESSION-LOG.md §5.4): a `user/message` yields its
 * `data`, an `assistant/message` its `data.message` unless that message's content is empty, a `tool/result`
 * its `data.message`. `fold` must be the fold of `events`. The messages are returned as stored (not copied).
 */
export function deriveModelMessages(events: readonly SessionEvent[], fold: SurfaceFold): Message[] {
  const messages: Message[] = [];
  for (const seq of fold.surfaceSeqs()) {
    const event = events[seq];
    if (event === undefined) throw new RangeError(`surface node ${seq} is not an event of the given log`);
    // Plain property reads: on unvalidated data they throw the native TypeError dsh throws.
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case 'user/message':
        messages.push(data as unknown as Message);
        break;
      case 'assistant/message': {
        const message = data['message'] as Message;
        if (message.content.length > 0) messages.push(message);
        break;
      }
      case 'tool/result':
        messages.push(data['message'] as Message);
        break;
      default:
        // Only surface types reach the surface; anything else projects to no message.
        break;
    }
  }
  return messages;
}

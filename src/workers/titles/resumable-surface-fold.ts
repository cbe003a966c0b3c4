/**
 * The validating surface fold of SESSION-LOG.md §5.2 in a resumable form, for the title index (§10.7): its
 * whole state is plain data — the expected seq and the current surface nodes, each current `tool/result`
 * with a digest of its payload instead of the payload — so a checkpoint can be stored and the fold continued
 * over appended events. Rules, their order and their texts are those of `SurfaceFold`; only the state it
 * keeps differs (no reference to applied events).
 */
import type { SessionEvent } from '../../protocol/events.js';
import { checkProvenance, checkSurfaceOp, surfaceError } from '../../protocol/surface-rules.js';
import { quoteText, unquoteText, type QuotedText } from './json-text.js';

/** What the fold remembers of a current `tool/result` node. */
export interface ToolResultNode {
  /** `toolResultDigest` of the node's payload (its result content blanked). */
  readonly digest: string;
  /** The node's message id (always a non-empty string once adopted). */
  readonly messageId: QuotedText;
}

/** One current surface node. */
export interface SurfaceNodeCheckpoint {
  readonly seq: number;
  /** Present exactly when the node is a `tool/result`. */
  readonly toolResult: ToolResultNode | null;
}

/** The plain-data state of a {@link ResumableSurfaceFold}. */
export interface SurfaceFoldCheckpoint {
  /** The seq the next event must carry. */
  readonly nextSeq: number;
  /** The current surface nodes in surface order. */
  readonly nodes: readonly SurfaceNodeCheckpoint[];
}

/** The message id a current `tool/result` node records: `data.message.id` of an adopted event. */
function toolResultMessageId(event: SessionEvent): QuotedText {
  const message = (event.data as Readonly<Record<string, unknown>>)['message'] as Readonly<Record<string, unknown>>;
  return quoteText(message['id'] as string);
}

/**
 * The surface fold of SESSION-LOG.md §5.2 over adopted events, fed in seq order, resumable from a
 * {@link SurfaceFoldCheckpoint}. A `tool/result` event must come with its `toolResultDigest` (computed by the
 * caller, outside any validation `try`, since it is not a validation step).
 */
export class ResumableSurfaceFold {
  #nextSeq: number;
  #nodes: SurfaceNodeCheckpoint[];

  private constructor(nextSeq: number, nodes: SurfaceNodeCheckpoint[]) {
    this.#nextSeq = nextSeq;
    this.#nodes = nodes;
  }

  /** An empty fold (no events yet). */
  static empty(): ResumableSurfaceFold {
    return new ResumableSurfaceFold(0, []);
  }

  /** A fold continuing from `checkpoint` (which is copied, not aliased). */
  static restore(checkpoint: SurfaceFoldCheckpoint): ResumableSurfaceFold {
    return new ResumableSurfaceFold(checkpoint.nextSeq, [...checkpoint.nodes]);
  }

  /** The plain-data state (a copy). */
  checkpoint(): SurfaceFoldCheckpoint {
    return { nextSeq: this.#nextSeq, nodes: [...this.#nodes] };
  }

  /** The message id of the current `tool/result` node `seq`, or `undefined` when `seq` is no such node. */
  toolResultMessageId(seq: number): string | undefined {
    const node = this.#nodes.find((candidate) => candidate.seq === seq);
    return node?.toolResult == null ? undefined : unquoteText(node.toolResult.messageId);
  }

  /**
   * An `apply`-only view for `validateSeedEvent` that folds the next event with `digest` (required for a
   * `tool/result`, ignored otherwise).
   */
  sink(digest: string | undefined): { apply(event: SessionEvent): void } {
    return { apply: (event) => this.apply(event, digest) };
  }

  /**
   * Validates `event` as the next event and folds it in (§5.2 rules 1–6, texts exact). On a throw nothing
   * changes.
   *
   * @throws SessionLogError `SESSION_LOG_INVALID_SURFACE` with the raw §5.2 message.
   */
  apply(event: SessionEvent, digest: string | undefined): void {
    const expected = this.#nextSeq;
    const surfaceOp = checkSurfaceOp(event, expected);
    if (surfaceOp === 'log-only') {
      this.#nextSeq += 1;
      return;
    }
    const node = (): SurfaceNodeCheckpoint => ({ seq: expected, toolResult: this.#toolResultOf(event, digest) });
    if (surfaceOp === 'append') {
      this.#nodes.push(node());
      this.#nextSeq += 1;
      return;
    }
    const { start, end } = surfaceOp;
    const startIndex = this.#nodes.findIndex((candidate) => candidate.seq === start);
    if (startIndex === -1) throw surfaceError(`surface replace: start seq ${start} not found in surface`);
    const endIndex = this.#nodes.findIndex((candidate) => candidate.seq === end);
    if (endIndex === -1) throw surfaceError(`surface replace: end seq ${end} not found in surface`);
    if (startIndex > endIndex) {
      throw surfaceError(`surface replace: start seq ${start} (index ${startIndex}) is after end seq ${end} (index ${endIndex})`);
    }
    const shadowedNodes = this.#nodes.slice(startIndex, endIndex + 1);
    checkProvenance(
      event,
      shadowedNodes.map((shadowed) => shadowed.seq),
    );
    if (event.type === 'tool/result') {
      if (shadowedNodes.length !== 1) {
        throw surfaceError('tool/result surface replacement must rewrite exactly one current node');
      }
      const original = (shadowedNodes[0] as SurfaceNodeCheckpoint).toolResult;
      if (original === null) {
        throw surfaceError('tool/result surface replacement must target a current tool/result');
      }
      if (original.digest !== this.#requireDigest(digest)) {
        throw surfaceError('tool/result surface replacement may change only content');
      }
    }
    this.#nodes.splice(startIndex, endIndex - startIndex + 1, node());
    this.#nextSeq += 1;
  }

  #toolResultOf(event: SessionEvent, digest: string | undefined): ToolResultNode | null {
    if (event.type !== 'tool/result') return null;
    return { digest: this.#requireDigest(digest), messageId: toolResultMessageId(event) };
  }

  #requireDigest(digest: string | undefined): string {
    // A caller bug, not a validation failure; validateSeedEvent would wrap it, so it must never happen.
    if (digest === undefined) throw new Error('a tool/result must be folded with its digest');
    return digest;
  }
}

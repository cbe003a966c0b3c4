/**
 * The projection side of the source cache (SESSION-REFERENCE.md §9 over SESSION-LOG.md §5.2): a surface fold
 * whose nodes carry their projected item instead of their event, so the current conversation of a source can
 * be kept between preparations and continued over appended events. The worker turns each adopted event into a
 * {@link ProjectionStep} (its surface operation and projected item); the main thread applies the steps to the
 * fold it keeps. Validation is not this fold's job: steps come from events the resumable validator accepted,
 * and a preparation uses them only when the whole validation succeeded.
 */
import type { SessionEvent, SurfaceEvent } from '../../protocol/events.js';
import { isSurfaceType } from '../../protocol/events.js';
import { isRecord } from '../../protocol/record-guard.js';
import type { ProjectedItem } from './project-surface.js';
import { projectSurfaceEvent } from './project-surface.js';

/** One surface-eligible event as the fold needs it: where it goes and what it shows. */
export interface ProjectionStep {
  readonly seq: number;
  /** `null`: appended; otherwise the seq range it replaces. */
  readonly replace: { readonly start: number; readonly end: number } | null;
  /** The projected item, `null` when projection leaves the event out (tool results, empty text). */
  readonly item: ProjectedItem | null;
}

/** One current surface node. */
export interface ProjectionNode {
  readonly seq: number;
  readonly item: ProjectedItem | null;
}

/** Raised when steps do not fit the fold (a caller bug or a damaged cache entry); the caller rebuilds cold. */
export class ProjectionFoldError extends Error {
  /** Stable code. */
  readonly code = 'SESSION_SOURCE_CACHE_FOLD';
}

/**
 * The step of one adopted event, or `undefined` for a log-only event. The event was accepted by the validator's
 * surface fold only when the whole validation succeeds, so a marker that is not an append is a replace range.
 */
export function projectionStep(event: SessionEvent): ProjectionStep | undefined {
  if (!isSurfaceType(event.type)) return undefined;
  const op: unknown = event.surfaceOp;
  const projected = projectSurfaceEvent(event as SurfaceEvent) ?? null;
  if (op === 'append') return { seq: event.seq, replace: null, item: projected };
  if (isRecord(op) && typeof op['start'] === 'number' && typeof op['end'] === 'number') {
    return { seq: event.seq, replace: { start: op['start'], end: op['end'] }, item: projected };
  }
  // Not a valid marker: the validation fails, and the preparation never uses this step.
  return { seq: event.seq, replace: { start: -1, end: -1 }, item: projected };
}

/** The current surface nodes with their projected items. */
export class ProjectionFold {
  #nodes: ProjectionNode[];

  private constructor(nodes: ProjectionNode[]) {
    this.#nodes = nodes;
  }

  /** An empty fold. */
  static empty(): ProjectionFold {
    return new ProjectionFold([]);
  }

  /** A fold over `nodes` (copied). */
  static of(nodes: readonly ProjectionNode[]): ProjectionFold {
    return new ProjectionFold([...nodes]);
  }

  /** The current nodes (a copy). */
  nodes(): ProjectionNode[] {
    return [...this.#nodes];
  }

  /** How many nodes the fold holds. */
  get size(): number {
    return this.#nodes.length;
  }

  /**
   * Applies one step (§5.2 rules 3–4: an append adds a node, a replace swaps the nodes from `start` to `end` for one).
   *
   * @throws ProjectionFoldError when a replace names a seq that is not a current node.
   */
  apply(step: ProjectionStep): void {
    const node: ProjectionNode = { seq: step.seq, item: step.item };
    if (step.replace === null) {
      this.#nodes.push(node);
      return;
    }
    const { start, end } = step.replace;
    const startIndex = this.#nodes.findIndex((candidate) => candidate.seq === start);
    const endIndex = startIndex === -1 ? -1 : this.#nodes.findIndex((candidate) => candidate.seq === end);
    if (startIndex === -1 || endIndex < startIndex)
      throw new ProjectionFoldError(`projection replace ${start}..${end} does not fit the surface`);
    this.#nodes.splice(startIndex, endIndex - startIndex + 1, node);
  }

  /** The projected items in surface order (what retention receives). */
  items(): ProjectedItem[] {
    const items: ProjectedItem[] = [];
    for (const node of this.#nodes) if (node.item !== null) items.push(node.item);
    return items;
  }
}

/**
 * Steps 6–8 of `readSurface` (SESSION-LOG.md §10.4) followed by the reference stages (SESSION-REFERENCE.md
 * §9, §10) for one observation: fold the surface, project it, retain it within the budget and serialise
 * it once. Runs in a worker on the events it decoded itself, so nothing of the log crosses back.
 */
import { SessionQueryError, errorMessage } from '../../protocol/errors.js';
import type { SessionEvent, SessionHeader, SurfaceEvent } from '../../protocol/events.js';
import { isSurfaceType } from '../../protocol/events.js';
import { SurfaceFold } from '../../protocol/surface-fold.js';
import type { ReadSourceValue } from '../../protocol/wire/task-shapes.js';
import { serializeError } from '../../protocol/wire/wire-error.js';
import { projectSurface } from '../reference/project-surface.js';
import { renderProjected } from '../reference/render-projected.js';

/** Events folded between two polls. */
const FOLD_POLL_EVENTS = 512;

/** What {@link renderSurface} needs besides the observation. */
export interface RenderRequest {
  readonly label: string;
  readonly maxBytes: number;
  readonly poll: () => void;
}

function surfaceFailed(header: SessionHeader, error: SessionQueryError): ReadSourceValue {
  return { status: 'surface-failed', header, error: serializeError(error) };
}

/**
 * Renders one observation (its header and every observed event). A fold failure is step 6's
 * `SESSION_QUERY_INVALID_SURFACE` (`invalid session surface: <m>`, cause kept), returned as data because
 * the caller must first decide whether a live session won and whether the headers are compatible.
 */
export function renderSurface(header: SessionHeader, events: readonly unknown[], request: RenderRequest): ReadSourceValue {
  const fold = new SurfaceFold();
  for (let index = 0; index < events.length; index++) {
    if (index % FOLD_POLL_EVENTS === FOLD_POLL_EVENTS - 1) request.poll();
    try {
      fold.apply(events[index] as SessionEvent);
    } catch (error) {
      return surfaceFailed(
        header,
        new SessionQueryError('SESSION_QUERY_INVALID_SURFACE', `invalid session surface: ${errorMessage(error)}`, { cause: error }),
      );
    }
  }
  const surface: SurfaceEvent[] = [];
  for (const seq of fold.surfaceSeqs()) {
    const event = events[seq] as SessionEvent | undefined;
    if (event === undefined || event.seq !== seq || !isSurfaceType(event.type)) {
      // Unreachable after a successful fold; the query layer keeps the same guard.
      return surfaceFailed(
        header,
        new SessionQueryError('SESSION_QUERY_INVALID_SURFACE', `invalid session surface: current node ${seq} is not a surface event`),
      );
    }
    surface.push(event as SurfaceEvent);
  }
  request.poll();
  const last = events.at(-1) as SessionEvent | undefined;
  const capturedThroughSeq = last === undefined ? null : last.seq;
  const items = projectSurface(surface);
  request.poll();
  return {
    status: 'rendered',
    header,
    render: renderProjected(
      { sessionId: header.id, label: request.label, cwd: header.cwd ?? null, capturedThroughSeq, items },
      request.maxBytes,
      request.poll,
    ),
  };
}

/**
 * Renders a source on the calling thread: `readSurface`, then projection, retention and
 * serialisation. Used by tests and the no-workers fallback; the pool renderer runs the same stages
 * in worker threads.
 */
import type { SessionId } from '../../../protocol/events.js';
import { projectSurface } from '../../../workers/reference/project-surface.js';
import { minimumFittingBudget } from '../../../workers/reference/minimum-budget.js';
import { retainSource } from '../../../workers/reference/retain-source.js';
import type { OversizedSource, ReferenceSessionQuery, ReferenceSourceRenderer, RenderedSource } from './reference-types.js';

/** The in-thread renderer over a query layer. */
export class InThreadSourceRenderer implements ReferenceSourceRenderer {
  constructor(private readonly query: Pick<ReferenceSessionQuery, 'readSurface'>) {}

  /** Reads the current surface and fits it into `maxBytes`. */
  async render(sessionId: SessionId, label: string, maxBytes: number, signal: AbortSignal): Promise<RenderedSource | OversizedSource> {
    const snapshot = await this.query.readSurface(sessionId, signal);
    const input = {
      sessionId: snapshot.session.id,
      label,
      cwd: snapshot.session.cwd ?? null,
      capturedThroughSeq: snapshot.capturedThroughSeq,
      items: projectSurface(snapshot.events),
    };
    const retained = retainSource(input, maxBytes);
    if (!retained.fits) return { fits: false, minimumBudgetBytes: minimumFittingBudget(input, maxBytes) };
    return {
      fits: true,
      sessionId: snapshot.session.id,
      capturedThroughSeq: snapshot.capturedThroughSeq,
      json: retained.json,
      stats: retained.stats,
    };
  }
}

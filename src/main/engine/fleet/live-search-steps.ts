/**
 * The current search documents of a live session (attached to the asking engine, in no database), for fleet search:
 * decoded from a capture of its byte log and folded onto its surface exactly as the local index indexes a live log
 * (docs/SEARCH.md §4 "Live sessions": the same `searchStep`, the same `continueSurface`, every event committed).
 */
import type { SessionEvent } from '../../../protocol/events.js';
import { forEachLiveLogEventFrom, LIVE_LOG_START, type LiveLogCapture } from '../../../protocol/wire/live-log-codec.js';
import { searchStep, type SearchStep } from '../../../workers/search/search-documents.js';
import { continueSurface } from '../../../workers/search/search-surface.js';

/**
 * The steps of a live log's current surface, or `undefined` when its entries do not decode or do not fit the
 * surface fold (the local index records such a log with no documents).
 * @param includeTools - whether tool calls and results are documents (`search.includeTools`).
 */
export function liveSearchSteps(capture: LiveLogCapture, includeTools: boolean): SearchStep[] | undefined {
  const steps: SearchStep[] = [];
  try {
    forEachLiveLogEventFrom(capture, LIVE_LOG_START, (event) => {
      const step = searchStep(event as SessionEvent, includeTools);
      if (step !== undefined) steps.push(step);
    });
  } catch {
    return undefined;
  }
  // A live log has no unfinished tail to re-read: every event is committed.
  return continueSurface(undefined, steps, Number.POSITIVE_INFINITY)?.steps.slice();
}

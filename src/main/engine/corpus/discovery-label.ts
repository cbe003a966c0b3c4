/**
 * The discovery label of a session (SESSION-REFERENCE.md §7.3 step 6), once for every room and face: the latest
 * folded title of its log when the title observation succeeded and carries text, else its id. Reference discovery,
 * search results, the MCP catalog, the Web page and `mention` all label sessions through here, so one session has one
 * label everywhere.
 */
import { escapeDisplayText } from '../../../protocol/uri/display-escape.js';
import type { SessionTitleObservation } from './session-query.js';

/**
 * The folded title text of a title observation, or `undefined` (a rejected observation, a log without a title, or a
 * title that is not text — a host's query is not trusted to keep the type).
 */
export function observedTitle(observation: SessionTitleObservation | undefined): string | undefined {
  if (observation?.status !== 'fulfilled') return undefined;
  const title: unknown = (observation.value.title as { readonly title?: unknown } | undefined)?.title;
  return typeof title === 'string' ? title : undefined;
}

/** The raw titles of the observations that have one, by session id (labels not yet display-escaped). */
export function observedTitles(observations: readonly SessionTitleObservation[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const observation of observations) {
    const title = observedTitle(observation);
    if (title !== undefined) titles.set(observation.sessionId, title);
  }
  return titles;
}

/** The display-escaped discovery label of `sessionId`: its observed title, else its id. */
export function discoveryLabel(sessionId: string, observation: SessionTitleObservation | undefined): string {
  return escapeDisplayText(observedTitle(observation) ?? sessionId);
}

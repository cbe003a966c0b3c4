/**
 * The open conversation's live updates (issue 28 item 2): which events of the page's stream concern one session.
 * A change of its row (an appended message changes its size, a new title its label) or a reset means "read its
 * surface again"; its removal is said as such. The reset of a stream that had not spoken yet when the view opened is
 * skipped: the view's own first read is newer than what it would repeat.
 */
import { useRef } from 'preact/hooks';
import { corpusFeed } from './corpus-feed.js';
import { useCorpusFeed } from './use-corpus-feed.js';

/** What a view does when its session changes. */
export interface SessionChangeHandlers {
  /** The session's log or title changed (or the stream cannot tell): read it again. */
  readonly changed: () => void;
  /** The session left the root. */
  readonly removed: () => void;
}

/**
 * Follows one session on the page's event stream.
 *
 * @param sessionId the open session
 * @param handlers what to do on a change and on removal (always the latest ones are called)
 */
export function useSessionChanges(sessionId: string, handlers: SessionChangeHandlers): void {
  const skipReset = useRef(!corpusFeed.heard);
  useCorpusFeed((event) => {
    if (event.kind === 'reset') {
      if (skipReset.current) skipReset.current = false;
      else handlers.changed();
      return;
    }
    skipReset.current = false;
    const { change } = event;
    if (change.removed.includes(sessionId)) handlers.removed();
    else if (change.changed.some((row) => row.sessionId === sessionId) || change.added.some((row) => row.sessionId === sessionId))
      handlers.changed();
  });
}

/**
 * True when the page is scrolled to (near) its end: a conversation that was read to its end follows new messages.
 *
 * @returns whether the bottom of the page is in view
 */
export function scrolledToEnd(): boolean {
  return innerHeight + scrollY >= document.documentElement.scrollHeight - 80;
}

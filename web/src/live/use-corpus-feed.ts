/** Hooks over the page's event stream (`corpus-feed.ts`): its events for a view, and its state for the header. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { corpusFeed, type FeedEvent, type FeedStatus } from './corpus-feed.js';

/**
 * Calls `listener` for every change and reset while the component is mounted (always its latest `listener`).
 *
 * @param listener what the view does with an event
 */
export function useCorpusFeed(listener: (event: FeedEvent) => void): void {
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => corpusFeed.subscribe((event) => latest.current(event)), []);
}

/** The stream's state, following it. */
export function useFeedStatus(): FeedStatus {
  const [status, setStatus] = useState<FeedStatus>(corpusFeed.status);
  useEffect(() => {
    setStatus(corpusFeed.status);
    return corpusFeed.watchStatus(setStatus);
  }, []);
  return status;
}

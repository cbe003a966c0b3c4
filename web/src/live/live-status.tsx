/** The header's word on live updates: nothing while they flow, "Reconnecting…" while the stream is down. */
import type { JSX } from 'preact';
import { useFeedStatus } from './use-corpus-feed.js';

const WORDS = { connecting: '', live: 'Live', reconnecting: 'Reconnecting…' } as const;

/** The live-update status (a polite live region, so a screen reader hears when updates stop and resume). */
export function LiveStatus(): JSX.Element {
  const status = useFeedStatus();
  return (
    <span class="live-status" role="status" data-live={status}>
      {WORDS[status]}
    </span>
  );
}

/**
 * The one macrotask hop of long cooperative work (gradual catch-ups, sliced folds, progress loops): resolves after
 * the I/O and timers already due have run, so a slice boundary really lets the host serve its other work.
 *
 * Two `setImmediate`s, not one: work running in an I/O callback (the poll phase, where most of it continues) that
 * queues one immediate gets it in the check phase of the same loop iteration, before any timer or new I/O; an
 * immediate queued from the check phase runs in the next iteration, after them. The second one is that crossing, from
 * whichever phase the hop starts (issue 27 item 6: a single immediate left the listing's assembly and its sort in one
 * stretch, as the event-loop delay showed).
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

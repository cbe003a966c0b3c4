/**
 * The one macrotask hop of long cooperative work (gradual catch-ups, sliced folds, progress loops): resolves after
 * the I/O and timers already due have run, so a slice boundary really lets the host serve its other work.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

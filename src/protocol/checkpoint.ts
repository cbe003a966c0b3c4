/**
 * The compaction checkpoint recogniser (SESSION-LOG.md §4.5), identical to dsh's so that both treat the
 * same messages as checkpoints.
 */

/**
 * True when `message` is a compaction checkpoint: its `source` has `kind: 'plugin'` and `plugin: 'compact'`.
 * `compactionId` is not required and any other source fields are ignored; whether the message was appended or
 * written as a replacement does not matter (the caller passes the message either way).
 */
export function isCompactionCheckpoint(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const source: unknown = (message as { readonly source?: unknown }).source;
  if (typeof source !== 'object' || source === null) return false;
  const { kind, plugin } = source as { readonly kind?: unknown; readonly plugin?: unknown };
  return kind === 'plugin' && plugin === 'compact';
}

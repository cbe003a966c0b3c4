/**
 * Per-source retention statistics (SESSION-REFERENCE.md §10.5): computed in a worker, carried in
 * task results, and written into the reference metadata (§12) in this key order.
 */
export interface RetentionStats {
  readonly compacted: boolean;
  readonly originalMessages: number;
  readonly retainedMessages: number;
  readonly omittedMessages: number;
  readonly omittedBytes: number;
  readonly truncated: boolean;
}

/**
 * The message sources sessionctx knows, by kind (SESSION-LOG.md §4.3), as dsh declares them in its
 * `MessageSourceMap` (`@deepseek-ai/dsh-llm`, extended by `@deepseek-ai/dsh-session-reference` with
 * `'session-reference': SessionReferenceSource`), so what sessionctx produces is typed by its source and readers of
 * a prepared result never cast. The set stays open: a log may hold kinds this build does not know, and a reader of
 * a log checks shapes rather than trusting this map (the log is the producer's).
 */
import type { Message, MessageSource } from './events.js';
import type { RetentionStats } from './retention-stats.js';

/** One entry of a snapshot message's `source.references` (SESSION-REFERENCE.md §12), keys in dsh's order. */
export interface ReferenceMetadata extends RetentionStats {
  readonly sessionId: string;
  readonly label: string;
  readonly capturedThroughSeq: number | null;
  readonly inputIndex: number;
}

/** The source of a prepared cross-session snapshot: material recalled from other sessions' logs (§12). */
export interface SessionReferenceSource extends MessageSource {
  readonly kind: 'session-reference';
  readonly form: 'recall';
  readonly version: 1;
  readonly references: readonly ReferenceMetadata[];
}

/** A message typed by the user (or a steering message); dsh's `{kind: 'user'}`. */
export interface UserSource extends MessageSource {
  readonly kind: 'user';
}

/** A message a plugin added (a compaction checkpoint, a DCP marker, …): dsh's `{kind: 'plugin', plugin, …}`. */
export interface PluginSource extends MessageSource {
  readonly kind: 'plugin';
  readonly plugin: string;
}

/** What a model produced: dsh's `{kind: 'model', provider, model}`. */
export interface ModelSource extends MessageSource {
  readonly kind: 'model';
  readonly provider: string;
  readonly model: string;
}

/** The known sources by kind. */
export interface MessageSourceMap {
  readonly user: UserSource;
  readonly plugin: PluginSource;
  readonly model: ModelSource;
  readonly 'session-reference': SessionReferenceSource;
}

/** A message whose source is of kind `K`. */
export type MessageWithSource<K extends keyof MessageSourceMap, M extends Message = Message> = M & { readonly source: MessageSourceMap[K] };

/**
 * Shapes of the session-reference service's public API (SESSION-REFERENCE.md §2, §12, §13).
 */
import type { ContentBlock, Message, SessionHeader, SessionId, SessionSurfaceSnapshot } from '../../../protocol/events.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import type { MessageWithSource } from '../../../protocol/message-sources.js';
import type { SessionRecord, SessionTitleObservation } from '../corpus/session-query.js';
import type { RetentionStats } from '../../../protocol/retention-stats.js';

/** The target agent: the session the referencing message belongs to. */
export interface ReferenceTarget {
  readonly id: string;
  readonly session: { readonly header: Pick<SessionHeader, 'cwd'> };
}

/** A discovery result (keys in this order; `cwd` omitted when the source has none). */
export interface Candidate {
  readonly sessionId: string;
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
}

/** A candidate plus the canonical mention a host inserts as an atomic chip. */
export interface MentionCandidate extends Candidate {
  readonly mention: string;
}

export type { RetentionStats };

export type { ReferenceMetadata, SessionReferenceSource } from '../../../protocol/message-sources.js';

/** The snapshot message of a preparation: a user message whose source is the typed `session-reference` source. */
export type SessionReferenceContext = MessageWithSource<'session-reference', UserMessage>;

/** What `prepare()` returns: the accepted content and, when something was referenced, the context. */
export interface PreparedReferences {
  readonly content: ContentBlock[];
  readonly additionalContext?: SessionReferenceContext;
}

/**
 * A preparation with the rendered size of each source (`renderedBytes[i]`: the UTF-8 bytes of source `i`'s data
 * object in the snapshot, in the order of its `references`), for faces that show them (the Web preview) without
 * re-parsing the prompt. `prepared` is exactly what `prepare()` returns (dsh's shape).
 */
export interface SizedPreparation {
  readonly prepared: PreparedReferences;
  readonly renderedBytes: readonly number[];
}

/** The read side the service needs: exactly the query layer of SESSION-LOG.md §10. */
export interface ReferenceSessionQuery {
  listSessions(signal?: AbortSignal): Promise<readonly SessionRecord[]>;
  readSurface(sessionId: SessionId, signal?: AbortSignal): Promise<SessionSurfaceSnapshot>;
  readTitleSnapshots(ids: Iterable<SessionId>, signal?: AbortSignal): Promise<readonly SessionTitleObservation[]>;
}

/** One source rendered within its budget: its tag-safe data-object JSON and metadata inputs. */
export interface RenderedSource {
  readonly fits: true;
  readonly sessionId: string;
  readonly capturedThroughSeq: number | null;
  readonly json: string;
  readonly stats: RetentionStats;
}

/** A source that read fine but cannot fit its budget. */
export interface OversizedSource {
  readonly fits: false;
  /**
   * The least `maxBytes` with which this read of the source would fit (`minimumFittingBudget` over the same
   * projected items); the service reports it in `SESSION_REFERENCE_BUDGET_EXCEEDED`.
   */
  readonly minimumBudgetBytes: number;
}

/**
 * Reads one source and renders it (read → fold → project → retain → serialise). Read failures
 * reject; a source that does not fit resolves `{fits:false}` so that a later read failure of a
 * sibling still wins (SESSION-REFERENCE.md §8, placement note).
 */
export interface ReferenceSourceRenderer {
  render(sessionId: SessionId, label: string, maxBytes: number, signal: AbortSignal): Promise<RenderedSource | OversizedSource>;
}

/** The `agent/pre-step` payload the listener reads (SESSION-REFERENCE.md §13.1). */
export interface ReferencePreStepPayload {
  readonly agent: ReferenceTarget;
  readonly messages: readonly Message[];
  readonly turn?: number;
  readonly step?: number;
  readonly signal?: AbortSignal;
}

/** A pre-step decision. */
export type ReferencePreStepDecision = { readonly kind: 'reject' } | { readonly kind: 'enter'; readonly messages: readonly Message[] };

/**
 * The session-reference service (SESSION-REFERENCE.md): discovery of sessions to cite, preparation
 * of one bounded, read-only, tag-safe snapshot message per citing message, and the outermost
 * `agent/pre-step` listener that inserts it.
 */
import { asSessionId } from '../../../protocol/events.js';
import type { ContentBlock, SessionId } from '../../../protocol/events.js';
import {
  SessionReferenceError,
  budgetExceededError,
  cancelledError,
  candidateLimitError,
  readFailedError,
  referenceNotObjectError,
  referenceShapeError,
  selfReferenceError,
  tooManyReferencesError,
} from '../../../protocol/reference-errors.js';
import { escapeDisplayText } from '../../../protocol/uri/display-escape.js';
import { formatSessionReferenceMention } from '../../../protocol/uri/mention-formatter.js';
import { createUserMessage } from '../../../protocol/user-message.js';
import { expandCitingMessages } from './expand-citing-messages.js';
import { assembleReferencePrompt } from '../../../workers/reference/reference-prompt.js';
import type { SessionRecord, SessionTitleObservation } from '../corpus/session-query.js';
import { InThreadSourceRenderer } from './in-thread-source-renderer.js';
import { raceSignal } from './race-signal.js';
import { linkedAbort } from '../signal/abort.js';
import { resolveReferenceConfig } from './reference-config.js';
import type { SessionReferenceConfig, SessionReferenceConfigInput } from './reference-config.js';
import type {
  Candidate,
  MentionCandidate,
  OversizedSource,
  PreparedReferences,
  SizedPreparation,
  ReferenceMetadata,
  SessionReferenceSource,
  ReferencePreStepDecision,
  ReferencePreStepPayload,
  ReferenceSessionQuery,
  ReferenceSourceRenderer,
  ReferenceTarget,
  RenderedSource,
} from './reference-types.js';
import { observedTitles } from '../corpus/discovery-label.js';
import { DiscoveryHaystack } from './discovery-haystack.js';

/** One normalised reference: the id and the label it will carry (mention label, or the id). */
interface NormalizedReference {
  readonly sessionId: SessionId;
  readonly label: string;
}

/** Construction options of the service. */
export interface SessionReferenceServiceOptions {
  /** The query layer (live-preferred reads, SESSION-LOG.md §10). */
  readonly sessionQuery: ReferenceSessionQuery;
  /** Limits (§3); validated at construction. */
  readonly config?: SessionReferenceConfigInput;
  /** How a source is read and rendered; defaults to the in-thread stages over `sessionQuery`. */
  readonly renderer?: ReferenceSourceRenderer;
}

/** `rank(candidateCwd, targetCwd)` of §7.1 (also the shared corpus index's, `engine/fleet`). */
export function rank(candidateCwd: string | undefined, targetCwd: string | undefined): 0 | 1 | 2 {
  if (candidateCwd !== undefined && targetCwd !== undefined && candidateCwd === targetCwd) return 0;
  return candidateCwd === undefined ? 1 : 2;
}

/** The cross-session reference service. */
export class SessionReferenceService {
  /** The resolved limits. */
  readonly config: SessionReferenceConfig;
  private readonly sessionQuery: ReferenceSessionQuery;
  private readonly renderer: ReferenceSourceRenderer;
  /** The last order {@link orderFor} made, and what it was made from. */
  private lastOrder:
    | {
        readonly listed: readonly SessionRecord[];
        readonly agentId: string;
        readonly targetCwd: string | undefined;
        readonly ordered: readonly SessionRecord[];
        readonly ids: readonly SessionId[];
      }
    | undefined;
  /** The match keys discovery made last, and the labels they hold. */
  private lastHaystack: { readonly labels: Map<string, string>; readonly haystack: DiscoveryHaystack } | undefined;
  /** The titles of the last observations discovery labelled (the warm query answers a repeated keystroke with them). */
  private lastLabels: { readonly observations: readonly SessionTitleObservation[]; readonly labels: Map<string, string> } | undefined;

  /** Validates the configuration (`SESSION_REFERENCE_INVALID_CONFIG`); the service is not built on failure. */
  constructor(options: SessionReferenceServiceOptions) {
    this.config = resolveReferenceConfig(options.config);
    this.sessionQuery = options.sessionQuery;
    this.renderer = options.renderer ?? new InThreadSourceRenderer(options.sessionQuery);
  }

  /**
   * Sessions the target may cite, best first (§7.3): same cwd, then cwd-less, then the rest, each
   * group newest first; a non-empty query filters by id, cwd or title (case-insensitive, raw
   * values). Display fields are escaped (D5).
   */
  async listCandidates(
    agent: ReferenceTarget,
    query = '',
    limit: number = this.config.candidateLimit,
    signal?: AbortSignal,
  ): Promise<Candidate[]> {
    if (!Number.isSafeInteger(limit) || limit <= 0) throw candidateLimitError();
    const needle = query.toLocaleLowerCase();
    const targetCwd = agent.session.header.cwd;
    if (signal?.aborted === true) throw cancelledError(signal.reason);
    const listed = await raceSignal(
      Promise.resolve().then(() => this.sessionQuery.listSessions(signal)),
      signal,
    );
    const { ordered, ids } = this.orderFor(listed, agent.id, targetCwd);
    const observations = await raceSignal(
      Promise.resolve().then(() => this.sessionQuery.readTitleSnapshots(needle === '' ? ids.slice(0, limit) : ids, signal)),
      signal,
    );
    const labels = this.labelsOf(observations);
    const labelOf = (record: SessionRecord): string => labels.get(record.header.id) ?? record.header.id;
    const matched = needle === '' ? ordered.slice(0, limit) : this.haystackFor(ordered, labels, labelOf).matching(needle, limit);
    return matched.map((record) => toCandidate(record, labelOf(record)));
  }

  /** The match keys of an order under a set of labels, made once per pair (each keystroke then reuses them). */
  private haystackFor(
    ordered: readonly SessionRecord[],
    labels: Map<string, string>,
    labelOf: (record: SessionRecord) => string,
  ): DiscoveryHaystack {
    const last = this.lastHaystack;
    if (last !== undefined && last.haystack.records === ordered && last.labels === labels) return last.haystack;
    const haystack = new DiscoveryHaystack(ordered, labelOf);
    this.lastHaystack = { labels, haystack };
    return haystack;
  }

  /**
   * The records in §7.3's order for a target, and their ids: one bucket per rank, each in listing order, so
   * concatenated they are the records sorted by (rank, listing position) without a sort. Made once per listing array
   * and target (a warm listing is the same array while nothing changed: each keystroke then reuses it).
   */
  private orderFor(
    listed: readonly SessionRecord[],
    agentId: string,
    targetCwd: string | undefined,
  ): { readonly ordered: readonly SessionRecord[]; readonly ids: readonly SessionId[] } {
    const last = this.lastOrder;
    if (last !== undefined && last.listed === listed && last.agentId === agentId && last.targetCwd === targetCwd) return last;
    const buckets: [SessionRecord[], SessionRecord[], SessionRecord[]] = [[], [], []];
    for (const record of listed) if (record.header.id !== agentId) buckets[rank(record.header.cwd, targetCwd)].push(record);
    const ordered = buckets[0].concat(buckets[1], buckets[2]);
    const order = { listed, agentId, targetCwd, ordered, ids: ordered.map((record) => record.header.id) };
    this.lastOrder = order;
    return order;
  }

  /** `observedTitles(observations)`, made once per observations array (shared answers are never mutated). */
  private labelsOf(observations: readonly SessionTitleObservation[]): Map<string, string> {
    const last = this.lastLabels;
    if (last !== undefined && last.observations === observations) return last.labels;
    const labels = observedTitles(observations);
    this.lastLabels = { observations, labels };
    return labels;
  }

  /**
   * The host face (§7.4): candidates with their canonical mention. `limit` defaults to the
   * configured `candidateLimit` (a sessionctx addition for callers such as the CLI).
   */
  async candidates(
    agent: ReferenceTarget,
    query: string,
    signal?: AbortSignal,
    limit: number = this.config.candidateLimit,
  ): Promise<MentionCandidate[]> {
    const found = await this.listCandidates(agent, query, limit, signal);
    return found.map((candidate) => ({
      ...candidate,
      mention: formatSessionReferenceMention({ sessionId: candidate.sessionId, label: candidate.label }),
    }));
  }

  /**
   * Prepares the context for one message (§8): validates and normalises the references, reads
   * every source in parallel, fits each into its budget and renders one snapshot message. All or
   * nothing: any failure rejects with a typed `SessionReferenceError` and returns no context. A
   * budget failure keeps dsh's text and names, in `sourceSessionId` and `minimumBudgetBytes`, the
   * source needing the largest budget and that budget, the least with which this preparation over
   * the same reads would succeed.
   */
  async prepare(
    agent: ReferenceTarget,
    content: readonly ContentBlock[],
    references: readonly unknown[],
    signal?: AbortSignal,
  ): Promise<PreparedReferences> {
    return (await this.prepareSized(agent, content, references, signal)).prepared;
  }

  /** {@link prepare}, with the rendered size of each source (what the snapshot holds of it, in bytes). */
  async prepareSized(
    agent: ReferenceTarget,
    content: readonly ContentBlock[],
    references: readonly unknown[],
    signal?: AbortSignal,
  ): Promise<SizedPreparation> {
    const acceptedContent = structuredClone(content) as ContentBlock[];
    const normalized = this.normalizeReferences(agent, references);
    if (normalized.length === 0) return { prepared: { content: acceptedContent }, renderedBytes: [] };
    if (signal?.aborted === true) throw cancelledError(signal.reason);
    const rendered = await this.renderAll(normalized, signal);
    // The signal may have aborted while the reads settled (§8 step 6).
    if (isAborted(signal)) throw cancelledError(signal.reason);
    const sources: RenderedSource[] = [];
    let binding: { readonly sourceSessionId: string; readonly minimumBudgetBytes: number } | undefined;
    for (const [at, source] of rendered.entries()) {
      if (source.fits) {
        sources.push(source);
        continue;
      }
      // The source needing the most decides the budget the whole preparation needs (the first of equals wins).
      if (binding === undefined || source.minimumBudgetBytes > binding.minimumBudgetBytes) {
        binding = { sourceSessionId: (normalized[at] as NormalizedReference).sessionId, minimumBudgetBytes: source.minimumBudgetBytes };
      }
    }
    if (binding !== undefined) throw budgetExceededError(binding);
    const metadata: ReferenceMetadata[] = sources.map((source, inputIndex) => ({
      sessionId: source.sessionId,
      label: (normalized[inputIndex] as NormalizedReference).label,
      capturedThroughSeq: source.capturedThroughSeq,
      compacted: source.stats.compacted,
      originalMessages: source.stats.originalMessages,
      retainedMessages: source.stats.retainedMessages,
      omittedMessages: source.stats.omittedMessages,
      omittedBytes: source.stats.omittedBytes,
      truncated: source.stats.truncated,
      inputIndex,
    }));
    const source: SessionReferenceSource = { kind: 'session-reference', form: 'recall', version: 1, references: metadata };
    const additionalContext = createUserMessage({
      source,
      content: [{ type: 'text', text: assembleReferencePrompt(sources.map((source) => source.json)) }],
    });
    return {
      prepared: { content: acceptedContent, additionalContext },
      renderedBytes: sources.map((rendered) => Buffer.byteLength(rendered.json, 'utf8')),
    };
  }

  /**
   * The outermost `agent/pre-step` listener (§13): runs the rest of the chain first, then expands
   * every direct user message that cites sessions into the rewritten message followed by its
   * snapshot. A failure carries the claimed direct messages so the host can hand them back.
   */
  async preStepListener(
    payload: ReferencePreStepPayload,
    next: () => Promise<ReferencePreStepDecision>,
  ): Promise<ReferencePreStepDecision> {
    const decision = await next();
    if (decision.kind === 'reject') return decision;
    const claimed = payload.messages.filter((message) => message.source.kind === 'user');
    try {
      const messages = await expandCitingMessages(
        payload.agent,
        decision.messages,
        (agent, content, references, signal) => this.prepare(agent, content, references, signal),
        payload.signal,
      );
      return { kind: 'enter', messages };
    } catch (error) {
      if (error instanceof SessionReferenceError) error.claimedDirectMessages = claimed;
      throw error;
    }
  }

  /** §8 step 2: validation, self check, dedupe (first wins), then the count limit. */
  private normalizeReferences(agent: ReferenceTarget, references: readonly unknown[]): NormalizedReference[] {
    const kept: NormalizedReference[] = [];
    const seen = new Set<string>();
    for (const reference of references) {
      if (typeof reference !== 'object' || reference === null) throw referenceNotObjectError();
      const { sessionId, label } = reference as { sessionId?: unknown; label?: unknown };
      if (typeof sessionId !== 'string' || (label !== undefined && typeof label !== 'string')) throw referenceShapeError();
      if (sessionId === agent.id) throw selfReferenceError(agent.id);
      if (seen.has(sessionId)) continue;
      seen.add(sessionId);
      kept.push({ sessionId: asSessionId(sessionId), label: label ?? sessionId });
    }
    if (kept.length > this.config.maxReferences) throw tooManyReferencesError(this.config.maxReferences);
    return kept;
  }

  /**
   * §8 step 5: every read starts at once; the first failure in time aborts the siblings and
   * becomes `READ_FAILED` (or `CANCELLED` when the caller aborted).
   */
  private async renderAll(
    references: readonly NormalizedReference[],
    signal: AbortSignal | undefined,
  ): Promise<Array<RenderedSource | OversizedSource>> {
    const siblings = linkedAbort(signal);
    const reads = references.map((reference) =>
      Promise.resolve()
        .then(() => this.renderer.render(reference.sessionId, reference.label, this.config.maxReferenceBytes, siblings.signal))
        .catch((error: unknown) => {
          siblings.abort(error);
          throw error;
        }),
    );
    try {
      return await raceSignal(Promise.all(reads), signal);
    } catch (error) {
      if (signal?.aborted === true) throw cancelledError(signal.reason);
      // Any other rejection, even a CANCELLED error a renderer raised on its own, is a failed read (§8 step 5).
      throw readFailedError(error);
    }
  }
}

/** Reads `signal.aborted` afresh (a plain property check would be narrowed away across awaits). */
function isAborted(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true;
}

/** A discovery result of a record and its raw label, display fields escaped (D5); also the shared corpus index's. */
export function toCandidate(record: SessionRecord, label: string): Candidate {
  const { id, cwd, createdAt } = record.header;
  return cwd === undefined
    ? { sessionId: id, label: escapeDisplayText(label), createdAt }
    : { sessionId: id, label: escapeDisplayText(label), cwd: escapeDisplayText(cwd), createdAt };
}

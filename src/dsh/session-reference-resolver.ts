/**
 * sessionctx's reference engine as dsh's `sessionReferenceResolver` service (docs/DSH.md): a cordis plugin class
 * with the key, `inject`, configuration keys and method signatures of `@deepseek-ai/dsh-session-reference`'s
 * resolver, so a dsh profile swaps one row for the other. Its own `agent/pre-step` listener, prepended as dsh's is,
 * lets the rest of the waterfall decide first and then expands every citing direct message into the rewritten
 * message and its snapshot. Reads, folds and retention run in sessionctx's engine on a worker pool (`reads:
 * 'engine'`), or through the host's own `ctx.sessionQuery` (`reads: 'host'`).
 */
import { Service } from '@deepseek-ai/cordis';
import type { Context } from '@deepseek-ai/cordis';
import { Remote, TypertRemoteService } from '@deepseek-ai/dsh-typert-protocol';
import type { ContentBlock, SessionEvent } from '../protocol/events.js';
import { formatSessionReferenceMention } from '../protocol/uri/mention-formatter.js';
import { createEngine } from '../main/engine/assembly/create-engine.js';
import type { LocalSessionEngine } from '../main/engine/assembly/create-engine.js';
import { expandCitingMessages } from '../main/engine/reference/expand-citing-messages.js';
import { SessionReferenceService } from '../main/engine/reference/session-reference-service.js';
import type { Candidate, MentionCandidate, PreparedReferences } from '../main/engine/reference/reference-types.js';
import type { DshAgent, DshPreStepDecision, DshPreStepPayload, DshSession, DshSessionQuery, DshSessionStore } from './dsh-host-shapes.js';
import { LiveSessionFeed } from './live-session-feed.js';
import { rootFromPersistence } from './persistence-root.js';
import { dshResolverConfigSchema, resolveDshResolverConfig } from './resolver-config.js';
import type { DshResolverConfig, ResolvedDshResolverConfig } from './resolver-config.js';

/** The cordis service key, dsh's. */
export const SESSION_REFERENCE_RESOLVER_KEY = 'sessionReferenceResolver';

/** How long one slice of encoding a restored live session's log may hold the host's thread. */
const ATTACH_SLICE_MS = 4;

/** The reads behind the service once it has started: the engine's, or the host's query engine's. */
type Backend =
  | { readonly kind: 'engine'; readonly engine: LocalSessionEngine }
  | { readonly kind: 'host'; readonly service: SessionReferenceService };

/** What cordis's context offers the plugin, loosely typed: dsh's event names are not in cordis's own `Events`. */
interface HostContext {
  on(name: string, listener: (...args: never[]) => unknown, options?: { prepend?: boolean }): () => void;
  get(name: string): unknown;
  readonly sessionQuery: DshSessionQuery;
}

/**
 * The `sessionctx/dsh` resolver. Mount it where dsh's `session-reference` row was (the repository's
 * `cordis.patch.yml`); mounting both fails with cordis's own "service … has been registered" error.
 */
export class SessionctxReferenceResolver extends TypertRemoteService {
  /** dsh's: the host's query engine (read through in `reads: 'host'`, and what dsh's resolver needs). */
  static inject = ['sessionQuery'];
  /** The schemastery schema a dsh Loader validates the row's config with. */
  static Config = dshResolverConfigSchema;

  private readonly options: ResolvedDshResolverConfig;
  /** Live sessions of this host by id, with their feeds: attached to the engine once it runs (a live session wins over its log). */
  private readonly live: Map<string, { readonly session: DshSession; readonly feed: LiveSessionFeed }>;
  private starting: Promise<Backend> | undefined;
  private backend: Backend | undefined;
  private closed: boolean;

  /**
   * Validates the configuration before the service is published (`SESSION_REFERENCE_INVALID_CONFIG`), registers
   * the service and its listeners. The engine starts in the plugin's init.
   */
  constructor(ctx: Context, config: DshResolverConfig = {}) {
    const options = resolveDshResolverConfig(config);
    super(ctx, SESSION_REFERENCE_RESOLVER_KEY);
    this.options = options;
    this.live = new Map();
    this.starting = undefined;
    this.backend = undefined;
    this.closed = false;
    const host = ctx as unknown as HostContext;
    host.on('agent/pre-step', (payload: DshPreStepPayload, next: () => Promise<DshPreStepDecision>) => this.preStep(payload, next), {
      prepend: true,
    });
    host.on('session/created', (session: DshSession) => this.attach(session));
    host.on('session/disposed', (session: DshSession) => this.detach(session));
    // Appends reach the engine as they happen, so its byte log of each live session is current when a turn cites it.
    host.on('session/event', (session: DshSession, event: SessionEvent) => this.live.get(session.id)?.feed.appended(event));
  }

  /** cordis init: starts the engine (or settles on host reads); the returned disposer closes it. */
  async [Service.init](): Promise<() => Promise<void>> {
    await this.start();
    return () => this.close();
  }

  /**
   * Discovery (dsh's signature): sessions the agent may cite, same cwd first, then none, then the rest, newest first
   * within each; `query` filters by id, cwd or title.
   */
  async listCandidates(
    agent: DshAgent,
    query = '',
    limit: number = this.options.reference.candidateLimit,
    signal?: AbortSignal,
  ): Promise<Candidate[]> {
    const backend = await this.start();
    return backend.kind === 'engine'
      ? backend.engine.listCandidates(agent, query, limit, signal)
      : backend.service.listCandidates(agent, query, limit, signal);
  }

  /**
   * The Remote face of discovery (`sessionReferenceResolver/candidates`, dsh's Web autocomplete): the configured
   * candidate limit, and each candidate's canonical mention.
   */
  @Remote('candidates')
  async remoteExportCandidates(agent: DshAgent, query: string, signal: AbortSignal): Promise<MentionCandidate[]> {
    const candidates = await this.listCandidates(agent, query, this.options.reference.candidateLimit, signal);
    return candidates.map((candidate) => ({
      ...candidate,
      mention: formatSessionReferenceMention({ sessionId: candidate.sessionId, label: candidate.label }),
    }));
  }

  /** Prepares the snapshot of `references` for one direct message (dsh's signature and errors). */
  async prepare(agent: DshAgent, content: ContentBlock[], references: unknown[], signal?: AbortSignal): Promise<PreparedReferences> {
    const backend = await this.start();
    return backend.kind === 'engine'
      ? backend.engine.prepare(agent, content, references, signal)
      : backend.service.prepare(agent, content, references, signal);
  }

  /** dsh's listener: the rest of the waterfall first; a rejection passes through; only direct messages expand. */
  private async preStep(payload: DshPreStepPayload, next: () => Promise<DshPreStepDecision>): Promise<DshPreStepDecision> {
    const decision = await next();
    if (decision.kind === 'reject') return decision;
    const messages = await expandCitingMessages(
      payload.agent,
      decision.messages,
      (agent, content, references, signal) => this.prepare(agent as DshAgent, [...content], [...references], signal),
      payload.signal,
    );
    return { kind: 'enter', messages };
  }

  /** Starts the backend once: the engine over the configured or the persistence's root, or the host's reads. */
  private start(): Promise<Backend> {
    if (this.closed) return Promise.reject(new Error('session-reference: the service has been disposed'));
    this.starting ??= this.open().then((backend) => {
      this.backend = backend;
      return backend;
    });
    return this.starting;
  }

  private async open(): Promise<Backend> {
    const host = this.ctx as unknown as HostContext;
    const derived = this.options.root === undefined ? rootFromPersistence(host.get('sessionPersistence')) : undefined;
    const root = this.options.root ?? derived?.root;
    if (this.options.reads === 'host' || (this.options.reads === undefined && root === undefined)) {
      // Every read goes through the host's query engine, looked up per call as dsh's resolver does.
      const sessionQuery: DshSessionQuery = {
        listSessions: (signal) => host.sessionQuery.listSessions(signal),
        readSurface: (id, signal) => host.sessionQuery.readSurface(id, signal),
        readTitleSnapshots: (ids, signal) => host.sessionQuery.readTitleSnapshots([...ids], signal),
      };
      return { kind: 'host', service: new SessionReferenceService({ sessionQuery, config: this.options.reference }) };
    }
    if (root === undefined) {
      throw new Error('session-reference: reads "engine" needs a root: set `root`, or mount the JSONL persistence plugin before this one');
    }
    const compression = this.options.compression ?? derived?.compression;
    const engine = await createEngine({
      root,
      ...(compression === undefined ? {} : { compression }),
      workers: this.options.workers,
      ...(this.options.poolSize === undefined ? {} : { poolSize: this.options.poolSize }),
      reference: this.options.reference,
      // Errors read as dsh's: a damaged source log is a failed inspection, as dsh's query engine reports it.
      query: { damagedLogErrors: 'dsh' },
      ...(this.options.sourceCache === undefined ? {} : { sourceCache: this.options.sourceCache }),
      ...(this.options.corpus === undefined ? {} : { corpus: this.options.corpus }),
    });
    if (this.closed) {
      await engine.close();
      throw new Error('session-reference: disposed while starting');
    }
    const store = host.get('sessions') as DshSessionStore | undefined;
    for (const session of store?.list() ?? [])
      if (!this.live.has(session.id)) this.live.set(session.id, { session, feed: new LiveSessionFeed(session) });
    for (const { feed } of this.live.values()) engine.attachLive(feed, { gradual: { sliceMs: ATTACH_SLICE_MS } });
    return { kind: 'engine', engine };
  }

  private attach(session: DshSession): void {
    const entry = { session, feed: new LiveSessionFeed(session) };
    this.live.set(session.id, entry);
    if (this.backend?.kind === 'engine') this.backend.engine.attachLive(entry.feed, { gradual: { sliceMs: ATTACH_SLICE_MS } });
  }

  private detach(session: DshSession): void {
    // Only the object that was attached: a replaced session of the same id stays.
    if (this.live.get(session.id)?.session !== session) return;
    this.live.delete(session.id);
    if (this.backend?.kind === 'engine') this.backend.engine.detachLive(session.header.id);
  }

  private async close(): Promise<void> {
    this.closed = true;
    const backend = this.backend;
    this.backend = undefined;
    this.live.clear();
    if (backend?.kind === 'engine') await backend.engine.close();
  }
}

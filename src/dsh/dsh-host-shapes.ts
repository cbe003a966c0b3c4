/**
 * The parts of a real dsh host that `sessionctx/dsh` touches, as structural types (docs/DSH.md §2). No dsh package is
 * imported for them: the plugin works with any host whose objects have these shapes, and the shapes name exactly
 * what the plugin relies on, so a change in dsh that matters shows up here.
 */
import type { Message, SessionEvent, SessionHeader } from '../protocol/events.js';
import type { ReferenceSessionQuery } from '../main/engine/reference/reference-types.js';

/** A dsh agent as the resolver sees it (`@deepseek-ai/dsh-agent` `Agent`): its id and its session's header. */
export interface DshAgent {
  readonly id: string;
  readonly session: { readonly header: Pick<SessionHeader, 'cwd'> };
}

/** A live dsh `Session` (`@deepseek-ai/dsh-session`): the immutable header and the whole log so far (seq = index). */
export interface DshSession {
  readonly id: string;
  readonly header: SessionHeader;
  readonly events: readonly SessionEvent[];
}

/** `ctx.sessions`, dsh's in-memory session store: the sessions live now, in creation order. */
export interface DshSessionStore {
  list(): readonly DshSession[];
}

/** `ctx.sessionQuery`, dsh's query engine: the three reads the reference service makes. */
export type DshSessionQuery = ReferenceSessionQuery;

/** Where a persistence backend keeps one session (`SessionLocation` of `@deepseek-ai/dsh-session-persistence`). */
export interface DshSessionLocation {
  readonly kind: string;
  readonly path: string;
}

/** `ctx.sessionPersistence`, the durable backend: only its side-effect-free locator is used. */
export interface DshSessionPersistence {
  locate(header: SessionHeader): DshSessionLocation | undefined;
}

/** The `agent/pre-step` payload (`@deepseek-ai/dsh-agent`): the agent, the accepted messages, the turn's signal. */
export interface DshPreStepPayload {
  readonly agent: DshAgent;
  readonly messages: readonly Message[];
  readonly turn?: number;
  readonly step?: number;
  readonly signal: AbortSignal;
}

/** A pre-step decision of the waterfall. */
export type DshPreStepDecision = { readonly kind: 'reject' } | { readonly kind: 'enter'; readonly messages: readonly Message[] };

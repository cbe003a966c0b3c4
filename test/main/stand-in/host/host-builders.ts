/**
 * Builders for the host tests: sessions with a fixed clock, and well-formed payloads for the surface types.
 */
import type {
  AssistantMessageData,
  ContentBlock,
  Message,
  SessionEvent,
  SessionHeader,
  ToolCallBlock,
  ToolResultData,
} from '../../../../src/protocol/events.js';
import type { AppendOptions } from '../../../../src/main/host-api/host-api.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionRuntimeOptions } from '../../../../src/main/stand-in/host/session.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { expectError } from '../../../protocol/event-builders.js';

/** A header for session `id`. */
export function headerFor(id = 's'): SessionHeader {
  return { version: 0, id: asSessionId(id), createdAt: 1_000 };
}

/** A new session with a counting clock (time = 5000 + appends so far). */
export function newSession(id = 's', options: SessionRuntimeOptions = {}): Session {
  let now = 5_000;
  return Session.create(id, { header: headerFor(id), now: () => now++, ...options });
}

/** A user message payload. */
export function userData(text: string, id = `u-${text}`): Message {
  return { source: { kind: 'user' }, content: [{ type: 'text', text }], role: 'user', id };
}

/** A compaction checkpoint payload (source `plugin: 'compact'`); as a replace it must name the open bracket. */
export function checkpointData(text: string, id = `cp-${text}`, compactionId = 'c1'): Message {
  return { source: { kind: 'plugin', plugin: 'compact', compactionId }, content: [{ type: 'text', text }], role: 'user', id };
}

/**
 * A complete compaction bracket over the surface nodes `start..end` (by seq): `compaction/start`, a summary
 * priced with the session's cached estimates, the checkpoint replace (provenance as dsh writes it) and
 * `compaction/end`. `turn` is the open turn, or `null` outside turns. Returns the checkpoint's seq.
 */
export function compactRange(
  session: Session,
  compactionId: string,
  start: number,
  end: number,
  text: string,
  turn: number | null = null,
): number {
  const shadowed = session.surface.slice(session.surface.positionOf(start), session.surface.positionOf(end) + 1);
  const tokens = shadowed.reduce((sum, seq) => sum + session.meter.estimateOf(seq)!, 0);
  const startSeq = session.append('compaction/start', { compactionId, turn }).seq;
  const summarySeq = session.append('compaction/summary', {
    compactionId,
    summary: [{ type: 'text', text }],
    shadowedRange: { start, end },
    shadowedSeqs: shadowed,
    shadowedTokenCount: tokens,
    provider: 'p',
    model: 'm',
  }).seq;
  const checkpoint = session.append('user/message', checkpointData(text, `cp-${text}`, compactionId), {
    surfaceOp: { op: 'replace', start, end },
    sourceEventSeqs: [startSeq, summarySeq, ...shadowed],
  }).seq;
  session.append('compaction/end', { compactionId, turn });
  return checkpoint;
}

/** An `assistant/message` payload; `content` is text or blocks. */
export function assistantData(turn: number, step: number, content: string | unknown[], id = `a-${turn}-${step}`): AssistantMessageData {
  // Tests pass malformed blocks on purpose (the validation layers must refuse them), hence the cast.
  const blocks = (typeof content === 'string' ? [{ type: 'text', text: content }] : content) as ContentBlock[];
  return { turn, step, message: { role: 'assistant', content: blocks, source: { kind: 'model', provider: 'p', model: 'm' }, id } };
}

/** A tool-call block. */
export function toolCallBlock(id: string, name = 'read'): ToolCallBlock {
  return { type: 'tool-call', id, name, arguments: '{}' };
}

/** A `tool/result` payload answering `callId`. */
export function toolResultData(turn: number, step: number, callId: string, text: string, id = `r-${callId}`): ToolResultData {
  return {
    turn,
    step,
    message: {
      source: { kind: 'tool', callId },
      content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: false }],
      role: 'user',
      id,
    },
  };
}

/**
 * Appends an event the typed `append` would not accept (a type outside `SessionEventMap`, a malformed payload), so a
 * test can show that the validation layers refuse it at run time or that an unknown type is logged as is.
 */
export function appendRaw(session: Session, type: string, data: unknown, options?: AppendOptions): SessionEvent {
  return (session.append as (type: string, data: unknown, options?: AppendOptions) => SessionEvent)(type, data, options);
}

/** Appends `turn/start {turn}` and `step/start {turn, step}`. */
export function openStep(session: Session, turn: number, step: number): void {
  if (session.openTurn() === null) session.append('turn/start', { turn });
  session.append('step/start', { turn, step });
}

/** Runs `run`, expects a throw, checks message / code / name, and returns the error. */
export function expectThrow(run: () => unknown, expected: { message: string; code?: string; name?: string }): Error & { code?: unknown } {
  return expectError(run, expected) as Error & { code?: unknown };
}

/** The `type` of every event, in order. */
export function typesOf(events: readonly SessionEvent[]): string[] {
  return events.map((event) => event.type);
}

/** Polls `predicate` once per macrotask until it holds (at most 1000 turns of the event loop). */
export async function waitFor(predicate: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    if (predicate()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Event types with runs of `assistant/chunk` collapsed to one `assistant/chunk…` entry. */
export function collapsedTypes(events: readonly SessionEvent[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    if (event.type === 'assistant/chunk' && out.at(-1) === 'assistant/chunk…') continue;
    out.push(event.type === 'assistant/chunk' ? 'assistant/chunk…' : event.type);
  }
  return out;
}

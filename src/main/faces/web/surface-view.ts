/**
 * A session's current surface as the Session view shows it (issue 18, SESSION-REFERENCE.md §12): one item per
 * content block, compaction checkpoints as their own kind, and each `session-reference` context as a
 * `session-recall` item attached to the direct user message right before it, with a compact summary per source
 * (from the context's `source.references` metadata) beside its framed JSON. Pure: a function of the snapshot and
 * the session's label.
 */
import { isCompactionCheckpoint } from '../../../protocol/checkpoint.js';
import type { ContentBlock, Message, SessionEvent, SessionHeader, SessionSurfaceSnapshot, SurfaceEvent } from '../../../protocol/events.js';
import { isSurfaceType } from '../../../protocol/events.js';
import { eventMessage } from '../../../protocol/event-message.js';
import { isRecord } from '../../../protocol/record-guard.js';
import { escapeDisplayText } from '../../../protocol/uri/display-escape.js';
import { formatSessionReferenceMention } from '../../../protocol/uri/mention-formatter.js';
import { parseSessionReferenceText } from '../../../protocol/uri/mention-parser.js';
import type {
  WebMention,
  WebReplacement,
  WebSessionLog,
  WebSourceSummary,
  WebSurface,
  WebTranscriptItem,
} from '../../../protocol/web/web-api.js';

/** The `source.kind` of a context message that `prepare()` wrote (SESSION-REFERENCE.md §12). */
const SESSION_REFERENCE_KIND = 'session-reference';

/** The text of the text blocks of a message, one block per line; other blocks named in parentheses. */
function blocksText(content: readonly ContentBlock[]): string {
  return content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : `(${block.type} block)`))
    .join('\n');
}

/** A number the metadata should hold, or 0 when a foreign writer left something else. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * The per-source summaries of a context message's `source.references` (SESSION-REFERENCE.md §12), in input order.
 * Entries without a string `sessionId` are not summaries of anything and are left out.
 * @param source - the context message's source.
 */
export function sourceSummaries(source: Message['source']): WebSourceSummary[] {
  const references = Array.isArray(source['references']) ? (source['references'] as unknown[]) : [];
  const out: WebSourceSummary[] = [];
  for (const reference of references) {
    if (!isRecord(reference) || typeof reference['sessionId'] !== 'string') continue;
    const sessionId = reference['sessionId'];
    out.push({
      sessionId,
      label: escapeDisplayText(typeof reference['label'] === 'string' ? reference['label'] : sessionId),
      keptMessages: count(reference['retainedMessages']),
      omittedMessages: count(reference['omittedMessages']),
      omittedBytes: count(reference['omittedBytes']),
      truncated: reference['truncated'] === true,
      compacted: reference['compacted'] === true,
    });
  }
  return out;
}

/**
 * The mentions still written in a user message's text (a message that never went through `prepare()` keeps them);
 * text whose mention syntax does not decode strictly has none.
 */
function textMentions(text: string): WebMention[] {
  try {
    return parseSessionReferenceText(text).references.map((reference) => ({
      sessionId: reference.sessionId,
      label: escapeDisplayText(reference.label),
      mention: formatSessionReferenceMention(reference),
    }));
  } catch {
    // An undecodable `dsh-session:` URI in a stored message is text, not a mention: the message shows as written.
    return [];
  }
}

/** The items of one surface event, in block order. */
function eventItems(event: SurfaceEvent, previous: SurfaceEvent | undefined): WebTranscriptItem[] {
  const message = eventMessage(event);
  if (message === undefined) return [];
  const { seq, time } = event;
  switch (event.type) {
    case 'user/message': {
      if (isCompactionCheckpoint(message)) return [{ kind: 'checkpoint', seq, time, text: blocksText(message.content) }];
      if (message.source.kind === SESSION_REFERENCE_KIND) {
        const sources = sourceSummaries(message.source);
        const before = previous === undefined ? undefined : eventMessage(previous);
        // The context is logged right after its direct message (§12); anything else before it means no association.
        const attached = previous?.type === 'user/message' && before?.source.kind === 'user' ? previous.seq : null;
        return [
          {
            kind: 'session-recall',
            seq,
            time,
            attachedToSeq: attached,
            labels: sources.map((source) => source.label),
            sources,
            text: blocksText(message.content),
          },
        ];
      }
      const text = blocksText(message.content);
      return [{ kind: 'user', seq, time, text, mentions: textMentions(text) }];
    }
    case 'assistant/message':
      return message.content.map((block): WebTranscriptItem => {
        if (block.type === 'reasoning' && typeof block.text === 'string') return { kind: 'reasoning', seq, time, text: block.text };
        if (block.type === 'tool-call') {
          const call = block as { id?: unknown; name?: unknown; arguments?: unknown };
          return {
            kind: 'tool-call',
            seq,
            time,
            callId: String(call.id),
            name: String(call.name),
            argumentsText: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          };
        }
        return { kind: 'assistant', seq, time, text: blocksText([block]) };
      });
    case 'tool/result':
      return message.content.map((block): WebTranscriptItem => {
        if (block.type === 'tool-result') {
          const result = block as { toolCallId?: unknown; content?: unknown };
          const content = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
          return { kind: 'tool-result', seq, time, callId: String(result.toolCallId), text: blocksText(content) };
        }
        return { kind: 'tool-result', seq, time, callId: '', text: blocksText([block]) };
      });
    default:
      return [];
  }
}

/**
 * The Session view of one snapshot. A user message followed by its `session-reference` context shows the context's
 * sources as its mentions (the stored direct message has them rewritten to `@label`, §8); other user messages show the
 * mentions their text still holds.
 * @param snapshot - the session's current surface (`readSurface`).
 * @param label - the session's discovery label (escaped).
 * @returns the surface as a conversation.
 */
export function surfaceView(snapshot: SessionSurfaceSnapshot, label: string): WebSurface {
  const { session } = snapshot;
  return {
    sessionId: session.id,
    label,
    ...(session.cwd === undefined ? {} : { cwd: escapeDisplayText(session.cwd) }),
    createdAt: session.createdAt,
    items: conversationItems(snapshot.events),
  };
}

/**
 * The items of surface events in order; a user message followed by its `session-reference` context shows the
 * context's sources as its mentions.
 */
function conversationItems(events: readonly SurfaceEvent[]): WebTranscriptItem[] {
  const items: WebTranscriptItem[] = [];
  events.forEach((event, index) => {
    for (const item of eventItems(event, events[index - 1])) items.push(item);
  });
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index] as WebTranscriptItem;
    if (item.kind !== 'session-recall' || item.attachedToSeq === null) continue;
    const userIndex = items.findLastIndex(
      (candidate, at) => at < index && candidate.kind === 'user' && candidate.seq === item.attachedToSeq,
    );
    const user = items[userIndex];
    if (user?.kind !== 'user') continue;
    items[userIndex] = {
      ...user,
      mentions: item.sources.map((source) => ({
        sessionId: source.sessionId,
        label: source.label,
        mention: formatSessionReferenceMention({ sessionId: source.sessionId, label: source.label }),
      })),
    };
  }
  return items;
}

/**
 * The whole log as a conversation (the Web's `show --log`): every surface event in log order, current or not, and
 * for each replacement the messages it took off the surface. The surface is followed as SESSION-LOG.md §5 folds it
 * (a replace covers the current nodes from its start seq to its end seq), on a log the store has already validated.
 * @param session - the log's header.
 * @param events - the whole log, in seq order (as `inspect` returns it).
 * @param label - the session's discovery label (escaped).
 */
export function logView(session: SessionHeader, events: readonly SessionEvent[], label: string): WebSessionLog {
  const surfaceEvents: SurfaceEvent[] = [];
  // The current surface as seqs, in order: a replace takes a contiguous run of it.
  const surface: number[] = [];
  const replacements: WebReplacement[] = [];
  const shadowed: { seq: number; by: number }[] = [];
  for (const event of events) {
    const op = event.surfaceOp;
    if (op === undefined || !isSurfaceType(event.type)) continue;
    const surfaceEvent = event as SurfaceEvent;
    surfaceEvents.push(surfaceEvent);
    if (op === 'append') {
      surface.push(event.seq);
      continue;
    }
    const from = surface.indexOf(op.start);
    const to = surface.indexOf(op.end);
    if (from < 0 || to < from) {
      // Not a replace of the current surface (the store would have refused it): shown as an append.
      surface.push(event.seq);
      continue;
    }
    const replaced = surface.splice(from, to - from + 1, event.seq);
    const message = eventMessage(surfaceEvent);
    replacements.push({ seq: event.seq, replaced, compaction: message !== undefined && isCompactionCheckpoint(message) });
    for (const seq of replaced) shadowed.push({ seq, by: event.seq });
  }
  return {
    sessionId: session.id,
    label,
    ...(session.cwd === undefined ? {} : { cwd: escapeDisplayText(session.cwd) }),
    createdAt: session.createdAt,
    items: conversationItems(surfaceEvents),
    replacements,
    shadowed: shadowed.sort((a, b) => a.seq - b.seq),
  };
}

/**
 * `sessionctx show <id>`: a session's current surface (what a model sees), or with `--log` its
 * whole balanced log.
 */
import { asSessionId } from '../../../protocol/events.js';
import type { ContentBlock, Message, SessionEvent } from '../../../protocol/events.js';
import type { CliIo } from '../cli-io.js';
import { writeJson, writeLines } from '../cli-io.js';
import { openCorpus } from '../open-corpus.js';

/** Options of the `show` command. */
export interface ShowCommandOptions {
  readonly root: string;
  readonly json: boolean;
  readonly id: string;
  readonly log: boolean;
}

/**
 * Prints the `readSurface` snapshot `{session, capturedThroughSeq, events}`, or with `log` the
 * inspected log `{session, events}` (stored events plus synthetic crash closers).
 */
export async function runShowCommand(io: CliIo, options: ShowCommandOptions, signal?: AbortSignal): Promise<void> {
  const { query, store } = await openCorpus(options.root, io.env);
  const id = asSessionId(options.id);
  if (options.log) {
    const { meta, events } = await store.inspect(id, signal);
    if (options.json) writeJson(io, { session: meta, events });
    else writeLines(io, [`session ${meta.id}${meta.cwd !== undefined ? ` [${meta.cwd}]` : ''}: ${events.length} events`, ...events.map(formatLogEvent)]);
    return;
  }
  const snapshot = await query.readSurface(id, signal);
  if (options.json) {
    writeJson(io, snapshot);
    return;
  }
  writeLines(io, [
    `session ${snapshot.session.id}${snapshot.session.cwd !== undefined ? ` [${snapshot.session.cwd}]` : ''}`,
    `captured through seq ${snapshot.capturedThroughSeq ?? '(empty log)'}; ${snapshot.events.length} surface events`,
    '',
    ...snapshot.events.map(formatSurfaceEvent),
  ]);
}

function messageOf(event: SessionEvent): Message | undefined {
  const data = event.data as { message?: Message } & Partial<Message>;
  return event.type === 'user/message' ? (data as Message) : data.message;
}

function formatBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return String(block.text);
    case 'reasoning':
      return `(reasoning: ${oneLine(String(block.text), 80)})`;
    case 'tool-call':
      return `→ ${String(block.name)}(${oneLine(String(block.arguments), 120)})`;
    case 'tool-result': {
      const inner = (block.content as readonly ContentBlock[]).map(formatBlock).join(' ');
      return `← ${block.isError === true ? 'error: ' : ''}${oneLine(inner, 200)}`;
    }
    default:
      return `(${block.type} block)`;
  }
}

function formatSurfaceEvent(event: SessionEvent): string {
  const message = messageOf(event);
  const role = event.type === 'tool/result' ? 'tool' : (message?.role ?? '?');
  const kind = message !== undefined && message.source.kind !== 'user' && message.source.kind !== 'model' && message.source.kind !== 'tool' ? ` (${message.source.kind})` : '';
  const body = message === undefined ? '' : message.content.map(formatBlock).join('\n');
  return `#${event.seq} ${role}${kind}: ${body}`;
}

function formatLogEvent(event: SessionEvent): string {
  if (event.type === 'user/message' || event.type === 'assistant/message' || event.type === 'tool/result') {
    return `${formatSurfaceEvent(event)}`;
  }
  return `#${event.seq} ${event.type} ${oneLine(JSON.stringify(event.data) ?? '', 120)}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * `sessionctx show <id>`: a session's current surface (what a model sees), or with `--log` its
 * whole balanced log.
 */
import { asSessionId } from '../../../../protocol/events.js';
import type { ContentBlock, Message, SessionEvent, SessionId } from '../../../../protocol/events.js';
import type { LocalSessionEngine } from '../../../engine/assembly/create-engine.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withEngine } from '../open-engine.js';
import { unlistedSessionError } from '../existing-session.js';
import { resolveSessionId } from '../session-id-prefix.js';

/** What `show` needs. */
interface ShowRequest {
  /** A session id, or an unambiguous prefix of one. */
  readonly id: string;
  readonly log: boolean;
}

/**
 * Prints the `readSurface` snapshot `{session, capturedThroughSeq, events}`, or with `log` the
 * inspected log `{session, events}` (stored events plus synthetic crash closers).
 * @param context - the parsed command context.
 * @param options - the id and `--log`.
 */
async function showSession(context: CommandContext, options: ShowRequest): Promise<void> {
  const { io, signal } = context;
  await withEngine(context, async (engine) => {
    if (options.log) {
      const store = engine.store;
      if (store === undefined) throw new TypeError('show --log needs a session root');
      const { meta, events } = await readExactOrByPrefix(engine, options.id, (id) => store.inspect(id, signal), signal);
      if (context.json) writeJson(io, { session: meta, events });
      else
        writeLines(io, [
          `session ${meta.id}${meta.cwd !== undefined ? ` [${meta.cwd}]` : ''}: ${events.length} events`,
          ...events.map(formatLogEvent),
        ]);
      return;
    }
    const snapshot = await readExactOrByPrefix(engine, options.id, (id) => engine.readSurface(id, signal), signal);
    if (context.json) {
      writeJson(io, snapshot);
      return;
    }
    writeLines(io, [
      `session ${snapshot.session.id}${snapshot.session.cwd !== undefined ? ` [${snapshot.session.cwd}]` : ''}`,
      `captured through seq ${snapshot.capturedThroughSeq ?? '(empty log)'}; ${snapshot.events.length} surface events`,
      '',
      ...snapshot.events.map(formatSurfaceEvent),
    ]);
  });
}

/**
 * Reads by the exact id first (the common case costs no listing); when that session is not found, an
 * unambiguous id prefix names the session instead. Any other failure is the exact read's own error; a prefix
 * matching nothing is the real reason the id names no listed session (a damaged log of that id fails with the
 * store's code, as `dcp` on the same id does), else not-found.
 */
async function readExactOrByPrefix<T>(
  engine: LocalSessionEngine,
  typed: string,
  read: (id: SessionId) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  try {
    return await read(asSessionId(typed));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SESSION_QUERY_SESSION_NOT_FOUND') throw error;
    const resolved = await resolveSessionId(engine, typed, signal);
    if (resolved === undefined) throw await unlistedSessionError(engine, typed, signal);
    if (resolved === typed) throw error;
    return read(resolved);
  }
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
  const kind =
    message !== undefined && message.source.kind !== 'user' && message.source.kind !== 'model' && message.source.kind !== 'tool'
      ? ` (${message.source.kind})`
      : '';
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

/** `sessionctx show <id> [--log]`. */
export const showCommand: CliCommandDefinition<[id: string], { readonly log?: boolean }> = {
  name: ['show'],
  usage: {
    description: "print a session's current surface (what its model sees), or with --log its whole log",
    arguments: [{ name: '<id>', description: 'a session id, or an unambiguous prefix of one (with or without "session-")' }],
    examples: ['sessionctx show session-9d029d81', 'sessionctx show 9d029d81 --log --json'],
  },
  options: [{ flags: '--log', description: 'print every logged event (crash closers included) instead of the surface' }],
  run(context, { args: [id], options }) {
    return showSession(context, { id, log: options.log === true });
  },
};

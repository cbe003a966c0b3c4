/**
 * `sessionctx show <id>`: a session's current surface (what a model sees), or with `--log` its
 * whole balanced log.
 */
import type { ContentBlock, Message, SessionEvent } from '../../../../protocol/events.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withCatalog } from '../open-engine.js';

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
  await withCatalog(context, async ({ catalog }) => {
    if (options.log) {
      const { meta, events } = await catalog.inspectLog(options.id, signal);
      if (context.json) writeJson(io, { session: meta, events });
      else
        writeLines(io, [
          `session ${meta.id}${meta.cwd !== undefined ? ` [${meta.cwd}]` : ''}: ${events.length} events`,
          ...events.map(formatLogEvent),
        ]);
      return;
    }
    const snapshot = await catalog.readSurfaceOf(options.id, signal);
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

/**
 * `sessionctx prepare --target <id> "<message>"`: what the model would receive for a user message
 * that cites other sessions — the rewritten message and the snapshot context message.
 */
import { parseMessageContent } from '../../../protocol/uri/mention-parser.js';
import type { ContentBlock } from '../../../protocol/events.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withEngine } from '../open-engine.js';
import { resolveTarget } from './resolve-target.js';

/** Options of the `prepare` command (the byte and reference limits come from the resolved configuration). */
export interface PrepareCommandOptions {
  /** The citing session's id (or an unambiguous prefix); it need not exist. */
  readonly target: string;
  readonly message: string;
}

/**
 * Parses the message's mentions and prepares the context. `--json` prints exactly
 * `{content, additionalContext}` as `prepare()` returns them.
 * @param context - the parsed command context.
 * @param options - the target and the message.
 */
export async function runPrepareCommand(context: CommandContext, options: PrepareCommandOptions): Promise<void> {
  const { io, signal } = context;
  const prepared = await withEngine(context, async (engine) => {
    const target = await resolveTarget(engine, options.target, undefined, signal);
    const content: ContentBlock[] = [{ type: 'text', text: options.message }];
    const parsed = parseMessageContent(content);
    return engine.prepare(target, parsed.content, parsed.references, signal);
  });
  if (context.json) {
    writeJson(io, prepared);
    return;
  }
  const text = prepared.content.map((block) => (block.type === 'text' ? String(block.text) : `(${block.type} block)`)).join('\n');
  if (prepared.additionalContext === undefined) {
    writeLines(io, ['message (no sessions referenced):', text]);
    return;
  }
  const references = (prepared.additionalContext.source as { references?: Array<Record<string, unknown>> }).references ?? [];
  writeLines(io, [
    'message:',
    text,
    '',
    `context message (${references.length} source${references.length === 1 ? '' : 's'}):`,
    ...references.map(
      (reference) =>
        `  - ${String(reference.label)} (${String(reference.sessionId)}): ${String(reference.retainedMessages)}/${String(reference.originalMessages)} messages kept` +
        `${reference.truncated === true ? `, ${String(reference.omittedMessages)} dropped, ${String(reference.omittedBytes)} bytes omitted` : ''}` +
        `${reference.compacted === true ? ', compacted' : ''}; captured through seq ${String(reference.capturedThroughSeq)}`,
    ),
    '',
    ...prepared.additionalContext.content.map((block) => (block.type === 'text' ? String(block.text) : `(${block.type} block)`)),
  ]);
}

/**
 * `sessionctx prepare --target <id> "<message>"`: what the model would receive for a user message
 * that cites other sessions — the rewritten message and the snapshot context message.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { expandHome } from '../../../engine/config/home-path.js';
import { CliError } from '../cli-error.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import type { CommandContext } from '../command-context.js';
import { parseCountOption } from '../count-option.js';
import { UsageError } from '../usage-error.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withCatalog } from '../open-engine.js';

/** What `prepare` needs (the byte and reference limits come from the resolved configuration). */
interface PrepareRequest {
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
async function prepareMessage(context: CommandContext, options: PrepareRequest): Promise<void> {
  const { io, signal } = context;
  const prepared = await withCatalog(context, async ({ catalog }) => {
    const target = await catalog.readerFor(options.target, undefined, signal);
    return catalog.prepareText(target, options.message, signal);
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
  const { references } = prepared.additionalContext.source;
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

/** The message of `prepare`: one argument, or `--message-file F` (`-` for standard input), not both. */
async function readMessage(io: CliIo, positional: string | undefined, messageFile: string | undefined): Promise<string> {
  if (messageFile !== undefined) {
    if (positional !== undefined) throw new UsageError('give the message either as an argument or with --message-file, not both');
    if (messageFile === '-') return io.readStdin();
    const expanded = expandHome(messageFile, io.env);
    const path = isAbsolute(expanded) ? expanded : resolve(io.cwd, expanded);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new CliError(
        'CLI_INPUT_UNREADABLE',
        `cannot read the message file "${path}": ${(error as { code?: string }).code ?? String(error)}`,
        { cause: error },
      );
    }
  }
  if (positional === undefined)
    throw new UsageError('sessionctx prepare needs the message: an argument, or --message-file F (- for standard input)');
  return positional;
}

/** The options of `prepare`. */
export interface PrepareOptions {
  readonly target: string;
  readonly messageFile?: string;
  readonly maxBytes?: number;
  readonly maxReferences?: number;
}

/** `sessionctx prepare [message] --target <id> [--message-file F] [--max-bytes N] [--max-references N]`. */
export const prepareCommand: CliCommandDefinition<[message: string | undefined], PrepareOptions> = {
  name: ['prepare'],
  usage: {
    description: 'print what the model would receive for a user message citing other sessions: the message and the snapshot context',
    arguments: [{ name: '[message]', description: 'the user message with @[label](dsh-session:…) mentions' }],
    examples: [
      'sessionctx prepare --target session-new "Continue from @[the webshop tests](dsh-session:InNlc3Npb24tOWQwMjlkODEtZTUxNS00OGFjLWIxNjgtZmVmNzAxMWYzNDkxIg)."',
      'sessionctx mention 9d029d81 | sessionctx prepare --target session-new --message-file -',
    ],
  },
  options: [
    { flags: '--target <id>', description: 'the citing session (it need not exist yet); an id or unambiguous prefix', required: true },
    { flags: '--message-file <file>', description: 'read the message from a file, or - for standard input' },
    {
      flags: '--max-bytes <n>',
      description: 'the byte budget of the snapshot context',
      parse: parseCountOption,
      configKey: 'maxReferenceBytes',
    },
    {
      flags: '--max-references <n>',
      description: 'how many sessions one message may cite',
      parse: parseCountOption,
      configKey: 'maxReferences',
    },
  ],
  configFlags(options) {
    return { maxReferenceBytes: options.maxBytes, maxReferences: options.maxReferences };
  },
  async run(context, { args: [message], options }) {
    const text = await readMessage(context.io, message, options.messageFile);
    return prepareMessage(context, { target: options.target, message: text });
  },
};

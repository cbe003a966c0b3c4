/**
 * `sessionctx prepare --target <id> "<message>"`: what the model would receive for a user message
 * that cites other sessions — the rewritten message and the snapshot context message.
 */
import { parseMessageContent } from '../../../protocol/uri/mention-parser.js';
import type { ContentBlock } from '../../../protocol/events.js';
import { SessionReferenceService } from '../../reference/session-reference-service.js';
import type { CliIo } from '../cli-io.js';
import { writeJson, writeLines } from '../cli-io.js';
import { openCorpus } from '../open-corpus.js';
import { resolveTarget } from './resolve-target.js';

/** Options of the `prepare` command. */
export interface PrepareCommandOptions {
  readonly root: string;
  readonly json: boolean;
  readonly target: string;
  readonly message: string;
  readonly maxBytes?: number;
  readonly maxReferences?: number;
}

/**
 * Parses the message's mentions and prepares the context. `--json` prints exactly
 * `{content, additionalContext}` as `prepare()` returns them.
 */
export async function runPrepareCommand(io: CliIo, options: PrepareCommandOptions, signal?: AbortSignal): Promise<void> {
  const { query } = await openCorpus(options.root, io.env);
  const service = new SessionReferenceService({
    sessionQuery: query,
    config: { maxReferenceBytes: options.maxBytes, maxReferences: options.maxReferences },
  });
  const target = await resolveTarget(query, options.target, undefined, signal);
  const content: ContentBlock[] = [{ type: 'text', text: options.message }];
  const parsed = parseMessageContent(content);
  const prepared = await service.prepare(target, parsed.content, parsed.references, signal);
  if (options.json) {
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

/**
 * The pure part of the inline cleanup (DCP.md §7.12): rewriting the author's compress arguments so that every
 * committed entry's summary reads `[stored in bK]`, and the cleaned copy of the author message. Failed and skipped
 * entries keep their summary: the mapping is by input index.
 */
import { isRecord } from '../events.js';
import type { ContentBlock, Message } from '../events.js';
import { storedInMarker } from './constants.js';

/** Warning: the author node was not found (§7.12 rule 1). */
export const AUTHOR_NOT_FOUND_WARNING = 'author assistant message not found for inline cleanup';

/** Warning: the tool-call arguments are not JSON (§7.12 rule 2). */
export const ARGUMENTS_UNPARSEABLE_WARNING = 'compress arguments could not be parsed for inline cleanup';

/** Warning: no argument entry changed (§7.12 rule 3). */
export const NOTHING_TO_CLEAN_WARNING = 'no inline summary argument found to clean';

/** The result of cleaning the arguments. */
export type CleanedArguments = { readonly ok: true; readonly arguments: string } | { readonly ok: false; readonly warning: string };

/**
 * Rewrites the raw `arguments` JSON of the compress call (§7.12 rules 2–4): for every input index in
 * `committedBlocks` whose `content[i].summary` is a string, the summary becomes `[stored in bK]`. The result is
 * `JSON.stringify` of the edited object, key order kept. A summary that already reads `[stored in bK]` is not a change.
 */
export function cleanCompressArguments(rawArguments: string, committedBlocks: ReadonlyMap<number, string>): CleanedArguments {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawArguments);
  } catch {
    // Unparseable arguments are a documented cleanup warning, not an error: the blocks are already committed.
    return { ok: false, warning: ARGUMENTS_UNPARSEABLE_WARNING };
  }
  const content = isRecord(parsed) ? parsed['content'] : undefined;
  let changed = false;
  if (Array.isArray(content)) {
    for (const [index, blockRef] of committedBlocks) {
      const entry: unknown = content[index];
      if (!isRecord(entry) || typeof entry['summary'] !== 'string') continue;
      const marker = storedInMarker(blockRef);
      if (entry['summary'] === marker) continue;
      entry['summary'] = marker;
      changed = true;
    }
  }
  if (!changed) return { ok: false, warning: NOTHING_TO_CLEAN_WARNING };
  return { ok: true, arguments: JSON.stringify(parsed) };
}

/**
 * The cleaned author message (§7.12 rule 4): same keys and values, every block unchanged except the first
 * tool-call block with `id === callId`, whose `arguments` becomes `newArguments`. `undefined` when there is no
 * such block.
 */
export function cleanedAuthorMessage<M extends Message>(author: M, callId: string, newArguments: string): M | undefined {
  const index = author.content.findIndex((block) => block.type === 'tool-call' && (block as { id?: unknown }).id === callId);
  if (index < 0) return undefined;
  const content: ContentBlock[] = author.content.map((block, blockIndex) =>
    blockIndex === index ? ({ ...block, arguments: newArguments } as ContentBlock) : block,
  );
  return { ...author, content };
}

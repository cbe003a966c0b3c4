/**
 * The `/dcp show` block (DCP.md §11.3), with the optional raw transcript (`--raw`, §12.1) and the
 * `/dcp decompress` note.
 */
import { DECOMPRESS_NOTE_TEXT } from './command-texts.js';
import type { DcpMetaV1 } from './dcp-meta.js';

/** A block's membership (§13.1). */
export type BlockMembership = 'active' | 'consumed' | 'absorbed-native' | 'expanded';

/** Everything the show block needs. */
export interface ShowBlockInput {
  readonly meta: DcpMetaV1;
  readonly membership: BlockMembership;
  /** The full checkpoint text. */
  readonly text: string;
  /** With `--raw`: the leaf count and the rendered transcript (§12.1). */
  readonly raw?: { readonly leafCount: number; readonly transcript: string };
}

function listOrNone(items: readonly string[]): string {
  return items.length === 0 ? '(none)' : items.join(', ');
}

/** The show block text. */
export function formatShowBlock(input: ShowBlockInput): string {
  const { meta } = input;
  const lines = [
    `Block ${meta.blockRef}:`,
    `kind: ${meta.kind}`,
    `mode: ${meta.mode}`,
    `topic: ${meta.topic}`,
    `status: ${input.membership}`,
    `range: ${meta.startRef}..${meta.endRef ?? '(none)'}`,
    `consumed blocks: ${listOrNone(meta.consumedBlockRefs)}`,
  ];
  if (meta.recompressedFrom !== undefined) lines.push(`recompressed from: ${meta.recompressedFrom}`);
  lines.push('summary:', input.text);
  let text = lines.join('\n');
  if (input.raw !== undefined) {
    text += `\n\nOriginal leaf nodes (${input.raw.leafCount}):`;
    if (input.raw.transcript !== '') text += `\n${input.raw.transcript}`;
  }
  return text;
}

/**
 * `/dcp decompress <bN>` without `--into-context`: the raw show block, a blank line, then the note (dsh-dcp's layout:
 * the note is set off from the last leaf as the leaves are from each other).
 */
export function formatDecompressShow(input: ShowBlockInput & { readonly raw: NonNullable<ShowBlockInput['raw']> }): string {
  return `${formatShowBlock(input)}\n\n${DECOMPRESS_NOTE_TEXT}`;
}

/**
 * Checkpoint texts (DCP.md §6.2, §7.9, §12.2, §12.3): the block text with its single trailing id tag, body
 * extraction for nesting and recompression, the prior-blocks appendix section and the expansion text.
 */
import { blockIdTag, CHECKPOINT_HEADER, expansionHeader, PRIOR_BLOCKS_TITLE, PRIOR_CLOSE, priorOpenTag } from './constants.js';

/** One leading block ref such as `[b3]` plus the whitespace after it. */
const LEADING_BLOCK_REF_RE = /^\[b\d+\]\s*/;

/** The prefix every DCP checkpoint text starts with. */
const HEADER_PREFIX = `${CHECKPOINT_HEADER}\n`;

/**
 * The summary as stored (§6.2): trimmed, with one leading `[bN]` (and the whitespace after it) removed. The
 * removal is defensive: validation already rejects such summaries (E5).
 */
export function normalizeSummary(summary: string): string {
  return summary.trim().replace(LEADING_BLOCK_REF_RE, '');
}

/**
 * The checkpoint text of block `blockRef`: header line, the normalised summary, the appendix (whose sections
 * each start with `\n`, so nothing separates it from the summary), a blank line and the block id tag.
 */
export function buildCheckpointText(blockRef: string, summary: string, appendix: string): string {
  return `${HEADER_PREFIX}${normalizeSummary(summary)}${appendix}\n\n${blockIdTag(blockRef)}`;
}

/**
 * The body of a block's checkpoint text (§6.2 body extraction). For this build's layout it is what lies between
 * the header line and `\n\n<dcp-message-id>ownRef</dcp-message-id>`; otherwise the text without its own trailing
 * tag, or the whole text when that tag is absent.
 */
export function extractCheckpointBody(text: string, ownRef: string): string {
  const tag = blockIdTag(ownRef);
  const suffix = `\n\n${tag}`;
  if (text.startsWith(HEADER_PREFIX) && text.endsWith(suffix) && text.length >= HEADER_PREFIX.length + suffix.length) {
    return text.slice(HEADER_PREFIX.length, text.length - suffix.length);
  }
  return text.endsWith(tag) ? text.slice(0, text.length - tag.length) : text;
}

/** One consumed block for the prior-blocks section. */
export interface PriorBlock {
  readonly ref: string;
  readonly body: string;
}

/**
 * The `Included prior blocks:` appendix section (§7.8 item 3) for the consumed blocks in surface order, or `''`
 * when there are none: `\nIncluded prior blocks:` then, per block, `\n<dcp-prior ref="bK">\n<body>\n</dcp-prior>`.
 */
export function buildPriorBlocksSection(priors: readonly PriorBlock[]): string {
  if (priors.length === 0) return '';
  let section = `\n${PRIOR_BLOCKS_TITLE}`;
  for (const prior of priors) section += `\n${priorOpenTag(prior.ref)}\n${prior.body}\n${PRIOR_CLOSE}`;
  return section;
}

/** `[Expanded block bOld]\n\n<transcript>\n\n<dcp-message-id>bNew</dcp-message-id>` (§12.2 rule 4). */
export function buildExpansionText(oldRef: string, transcript: string, newRef: string): string {
  return `${expansionHeader(oldRef)}\n\n${transcript}\n\n${blockIdTag(newRef)}`;
}

/** `[Compressed conversation section]\n<body of bOld>\n\n<dcp-message-id>bNew</dcp-message-id>` (§12.3 rule 2). */
export function buildRecompressionText(oldBody: string, newRef: string): string {
  return `${HEADER_PREFIX}${oldBody}\n\n${blockIdTag(newRef)}`;
}

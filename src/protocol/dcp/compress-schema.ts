/**
 * The `compress` tool as shown to the model (DCP.md §7.2): its description and JSON Schema parameters. Keys are
 * built in the order the table shows (schema keys, then `description`, then child `properties`), so the request
 * header stays byte-stable for a fixed configuration. The host never enforces the schema; the tool validates its
 * own input (§7.4, §7.5).
 */
import { COMPRESS_TOOL_NAME, REF_MAX_CHARS, SUMMARY_MAX_CHARS, TOPIC_MAX_CHARS } from './constants.js';

/** The tool description, verbatim. */
export const COMPRESS_TOOL_DESCRIPTION =
  'Compress closed, older parts of this conversation into your own summaries to keep the context small. Each content entry names a half-open range [startRef, endRef) with boundary refs shown in the conversation (mNNNN from <dcp-boundary> lines, bN from <dcp-message-id> tags) and gives a complete technical summary that replaces it. Several non-overlapping ranges may be passed in surface order; each is validated and committed on its own.';

/** Description of `topic`, verbatim. */
export const TOPIC_DESCRIPTION = 'Short 3-5 word label for what is being compressed.';

/** Description of `content[].startRef`, verbatim. */
export const START_REF_DESCRIPTION = 'Boundary ref where the range starts (inclusive), e.g. m0001 or b2.';

/** Description of `content[].endRef`, verbatim. */
export const END_REF_DESCRIPTION = 'Boundary ref where the range ends (exclusive; that message is kept), e.g. m0007.';

/** Description of `content[].summary`, verbatim. */
export const SUMMARY_DESCRIPTION =
  'Complete technical summary that replaces the range: plain prose with the facts, decisions, file paths, results and open items needed later. Do not start with [bN]; never write [stored in bN].';

/** The JSON Schema of the tool's parameters for a given `compress.maxRangesPerCall` (a fresh object). */
export function compressToolParameters(maxRangesPerCall: number): Record<string, unknown> {
  return {
    type: 'object',
    required: ['topic', 'content'],
    properties: {
      topic: { type: 'string', minLength: 1, maxLength: TOPIC_MAX_CHARS, description: TOPIC_DESCRIPTION },
      content: {
        type: 'array',
        minItems: 1,
        maxItems: maxRangesPerCall,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['startRef', 'endRef', 'summary'],
          properties: {
            startRef: { type: 'string', minLength: 1, maxLength: REF_MAX_CHARS, description: START_REF_DESCRIPTION },
            endRef: { type: 'string', minLength: 1, maxLength: REF_MAX_CHARS, description: END_REF_DESCRIPTION },
            summary: { type: 'string', minLength: 1, maxLength: SUMMARY_MAX_CHARS, description: SUMMARY_DESCRIPTION },
          },
        },
      },
    },
  };
}

/** The model-facing tool descriptor `{name, description, parameters}` (HOST.md §8 header order). */
export function compressToolDescriptor(maxRangesPerCall: number): {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
} {
  return { name: COMPRESS_TOOL_NAME, description: COMPRESS_TOOL_DESCRIPTION, parameters: compressToolParameters(maxRangesPerCall) };
}

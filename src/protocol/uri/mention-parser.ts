/**
 * The mention grammar (SESSION-REFERENCE.md §5): explicit `@[label](dsh-session:…)` and bare
 * `dsh-session:<base64url>` references are decoded strictly and replaced by readable `@label` spans.
 */
import type { ContentBlock, TextBlock } from '../events.js';
import { decodeSessionReferenceUri } from './session-uri.js';

/** One reference found in text, in appearance order. */
export interface ParsedSessionReference {
  /** The decoded session id. */
  readonly sessionId: string;
  /** The unescaped explicit label, or the raw id for a bare URI. */
  readonly label: string;
}

/** Result of {@link parseSessionReferenceText}. */
export interface ParsedSessionReferenceText {
  /** The text with every match replaced by `@` + label. */
  readonly text: string;
  /** The references, in appearance order (duplicates kept). */
  readonly references: ParsedSessionReference[];
}

/** Result of {@link parseMessageContent}. */
export interface ParsedMessageContent {
  /** The rewritten blocks; the input array itself when nothing was found. */
  readonly content: readonly ContentBlock[];
  /** References of all text blocks, concatenated in block order. */
  readonly references: ParsedSessionReference[];
  /** True iff some text block held a reference (and therefore `content` is a new array). */
  readonly changed: boolean;
}

/**
 * dsh's exact pattern (§5.1); it must not be rewritten, since mentions have to parse identically in
 * every implementation (D9). `String.prototype.replace` resets `lastIndex` and collects all matches
 * before calling the replacer, so sharing one global instance is safe even when a replacer throws.
 */
const MENTION_PATTERN = /@\[((?:\\.|[^\\\]])*)\]\((dsh-session:[^\s)]*)\)|(dsh-session:[A-Za-z0-9_-]+)/gu;

/** A backslash and the one code point it escapes (the grammar guarantees one follows). */
const LABEL_ESCAPE = /\\([\s\S])/gu;

function unescapeLabel(label: string): string {
  return label.replace(LABEL_ESCAPE, (_escape, character: string) => character);
}

/**
 * Finds every mention and bare URI in `text`, replaces each by `@` + its label (inserted literally)
 * and lists the references. Any captured URI that fails strict decoding makes the whole call throw
 * `SESSION_REFERENCE_INVALID_REFERENCE` (§4). Labels are not display-escaped (§6.3).
 */
export function parseSessionReferenceText(text: string): ParsedSessionReferenceText {
  const references: ParsedSessionReference[] = [];
  const rewritten = text.replace(
    MENTION_PATTERN,
    (_match, label: string | undefined, explicitUri: string | undefined, bareUri: string | undefined) => {
      // A function replacer's return value is inserted verbatim, so `$` in labels stays literal.
      if (explicitUri !== undefined) {
        const reference = { sessionId: decodeSessionReferenceUri(explicitUri), label: unescapeLabel(label ?? '') };
        references.push(reference);
        return `@${reference.label}`;
      }
      const sessionId = decodeSessionReferenceUri(bareUri ?? '');
      references.push({ sessionId, label: sessionId });
      return `@${sessionId}`;
    },
  );
  return { text: rewritten, references };
}

function isTextBlock(block: ContentBlock): block is TextBlock {
  return block.type === 'text' && typeof (block as { text?: unknown }).text === 'string';
}

/**
 * Parses the text blocks of one message (§5.2). Other blocks, and text blocks without references,
 * are kept as the same objects in place; a rewritten text block is a copy with its keys in order.
 * When no block holds a reference the input array itself is returned and `changed` is false.
 */
export function parseMessageContent(content: readonly ContentBlock[]): ParsedMessageContent {
  const references: ParsedSessionReference[] = [];
  let rewritten: ContentBlock[] | undefined;
  content.forEach((block, index) => {
    if (!isTextBlock(block)) return;
    const parsed = parseSessionReferenceText(block.text);
    if (parsed.references.length === 0) return;
    // A loop, not push(...spread): a long text may hold more references than the argument limit.
    for (const reference of parsed.references) references.push(reference);
    rewritten ??= content.slice();
    rewritten[index] = { ...block, text: parsed.text };
  });
  return rewritten === undefined ? { content, references, changed: false } : { content: rewritten, references, changed: true };
}

/**
 * The protection appendix (DCP.md §7.8): protected content inside a range is copied verbatim after the summary,
 * never truncated, in a fixed section order, each section starting with `\n`. The host walks the shadowed nodes
 * in surface order and feeds them here; this module decides what each node contributes and assembles the text
 * and `protectedKinds`.
 */
import { isRecord } from '../events.js';
import type { ContentBlock, MessageSource } from '../events.js';
import { buildPriorBlocksSection } from './checkpoint-text.js';
import type { PriorBlock } from './checkpoint-text.js';
import { isCheckpointSource } from './checkpoint-source.js';
import { isDcpPluginSource } from './marker-recognition.js';

/** One appendix section: its kind (for `protectedKinds`) and its text (starting with `\n`). */
export interface AppendixSection {
  readonly kind: string;
  readonly text: string;
}

/** The settings that decide user-message sections (`dcp.compress.*`). */
export interface UserProtectionSettings {
  readonly protectUserMessages: boolean;
  readonly protectTags: boolean;
  readonly protectedSources: readonly string[];
}

const PROTECT_TAG_RE = /<protect>([\s\S]*?)<\/protect>/gi;

/** The kind of the prior-blocks section. */
export const PRIOR_BLOCKS_KIND = 'prior-blocks';

/** Text blocks joined by `\n` (other blocks ignored): the text of a user message for §7.8 item 1. */
export function userMessageText(content: readonly ContentBlock[]): string {
  return content
    .filter(
      (block): block is { type: 'text'; text: string } => block.type === 'text' && typeof (block as { text?: unknown }).text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}

/**
 * Every `<protect>…</protect>` body (case-insensitive, non-greedy, all occurrences), in order, trimmed of surrounding
 * whitespace as dsh-dcp trims it (the tag's padding is layout, not protected content); blank bodies are left out.
 */
export function protectTagBodies(text: string): string[] {
  const bodies: string[] = [];
  for (const match of text.matchAll(PROTECT_TAG_RE)) {
    const body = match[1]!.trim();
    if (body !== '') bodies.push(body);
  }
  return bodies;
}

/** True for a user message the appendix may copy: neither a DCP plugin message nor a checkpoint (§7.8 item 1). */
export function isEligibleUserSource(source: unknown): boolean {
  return !isDcpPluginSource(source) && !isCheckpointSource(source);
}

/**
 * The sections one shadowed `user/message` contributes (§7.8 item 1 a–c, in that order), or none when it is not
 * eligible or its text is blank.
 */
export function userMessageSections(
  source: MessageSource,
  content: readonly ContentBlock[],
  settings: UserProtectionSettings,
): AppendixSection[] {
  if (!isEligibleUserSource(source)) return [];
  const text = userMessageText(content);
  if (text.trim() === '') return [];
  const sections: AppendixSection[] = [];
  if (settings.protectUserMessages && source.kind === 'user') sections.push({ kind: 'user', text: `\nUser message verbatim:\n${text}` });
  if (settings.protectTags) {
    const bodies = protectTagBodies(text);
    if (bodies.length > 0) sections.push({ kind: 'protect-tag', text: `\nProtected prompt information verbatim:\n${bodies.join('\n')}` });
  }
  const form = source['form'];
  const sourceValue = settings.protectedSources.includes(source.kind)
    ? source.kind
    : typeof form === 'string' && settings.protectedSources.includes(form)
      ? form
      : undefined;
  if (sourceValue !== undefined) {
    sections.push({ kind: `source:${sourceValue}`, text: `\nProtected source ${sourceValue} verbatim:\n${text}` });
  }
  return sections;
}

/**
 * The text of a tool result for the appendix: the blocks inside its tool-result block, text blocks as their text and
 * other blocks as `[<type> block]`, joined by `\n`.
 */
export function toolResultText(content: readonly ContentBlock[]): string {
  const first: unknown = content[0];
  if (!isRecord(first) || !Array.isArray(first['content'])) return '';
  return (first['content'] as unknown[]).map(innerBlockText).join('\n');
}

function innerBlockText(block: unknown): string {
  if (!isRecord(block)) return '[unknown block]';
  if (block['type'] === 'text' && typeof block['text'] === 'string') return block['text'];
  return `[${String(block['type'])} block]`;
}

/** True when a tool output is protected (§7.8 item 2): its tool is listed, or one of its call's file paths matches. */
export function isProtectedToolOutput(
  toolName: string,
  filePaths: readonly string[],
  protectedTools: readonly string[],
  matchesProtectedFile: (path: string) => boolean,
): boolean {
  return protectedTools.includes(toolName) || filePaths.some(matchesProtectedFile);
}

/** The section of a protected tool output: `\nProtected tool <name> output verbatim:\n<text>`, kind `tool:<name>`. */
export function toolOutputSection(toolName: string, text: string): AppendixSection {
  return { kind: `tool:${toolName}`, text: `\nProtected tool ${toolName} output verbatim:\n${text}` };
}

/** The assembled appendix and its de-duplicated kinds in order of first appearance. */
export interface Appendix {
  readonly text: string;
  readonly protectedKinds: readonly string[];
}

/**
 * Joins the sections in the fixed §7.8 order: user-message sections, then tool sections (each in surface order, as
 * given), then the prior-blocks section for the consumed blocks.
 */
export function assembleAppendix(
  userSections: readonly AppendixSection[],
  toolSections: readonly AppendixSection[],
  priors: readonly PriorBlock[],
): Appendix {
  const sections = [...userSections, ...toolSections];
  const prior = buildPriorBlocksSection(priors);
  if (prior !== '') sections.push({ kind: PRIOR_BLOCKS_KIND, text: prior });
  const kinds: string[] = [];
  const seen = new Set<string>();
  for (const section of sections) {
    if (seen.has(section.kind)) continue;
    seen.add(section.kind);
    kinds.push(section.kind);
  }
  return { text: sections.map((section) => section.text).join(''), protectedKinds: kinds };
}

/**
 * The static system guidance section `dcp:guidance`, order 190 (DCP.md §10). It is a pure function of the
 * configuration: dynamic DCP state never enters the system prompt (seed decision E-02), so the request header
 * stays identical across steps.
 */
import { GUIDANCE_SECTION_NAME, GUIDANCE_SECTION_ORDER } from './constants.js';

/** The section heading. */
export const GUIDANCE_HEADING = '## Context pruning (DCP)';

/** The introduction paragraph of the full variant. */
const GUIDANCE_INTRO =
  'This conversation is stored as an append-only log. The compress tool replaces a closed, older part of it with your own summary, which keeps the context small.';

/** The bullets of the full variant, in order, without the duplicate bullet. */
const GUIDANCE_BULLETS: readonly string[] = [
  '- Boundary refs: each step starts with a line such as <dcp-boundary ref="m0012" turn="5" step="1" />, and each compressed block ends with <dcp-message-id>b3</dcp-message-id>. A ref (mNNNN or bN) names the cut just before that message.',
  '- Ranges are half-open: [startRef, endRef) covers everything from startRef up to, but not including, endRef. The endRef message is kept.',
  '- Only compress closed work: both cuts must lie between complete tool calls and their results, and the range must stay out of the current turn and the most recent turns. Do not compress active tool work or instructions.',
  '- Protected content (selected tool outputs and sources, <protect> sections and earlier blocks) is appended verbatim after your summary; you do not need to restate it.',
  '- One call may carry several non-overlapping ranges in surface order. Each range is checked and committed on its own, and the result lists the status of every range.',
  '- A summary must be real technical prose: facts, decisions, file paths, results and open items. Do not start it with a block ref such as [b1], and never write a placeholder such as [stored in b2] as a summary.',
  '- After a successful call, the summaries in your compress arguments are replaced by [stored in bN]. That text is only a cleanup marker; the full summary is the new block, which is authoritative.',
  '- A line such as "alias m0003=s120" means the old ref m0003 still works after host compaction.',
  '- If a range is rejected as invalid, retry with current, closed refs, for example the nearest valid cuts named in the error. If it is rejected for saving too little, do not retry the same range: choose a larger, older range, write a more compact summary, or leave it.',
];

/** The bullet about dedup replacements; also part of the disabled variant. */
const DUPLICATE_BULLET =
  '- A tool output reading "[duplicate <tool> output removed; a newer identical call supersedes it]" was pruned automatically; the newer identical output is still in the context.';

/** Appended when `strategies.purgeErrors.enabled`. */
const PURGE_BULLET = '- A message starting with "[errored tool unit removed]" replaces an old failed tool call and its error.';

/** Appended when `manualMode.default` (full variant only). */
const MANUAL_DEFAULT_LINE = 'Manual mode is on by default: call compress only in a turn that starts with <compress triggered manually>.';

/** The configuration switches the guidance depends on. */
export interface GuidanceOptions {
  /** `compress.enabled`. */
  readonly compressEnabled: boolean;
  /** `strategies.purgeErrors.enabled`. */
  readonly purgeErrorsEnabled: boolean;
  /** `manualMode.default`. */
  readonly manualDefault: boolean;
}

/** The sentence of the disabled variant. */
const DISABLED_SENTENCE = 'Compression is disabled by configuration.';

/**
 * Renders the section. Full variant: heading, blank line, introduction, blank line, the bullets, then the
 * conditional lines (purge bullet, manual-default line) each on its own line. Disabled variant: heading, blank line,
 * the disabled sentence, the duplicate bullet and the purge bullet when purge is enabled. No trailing newline.
 */
export function renderGuidance(options: GuidanceOptions): string {
  if (!options.compressEnabled) {
    const lines = [GUIDANCE_HEADING, '', DISABLED_SENTENCE, DUPLICATE_BULLET];
    if (options.purgeErrorsEnabled) lines.push(PURGE_BULLET);
    return lines.join('\n');
  }
  const lines = [GUIDANCE_HEADING, '', GUIDANCE_INTRO, '', ...GUIDANCE_BULLETS, DUPLICATE_BULLET];
  if (options.purgeErrorsEnabled) lines.push(PURGE_BULLET);
  if (options.manualDefault) lines.push(MANUAL_DEFAULT_LINE);
  return lines.join('\n');
}

/** The system section descriptor `{name, order, render}` for a fixed configuration (rendered once, then constant). */
export function guidanceSection(options: GuidanceOptions): { readonly name: string; readonly order: number; render(): string } {
  const text = renderGuidance(options);
  return { name: GUIDANCE_SECTION_NAME, order: GUIDANCE_SECTION_ORDER, render: () => text };
}

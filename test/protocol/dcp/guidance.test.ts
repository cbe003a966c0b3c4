import { describe, expect, it } from 'vitest';
import { guidanceSection, renderGuidance } from '../../../src/protocol/dcp/guidance.js';

// Copied verbatim from DCP.md §10 (the fenced block and the conditional lines).
const FULL_FROM_SPEC = [
  '## Context pruning (DCP)',
  '',
  'This conversation is stored as an append-only log. The compress tool replaces a closed, older part of it with your own summary, which keeps the context small.',
  '',
  '- Boundary refs: each step starts with a line such as <dcp-boundary ref="m0012" turn="5" step="1" />, and each compressed block ends with <dcp-message-id>b3</dcp-message-id>. A ref (mNNNN or bN) names the cut just before that message.',
  '- Ranges are half-open: [startRef, endRef) covers everything from startRef up to, but not including, endRef. The endRef message is kept.',
  '- Only compress closed work: both cuts must lie between complete tool calls and their results, and the range must stay out of the current turn and the most recent turns. Do not compress active tool work or instructions.',
  '- Protected content (selected tool outputs and sources, <protect> sections and earlier blocks) is appended verbatim after your summary; you do not need to restate it.',
  '- One call may carry several non-overlapping ranges in surface order. Each range is checked and committed on its own, and the result lists the status of every range.',
  '- A summary must be real technical prose: facts, decisions, file paths, results and open items. Do not start it with a block ref such as [b1], and never write a placeholder such as [stored in b2] as a summary.',
  '- After a successful call, the summaries in your compress arguments are replaced by [stored in bN]. That text is only a cleanup marker; the full summary is the new block, which is authoritative.',
  '- A line such as "alias m0003=s120" means the old ref m0003 still works after host compaction.',
  '- If a range is rejected as invalid, retry with current, closed refs, for example the nearest valid cuts named in the error. If it is rejected for saving too little, do not retry the same range: choose a larger, older range, write a more compact summary, or leave it.',
  '- A tool output reading "[duplicate <tool> output removed; a newer identical call supersedes it]" was pruned automatically; the newer identical output is still in the context.',
].join('\n');
const PURGE_LINE_FROM_SPEC = '- A message starting with "[errored tool unit removed]" replaces an old failed tool call and its error.';
const MANUAL_LINE_FROM_SPEC = 'Manual mode is on by default: call compress only in a turn that starts with <compress triggered manually>.';
const HEADING = '## Context pruning (DCP)';
const DUPLICATE_BULLET_FROM_SPEC =
  '- A tool output reading "[duplicate <tool> output removed; a newer identical call supersedes it]" was pruned automatically; the newer identical output is still in the context.';

const options = { compressEnabled: true, purgeErrorsEnabled: false, manualDefault: false };

describe('§18 item 69: guidance snapshots (§10)', () => {
  it('full variant, byte for byte', () => {
    expect(renderGuidance(options)).toBe(FULL_FROM_SPEC);
  });

  it('manual-default variant appends the manual line', () => {
    expect(renderGuidance({ ...options, manualDefault: true })).toBe(`${FULL_FROM_SPEC}\n${MANUAL_LINE_FROM_SPEC}`);
  });

  it('purge-enabled variant appends the purge bullet; with both, purge comes first', () => {
    expect(renderGuidance({ ...options, purgeErrorsEnabled: true })).toBe(`${FULL_FROM_SPEC}\n${PURGE_LINE_FROM_SPEC}`);
    expect(renderGuidance({ ...options, purgeErrorsEnabled: true, manualDefault: true })).toBe(
      `${FULL_FROM_SPEC}\n${PURGE_LINE_FROM_SPEC}\n${MANUAL_LINE_FROM_SPEC}`,
    );
  });

  it('disabled variant: heading, blank line, the sentence, the duplicate bullet, and the purge bullet if enabled', () => {
    const disabled = { ...options, compressEnabled: false };
    expect(renderGuidance(disabled)).toBe(`${HEADING}\n\nCompression is disabled by configuration.\n${DUPLICATE_BULLET_FROM_SPEC}`);
    expect(renderGuidance({ ...disabled, purgeErrorsEnabled: true })).toBe(
      `${HEADING}\n\nCompression is disabled by configuration.\n${DUPLICATE_BULLET_FROM_SPEC}\n${PURGE_LINE_FROM_SPEC}`,
    );
    expect(renderGuidance({ ...disabled, manualDefault: true })).toBe(renderGuidance(disabled));
    expect(FULL_FROM_SPEC.endsWith(DUPLICATE_BULLET_FROM_SPEC)).toBe(true);
  });

  it('the section is dcp:guidance, order 190, and renders the same text across 100 steps', () => {
    const section = guidanceSection(options);
    expect(section.name).toBe('dcp:guidance');
    expect(section.order).toBe(190);
    const first = section.render();
    for (let step = 0; step < 100; step += 1) expect(section.render()).toBe(first);
  });
});

import { describe, expect, it } from 'vitest';
import {
  assembleAppendix,
  isProtectedToolOutput,
  protectTagBodies,
  toolOutputSection,
  toolResultText,
  userMessageSections,
} from '../../../src/protocol/dcp/protection-appendix.js';
import { globMatcher } from '../../../src/protocol/dcp/glob.js';
import type { ContentBlock } from '../../../src/protocol/events.js';

const text = (value: string): ContentBlock[] => [{ type: 'text', text: value }];
const settings = { protectUserMessages: true, protectTags: true, protectedSources: ['subagent-report', 'subagent-settled'] };

describe('§18 item 32 (pure parts): appendix kinds', () => {
  it('user: with protectUserMessages, kind:"user" messages only', () => {
    expect(userMessageSections({ kind: 'user' }, text('fix the bug'), settings)).toEqual([
      { kind: 'user', text: '\nUser message verbatim:\nfix the bug' },
    ]);
    expect(userMessageSections({ kind: 'user' }, text('fix the bug'), { ...settings, protectUserMessages: false })).toEqual([]);
    expect(userMessageSections({ kind: 'runtime', form: 'snapshot' }, text('cwd: /x'), settings)).toEqual([]);
  });

  it('protect-tag: bodies of <protect> with the tags removed, case-insensitive, all occurrences', () => {
    const message = 'a <protect>KEY=1</protect> b <PROTECT>second\nline</Protect> c <protect></protect>';
    expect(protectTagBodies(message)).toEqual(['KEY=1', 'second\nline']);
    expect(userMessageSections({ kind: 'user' }, text(message), { ...settings, protectUserMessages: false })).toEqual([
      { kind: 'protect-tag', text: '\nProtected prompt information verbatim:\nKEY=1\nsecond\nline' },
    ]);
    expect(userMessageSections({ kind: 'user' }, text(message), { ...settings, protectUserMessages: false, protectTags: false })).toEqual(
      [],
    );
  });

  it('source:<value>: source.kind is checked first, then source.form', () => {
    expect(userMessageSections({ kind: 'subagent-report' }, text('report'), settings)).toEqual([
      { kind: 'source:subagent-report', text: '\nProtected source subagent-report verbatim:\nreport' },
    ]);
    expect(userMessageSections({ kind: 'runtime', form: 'subagent-settled' }, text('done'), settings)).toEqual([
      { kind: 'source:subagent-settled', text: '\nProtected source subagent-settled verbatim:\ndone' },
    ]);
    expect(userMessageSections({ kind: 'subagent-report', form: 'subagent-settled' }, text('r'), settings)[0]!.kind).toBe(
      'source:subagent-report',
    );
  });

  it('with protectUserMessages, no marker, alias, nudge or trigger text is copied, nor checkpoints', () => {
    const dcp = { kind: 'plugin', plugin: 'dsh-dcp' };
    expect(userMessageSections(dcp, text('<dcp-boundary ref="m0001" turn="1" step="0" />\nalias m0002=s4'), settings)).toEqual([]);
    expect(userMessageSections({ ...dcp, commandId: 'c' }, text('<compress triggered manually>\n<protect>x</protect>'), settings)).toEqual(
      [],
    );
    expect(userMessageSections({ kind: 'plugin', plugin: 'compact', compactionId: 'x' }, text('<protect>x</protect>'), settings)).toEqual(
      [],
    );
  });

  it('blank text contributes nothing; only text blocks count', () => {
    expect(userMessageSections({ kind: 'user' }, text('   \n'), settings)).toEqual([]);
    expect(
      userMessageSections(
        { kind: 'user' },
        [
          { type: 'image', url: 'x' },
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        settings,
      ),
    ).toEqual([{ kind: 'user', text: '\nUser message verbatim:\na\nb' }]);
  });
});

describe('§18 items 30, 33, 34 (pure parts): tool sections and assembly', () => {
  it('protectedTools ["read"] → "Protected tool read output verbatim" with the output text; kind tool:read', () => {
    const content: ContentBlock[] = [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        isError: false,
        content: [
          { type: 'text', text: 'line 1' },
          { type: 'image', data: 'x' },
          { type: 'text', text: 'line 2' },
        ],
      },
    ];
    expect(isProtectedToolOutput('read', [], ['read'], () => false)).toBe(true);
    expect(toolOutputSection('read', toolResultText(content))).toEqual({
      kind: 'tool:read',
      text: '\nProtected tool read output verbatim:\nline 1\n[image block]\nline 2',
    });
  });

  it('a file path matching protectedFilePatterns protects the output of any tool', () => {
    expect(isProtectedToolOutput('read', ['/x/a.txt'], [], globMatcher(['**/*.txt']))).toBe(true);
    expect(isProtectedToolOutput('read', ['/x/a.ts'], [], globMatcher(['**/*.txt']))).toBe(false);
  });

  it('a subagent report is carried verbatim under the default protectedSources', () => {
    expect(
      userMessageSections({ kind: 'subagent-report' }, text('child found X'), {
        protectUserMessages: false,
        protectTags: true,
        protectedSources: ['subagent-report', 'subagent-settled'],
      }),
    ).toEqual([{ kind: 'source:subagent-report', text: '\nProtected source subagent-report verbatim:\nchild found X' }]);
  });

  it('assembly: fixed order user → tool → prior blocks; kinds de-duplicated by first appearance', () => {
    const appendix = assembleAppendix(
      [
        { kind: 'user', text: '\nUser message verbatim:\na' },
        { kind: 'protect-tag', text: '\nProtected prompt information verbatim:\nk' },
        { kind: 'user', text: '\nUser message verbatim:\nb' },
      ],
      [{ kind: 'tool:read', text: '\nProtected tool read output verbatim:\nfile' }],
      [{ ref: 'b1', body: 'old' }],
    );
    expect(appendix.text).toBe(
      '\nUser message verbatim:\na\nProtected prompt information verbatim:\nk\nUser message verbatim:\nb\nProtected tool read output verbatim:\nfile\nIncluded prior blocks:\n<dcp-prior ref="b1">\nold\n</dcp-prior>',
    );
    expect(appendix.protectedKinds).toEqual(['user', 'protect-tag', 'tool:read', 'prior-blocks']);
    expect(assembleAppendix([], [], [])).toEqual({ text: '', protectedKinds: [] });
  });
});

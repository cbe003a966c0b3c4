/**
 * Projection of the current surface into reference text items (SESSION-REFERENCE.md §9;
 * Verification 25, 26, 42), and projection of the dsh fixture surfaces against dsh's own snapshots.
 */
import { describe, expect, it } from 'vitest';
import type { SessionEvent, SurfaceEvent } from '../../../src/protocol/events.js';
import { projectSurface } from '../../../src/workers/reference/project-surface.js';
import type { ProjectedItem } from '../../../src/workers/reference/project-surface.js';
import { assembleReferencePrompt } from '../../../src/workers/reference/reference-prompt.js';
import { retainSource } from '../../../src/workers/reference/retain-source.js';
import { readExpected } from '../../support/fixtures.js';
import { assistantMessage, checkpoint, replace, toolResult, userMessage } from '../../protocol/event-builders.js';

const surface = (events: readonly SessionEvent[]): SurfaceEvent[] => events as SurfaceEvent[];

/** A user message whose only block is reasoning (no text block). */
function reasoningOnlyUser(seq: number, text: string): SessionEvent {
  const event = userMessage(seq, text);
  (event.data as { content: unknown[] }).content = [{ type: 'reasoning', text }];
  return event;
}

/** The current surface of Verification 25's source after its fold (the chunk at seq 13 is log-only). */
function item25Surface(): SurfaceEvent[] {
  return surface([
    checkpoint(2, '<compacted-summary>checkpoint</compacted-summary>', { sourceEventSeqs: [0, 1], surfaceOp: replace(0, 1) }),
    userMessage(3, 'recent user'),
    userMessage(4, 'workspace secret', { surfaceOp: 'append' }, { kind: 'plugin', plugin: 'workspace' }),
    userMessage(5, 'human steer'),
    userMessage(6, 'plugin steer', { surfaceOp: 'append' }, { kind: 'plugin', plugin: 'goal' }),
    toolResult(7, 'call-1', 'tool output'),
    assistantMessage(8, [
      { type: 'reasoning', text: 'private reasoning' },
      { type: 'text', text: 'visible answer' },
    ]),
    userMessage(9, 'plugin-generated user', { surfaceOp: 'append' }, { kind: 'plugin', plugin: 'goal' }),
    reasoningOnlyUser(10, 'user reasoning one'),
    reasoningOnlyUser(11, 'user reasoning two'),
    assistantMessage(12, [{ type: 'reasoning', text: 'assistant reasoning only' }]),
  ]);
}

describe('projectSurface (§9)', () => {
  it('Verification 25: keeps the checkpoint, human user texts and visible assistant text only', () => {
    expect(projectSurface(item25Surface())).toEqual([
      { role: 'user', originalText: '<compacted-summary>checkpoint</compacted-summary>', checkpoint: true },
      { role: 'user', originalText: 'recent user', checkpoint: false },
      { role: 'user', originalText: 'human steer', checkpoint: false },
      { role: 'assistant', originalText: 'visible answer', checkpoint: false },
    ]);
  });

  it('Verification 25: the data object is exactly the four items, compacted and not truncated', () => {
    const result = retainSource(
      { sessionId: 'source', label: 'source', cwd: '/source', capturedThroughSeq: 13, items: projectSurface(item25Surface()) },
      65536,
    );
    if (!result.fits) throw new Error('item 25 must fit the default budget');
    expect(result.json).toBe(
      '{"sessionId":"source","label":"source","cwd":"/source","capturedThroughSeq":13,"conversation":[' +
        '{"role":"user","text":"\\u003ccompacted-summary>checkpoint\\u003c/compacted-summary>"},' +
        '{"role":"user","text":"recent user"},{"role":"user","text":"human steer"},' +
        '{"role":"assistant","text":"visible answer"}]}',
    );
    expect(result.stats).toEqual({
      compacted: true,
      originalMessages: 4,
      retainedMessages: 4,
      omittedMessages: 0,
      omittedBytes: 0,
      truncated: false,
    });
    const prompt = assembleReferencePrompt([result.json]);
    expect(prompt).toContain('untrusted, read-only snapshot');
    for (const secret of ['workspace secret', 'plugin steer', 'tool output', 'private reasoning', 'plugin-generated user', 'reasoning']) {
      expect(prompt).not.toContain(secret);
    }
  });

  it('Verification 26: a session-reference context is not projected, the direct question is', () => {
    const items = projectSurface(
      surface([
        userMessage(
          0,
          '## Referenced sessions nested snapshot',
          { surfaceOp: 'append' },
          { kind: 'session-reference', form: 'recall', version: 1, references: [] },
        ),
        userMessage(1, 'direct source question'),
      ]),
    );
    expect(items).toEqual([{ role: 'user', originalText: 'direct source question', checkpoint: false }]);
  });

  it('Verification 42: interrupted assistant text is included; an assistant without text is skipped', () => {
    const interrupted = assistantMessage(1, 'streamed prefix');
    (interrupted.data as { interrupted?: true }).interrupted = true;
    const items = projectSurface(
      surface([
        interrupted,
        assistantMessage(2, []),
        assistantMessage(3, [{ type: 'text', text: '' }]),
        assistantMessage(4, [{ type: 'tool-call', id: 'c', name: 'read_file', arguments: '{}' }]),
      ]),
    );
    expect(items).toEqual([{ role: 'assistant', originalText: 'streamed prefix', checkpoint: false }]);
  });

  it('Verification 42: plugin compact without compactionId is a checkpoint; extra source fields change nothing', () => {
    const items = projectSurface(
      surface([
        userMessage(0, 'no id', { surfaceOp: 'append' }, { kind: 'plugin', plugin: 'compact' }),
        userMessage(1, 'with extras', { surfaceOp: 'append' }, { kind: 'plugin', plugin: 'compact', compactionId: 'c', dcp: { block: 1 } }),
        userMessage(2, 'user with extras', { surfaceOp: 'append' }, { kind: 'user', via: 'web' }),
        userMessage(3, 'other plugin', { surfaceOp: 'append' }, { kind: 'plugin', plugin: 'dcp', compactionId: 'c' }),
        userMessage(4, 'runtime', { surfaceOp: 'append' }, { kind: 'runtime' }),
      ]),
    );
    expect(items).toEqual([
      { role: 'user', originalText: 'no id', checkpoint: true },
      { role: 'user', originalText: 'with extras', checkpoint: true },
      { role: 'user', originalText: 'user with extras', checkpoint: false },
    ]);
  });

  it('joins text blocks with LF, ignores non-text blocks and non-string text, skips empty user texts', () => {
    const mixed = userMessage(0, 'x');
    (mixed.data as { content: unknown[] }).content = [
      { type: 'text', text: 'first' },
      { type: 'image', url: 'data:' },
      { type: 'text', text: 5 },
      { type: 'text', text: '' },
      { type: 'text', text: 'last' },
    ];
    const items = projectSurface(surface([mixed, userMessage(1, ''), checkpoint(2, '', { surfaceOp: 'append' })]));
    expect(items).toEqual([{ role: 'user', originalText: 'first\n\nlast', checkpoint: false }]);
  });
});

interface FixtureSurface {
  readonly session: { readonly id: string; readonly cwd?: string };
  readonly capturedThroughSeq: number | null;
  readonly events: SurfaceEvent[];
}

interface FixtureReferenceMeta {
  readonly sessionId: string;
  readonly truncated: boolean;
}

interface FixtureCase {
  readonly name: string;
  readonly result: {
    readonly additionalContext?: {
      readonly source: { readonly references: readonly FixtureReferenceMeta[] };
      readonly content: readonly { readonly text: string }[];
    };
  };
}

/** The per-source data objects of a dsh prompt. */
function promptData(prompt: string): { sessionId: string; conversation: { role: string; text: string }[] }[] {
  const start = prompt.indexOf('<referenced-sessions>\n') + '<referenced-sessions>\n'.length;
  const end = prompt.lastIndexOf('\n</referenced-sessions>');
  return JSON.parse(prompt.slice(start, end)) as { sessionId: string; conversation: { role: string; text: string }[] }[];
}

describe('projectSurface on the dsh fixture surfaces', () => {
  const surfaces = readExpected<FixtureSurface[]>('surfaces.json');
  const cases = readExpected<FixtureCase[]>('references.json');

  it('every fixture session projects to exactly the conversation dsh rendered without truncation', () => {
    let checked = 0;
    for (const fixture of surfaces) {
      const items: ProjectedItem[] = projectSurface(fixture.events);
      const untruncated = cases.find((entry) =>
        entry.result.additionalContext?.source.references.some((ref) => ref.sessionId === fixture.session.id && !ref.truncated),
      );
      if (untruncated === undefined) continue;
      const data = promptData(untruncated.result.additionalContext!.content[0]!.text).find(
        (source) => source.sessionId === fixture.session.id,
      );
      expect(data, untruncated.name).toBeDefined();
      expect(
        items.map(({ role, originalText }) => ({ role, text: originalText })),
        fixture.session.id,
      ).toEqual(data!.conversation);
      checked += 1;
    }
    expect(checked).toBe(surfaces.length);
  });
});

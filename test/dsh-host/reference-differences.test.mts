/**
 * The two documented differences between `sessionctx/dsh` and dsh's resolver (docs/DSH.md §6), produced in a real dsh
 * host and asserted as exactly what docs/SESSION-REFERENCE.md defines — everything else of the same runs still equal:
 *
 * - D3, case G6 of §10: a source whose one message is 100,000 × `<` under the default 65,536-byte budget. dsh's
 *   shortening empties the text without a notice (`''`, 100,000 bytes omitted); sessionctx keeps 10,898 × `<` and the
 *   omission notice (89,102 bytes omitted).
 * - D3, case G7: a checkpoint of 300 × `x` and an answer of 300 × `y` under 150 bytes: dsh sends both texts emptied;
 *   sessionctx refuses the source (`SESSION_REFERENCE_BUDGET_EXCEEDED`), so no silently emptied message reaches the
 *   model.
 * - D5 (§6): a title holding ESC and U+202E. dsh's candidate label carries the raw characters; sessionctx's shows them
 *   as `\u{001B}` and `\u{202E}`; the session id, and the mention's URI, are the same.
 */
import { createUserMessage } from '@deepseek-ai/dsh-llm';
import { SessionId } from '@deepseek-ai/dsh-session';
import { compactCheckpointSource, CompactionId } from '@deepseek-ai/dsh-compaction';
import { formatSessionReferenceMention } from '@deepseek-ai/dsh-session-reference';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { bootDshHost } from './harness/dsh-host.mts';
import type { DshHost } from './harness/dsh-host.mts';
import { DSH_SMALL } from './harness/fixture-root.mts';
import { DSH, SESSIONCTX_VARIANTS, TARGET, TARGET_CWD, copyRoot, runScenario } from './support/resolver-runs.mts';
import type { RunRecord, Scenario } from './support/resolver-runs.mts';

// The id and label of cases G6 and G7 (docs/SESSION-REFERENCE.md §10), so the fixed fields cost the same bytes.
const SOURCE = 's';
const RAW = join(DSH_SMALL, 'raw');

/** The data objects of the `<referenced-sessions>` payload of a request's context message. */
function snapshotData(run: RunRecord): Array<{ conversation: Array<{ role: string; text: string }> }> {
  const block = run.requests[0]?.messages[1]?.content[0];
  const text = block?.type === 'text' ? block.text : '';
  const payload = /<referenced-sessions>\n([\s\S]*)\n<\/referenced-sessions>/u.exec(text)?.[1];
  if (payload === undefined) throw new Error('no referenced-sessions payload');
  return JSON.parse(payload);
}

function sourceStats(run: RunRecord): { omittedBytes: number; truncated: boolean } {
  return (run.requests[0]?.messages[1]?.source as { references: Array<{ omittedBytes: number; truncated: boolean }> }).references[0] as {
    omittedBytes: number;
    truncated: boolean;
  };
}

/** A live source with `fill` appended, and a target message that cites it. */
function scenario(name: string, fill: (host: DshHost) => Promise<void>, config: Record<string, unknown> = {}): Scenario {
  return {
    name,
    config,
    replies: [{ kind: 'text', text: 'Noted.' }],
    before: fill,
    text: () => `Use ${formatSessionReferenceMention({ sessionId: SessionId(SOURCE), label: 's' })}.`,
  };
}

describe('the documented differences, in a dsh host', () => {
  it('D3 (G6): keeps 10,898 × "<" and the notice where dsh sends an empty text', async () => {
    const g6 = scenario('G6', async (host) => {
      const source = await host.createSession({ id: SOURCE });
      source.session.append(
        'user/message',
        createUserMessage({ content: [{ type: 'text', text: '<'.repeat(100_000) }], source: { kind: 'user' } }),
        { surfaceOp: 'append' },
      );
    });
    const dsh = await runScenario(RAW, DSH, g6);
    expect(snapshotData(dsh)[0]?.conversation).toEqual([{ role: 'user', text: '' }]);
    expect(sourceStats(dsh)).toMatchObject({ omittedBytes: 100_000, truncated: true });
    for (const variant of SESSIONCTX_VARIANTS) {
      const ours = await runScenario(RAW, variant, g6);
      expect(snapshotData(ours)[0]?.conversation, variant.name).toEqual([
        { role: 'user', text: `${'<'.repeat(10_898)}\n[… omitted 89102 UTF-8 bytes …]` },
      ]);
      expect(sourceStats(ours), variant.name).toMatchObject({ omittedBytes: 89_102, truncated: true });
      // The rest of the run is dsh's: the rewritten direct message, the errors (none) and the outcome.
      expect(ours.requests[0]?.messages[0], variant.name).toEqual(dsh.requests[0]?.messages[0]);
      expect(ours.errors, variant.name).toEqual([]);
      expect(ours.outcome, variant.name).toEqual(dsh.outcome);
    }
  });

  it('D3 (G7): refuses the source where dsh sends two emptied messages', async () => {
    const g7 = scenario(
      'G7',
      async (host) => {
        const source = await host.createSession({ id: SOURCE });
        source.session.append(
          'user/message',
          createUserMessage({ content: [{ type: 'text', text: 'x'.repeat(300) }], source: compactCheckpointSource(CompactionId('g7')) }),
          { surfaceOp: 'append' },
        );
        source.session.append(
          'assistant/message',
          {
            turn: 1,
            step: 1,
            message: {
              role: 'assistant',
              content: [{ type: 'text', text: 'y'.repeat(300) }],
              source: { kind: 'model', provider: 'p', model: 'm' },
              id: 'g7-answer',
            },
          } as never,
          { surfaceOp: 'append' },
        );
      },
      { maxReferenceBytes: 150 },
    );
    const dsh = await runScenario(RAW, DSH, g7);
    expect(snapshotData(dsh)[0]?.conversation).toEqual([
      { role: 'user', text: '' },
      { role: 'assistant', text: '' },
    ]);
    for (const variant of SESSIONCTX_VARIANTS) {
      const ours = await runScenario(RAW, variant, g7);
      expect(ours.requests, variant.name).toEqual([]);
      expect(
        ours.errors.map((error) => error.chain[0]?.code),
        variant.name,
      ).toEqual(['SESSION_REFERENCE_BUDGET_EXCEEDED']);
      expect(ours.outcome, variant.name).toMatchObject({
        kind: 'error',
        error: { message: 'referenced session snapshot cannot fit the configured byte budget' },
      });
    }
  });

  it('D5: escapes control and bidi characters of a candidate label; id and mention URI unchanged', async () => {
    const title = 'x\u001b[2Jy\u202Ez';
    const labels: Record<string, unknown> = {};
    for (const variant of [DSH, ...SESSIONCTX_VARIANTS]) {
      const { root, remove } = copyRoot(RAW);
      const host = await bootDshHost({ root, resolver: variant.resolver, resolverConfig: variant.config, replies: [] });
      try {
        const source = await host.createSession({ id: SOURCE, cwd: TARGET_CWD });
        source.session.append('session/title', { title, messageSeqs: [], source: { kind: 'fallback' } } as never);
        const target = await host.createSession({ id: TARGET, cwd: TARGET_CWD });
        const [found] = await host.ctx.sessionReferenceResolver.remoteExportCandidates(target.agent, 'x', new AbortController().signal);
        labels[variant.name] = found;
      } finally {
        await host.dispose();
        remove();
      }
    }
    const dsh = labels[DSH.name] as { sessionId: string; label: string; mention: string };
    expect(dsh.label).toBe(title);
    for (const variant of SESSIONCTX_VARIANTS) {
      const ours = labels[variant.name] as { sessionId: string; label: string; mention: string };
      expect(ours.sessionId, variant.name).toBe(dsh.sessionId);
      expect(ours.label, variant.name).toBe('x\\u{001B}[2Jy\\u{202E}z');
      // The mention's URI, after the label, is the same; only the label part differs.
      expect(ours.mention.slice(ours.mention.indexOf('](')), variant.name).toBe(dsh.mention.slice(dsh.mention.indexOf('](')));
    }
  });
});

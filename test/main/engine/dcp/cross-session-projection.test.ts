// DCP.md §18 item 71: a DCP checkpoint in a referenced session is projected as a checkpoint (SESSION-REFERENCE.md §9
// keeps compaction checkpoints), while DCP's boundary markers and purge checkpoints, plain plugin messages, are left out.
import { describe, expect, it } from 'vitest';
import type { Message, SurfaceEvent } from '../../../../src/protocol/events.js';
import { projectSurface } from '../../../../src/workers/reference/project-surface.js';
import { renderSurface } from '../../../../src/workers/tasks/render-surface.js';
import { compressReply, createDcpHarness, loggedMarkers, messageText, range, texts, turn } from './dcp-harness.js';

const SUMMARY = 'Turns one to three: the parser bug was traced to the tokenizer.';

describe('§18 item 71: cross-session projection of a DCP session', () => {
  it('keeps b1 as a checkpoint and excludes every marker and the purge checkpoint', async () => {
    const fetchTool = {
      name: 'fetch',
      description: 'Fetch.',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error(`fetch failed ${'e'.repeat(40)}`);
      },
    };
    const harness = createDcpHarness({
      dcp: { strategies: { purgeErrors: { enabled: true, turns: 1 } } },
      tools: [fetchTool],
      script: [
        ...texts(3),
        compressReply([range('m0001', 'm0003', SUMMARY)]),
        { text: 'compressed' },
        { text: `Let me fetch. ${'narrative '.repeat(30)}`, toolCalls: [{ name: 'fetch', args: { url: 'u' } }] },
        { text: 'fetch failed' },
        ...texts(2, 'later'),
      ],
    });
    for (const text of ['one', 'two', 'three', 'compress now', 'fetch u', 'six', 'seven'])
      await turn(harness, `${text} ${'q'.repeat(120)}`);
    const { session } = harness;
    const b1 = harness.index().block('b1')!;
    expect(b1.membership).toBe('active');
    const purge = session.events.find(
      (event) =>
        event.type === 'user/message' && typeof event.surfaceOp === 'object' && harness.index().replaceClass(event.seq) === 'dcp-purge',
    );
    expect(purge, 'the failed fetch was purged').toBeDefined();
    const markers = loggedMarkers(session).filter((marker) => session.surface.has(marker.seq));
    expect(markers.length).toBeGreaterThan(0);

    // The projection stage (SESSION-REFERENCE.md §9) over the current surface, then the whole worker render.
    const surfaceEvents = session.surface.slice(0, session.surface.length).map((seq) => session.events[seq]!) as SurfaceEvent[];
    const checkpointText = messageText(session.events[b1.seq]!.data as Message);
    expect(checkpointText).toContain(SUMMARY);
    const items = projectSurface(surfaceEvents);
    expect(items.filter((item) => item.checkpoint).map((item) => item.originalText)).toEqual([checkpointText]);
    const value = renderSurface(session.header, session.events, { label: 'dcp source', maxBytes: 1 << 20, poll: () => undefined });
    if (value.status !== 'rendered' || !value.render.fits) throw new Error(`not rendered: ${JSON.stringify(value)}`);
    expect(value.render.stats.compacted).toBe(true);
    const rendered = JSON.parse(value.render.json) as { conversation: Array<{ role: string; text: string }> };
    expect(rendered.conversation[0]).toEqual({ role: 'user', text: checkpointText });
    const all = rendered.conversation.map((item) => item.text).join('\n');
    expect(all).not.toContain('<dcp-boundary');
    expect(all).not.toContain('[errored tool unit removed]');
    // The human turns after the block are still there (the projection dropped only plugin messages).
    expect(all).toContain(`six ${'q'.repeat(120)}`);
  });
});

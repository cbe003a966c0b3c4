// DCP.md §11.6 rules 4 and 6: a control turn's notice says what happened, and its level says whether the control
// did what was scheduled — `info` when it ran (a sweep with nothing to prune ran), `warn` when it could not (a
// sweep while a compaction is busy, a control whose turn was rejected). `sessionctx dcp` fails a command on `warn`.
import { describe, expect, it } from 'vitest';
import { busyDuringPreStep, createDcpHarness, readTool, turn } from './dcp-harness.js';
import type { Plugin } from '../../../../src/main/host-api/host-api.js';

function levels(harness: ReturnType<typeof createDcpHarness>): Array<[string, string]> {
  return harness.notifications.map((notification) => [notification.level, notification.text]);
}

describe('control notices carry the outcome in their level', () => {
  it('a sweep that ran is info, even with nothing to prune', async () => {
    const harness = createDcpHarness({ script: [{ text: 'one' }] });
    await turn(harness, 'one');
    await harness.runCommand('/dcp sweep');
    await harness.runUntilIdle();
    expect(levels(harness)).toEqual([['info', 'DCP sweep: nothing to prune.']]);
  });

  it('a sweep skipped while a compaction is busy is warn', async () => {
    const busy = busyDuringPreStep(2);
    const harness = createDcpHarness({ tools: [readTool], script: [{ text: 'one' }], plugins: [busy.outer], pluginsAfter: [busy.inner] });
    await turn(harness, 'one');
    await harness.runCommand('/dcp sweep');
    await harness.runUntilIdle();
    expect(levels(harness)).toEqual([['warn', 'DCP sweep skipped: compaction is busy.']]);
  });

  it('a control whose turn was rejected is warn', async () => {
    // Registered after DCP, so it runs downstream of DCP's listener, which sees the rejected decision.
    const rejecting: Plugin = {
      name: 'rejecting',
      apply: (context) => context.on('agent/pre-step', async () => ({ kind: 'reject' })),
    };
    const harness = createDcpHarness({ script: [], pluginsAfter: [rejecting] });
    await harness.runCommand('/dcp sweep');
    await harness.runUntilIdle();
    expect(levels(harness)).toEqual([['warn', 'DCP: sweep was not run because the turn was rejected.']]);
  });
});

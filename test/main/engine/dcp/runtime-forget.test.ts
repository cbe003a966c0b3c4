/**
 * `DcpRuntime.forget` (for hosts that dispose sessions, docs/DSH-DCP.md §3): a forgotten session's index, append
 * subscription and queued controls go; a later contact builds a fresh index by cold replay that equals the one it
 * replaced.
 */
import { describe, expect, it } from 'vitest';
import { createDcpHarness, texts, turn } from './dcp-harness.js';
import { indexSnapshot } from './index-snapshot.js';

describe('DcpRuntime.forget', () => {
  it('drops the index and the subscription; the next contact replays the log into an equal index', async () => {
    const harness = createDcpHarness({ script: texts(3) });
    await turn(harness, 'one');
    await turn(harness, 'two');
    const before = harness.index();
    expect(harness.runtime.followedSessions).toBe(1);
    const snapshot = indexSnapshot(before, harness.session.events);
    const folds = harness.runtime.counters.folds;

    expect(harness.runtime.forget(harness.session)).toBe(true);
    expect(harness.runtime.followedSessions).toBe(0);
    expect(harness.runtime.forget(harness.session)).toBe(false);

    const eventsBefore = harness.session.events.length;
    const again = harness.index();
    expect(again).not.toBe(before);
    expect(harness.runtime.counters.folds).toBe(folds + 1);
    expect(indexSnapshot(again, harness.session.events)).toEqual(snapshot);
    // Only the fresh index follows the session now: the next turn reaches it, and the old one stays where it was.
    await turn(harness, 'three');
    expect(indexSnapshot(before, harness.session.events.slice(0, eventsBefore))).toEqual(snapshot);
    expect(again.maxMarkerNumber).toBe(before.maxMarkerNumber + 1);
  });

  it("drops the controls the session's commands queued", async () => {
    const harness = createDcpHarness({ script: texts(1) });
    await turn(harness, 'one');
    harness.index();
    harness.runtime.pendingControls.set('cmd-x', { body: { kind: 'sweep' }, sessionId: harness.session.id, notify: () => {} });
    harness.runtime.pendingControls.set('cmd-y', { body: { kind: 'sweep' }, sessionId: 'another-session', notify: () => {} });
    harness.runtime.forget(harness.session);
    expect([...harness.runtime.pendingControls.keys()]).toEqual(['cmd-y']);
  });
});

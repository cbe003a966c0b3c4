/**
 * Issue 7 "Done when" (DCP.md §3, HOST.md §2.1 rule 4): a log written with DCP active — compress calls, dedup and
 * purge strategies, expansion and recompression control turns, a sweep, a manual switch, a native bracket — is a
 * plain dsh log. Seeded into a host with no DCP mounted, and after a round trip through the store, it derives the
 * same model messages as the live session that wrote it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import { KNOWN_EVENT_TYPES } from '../../../../src/protocol/events.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { coldIndex, expectHealthyLog, messageText } from './dcp-harness.js';
import { dcpActiveSession, SUMMARY } from './dcp-active-session.js';
import { indexSnapshot } from './index-snapshot.js';

function types(events: readonly SessionEvent[]): Set<string> {
  return new Set(events.map((event) => event.type));
}

describe('issue 7: a DCP-written log loads without DCP', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  });

  it('the scenario really exercised compress, strategies, control turns and a native bracket', async () => {
    const harness = await dcpActiveSession();
    const index = harness.index();
    expect(index.block('b1')!.membership).toBe('expanded');
    expect(index.block('b2')!.membership).toBe('consumed');
    expect(index.block('b3')!.membership).toBe('active');
    const classes = harness.session.events
      .filter((event) => typeof event.surfaceOp === 'object')
      .map((event) => index.replaceClass(event.seq));
    expect(classes).toEqual(expect.arrayContaining(['dcp-dedup', 'dcp-purge', 'dcp-summary', 'dcp-expansion']));
    expect(index.manualOn).toBe(true);
    expect(harness.session.events.every((event) => KNOWN_EVENT_TYPES.has(event.type))).toBe(true);
    expect(types(harness.session.events).has('compaction/prune')).toBe(true);
    expectHealthyLog(harness);
  });

  it('plain Session.create with the events as seed derives the live messages', async () => {
    const harness = await dcpActiveSession();
    const live = harness.session.deriveMessages();
    const plain = Session.create(harness.session.id, { header: harness.session.header, seed: structuredClone(harness.session.events) });
    expect(plain.deriveMessages()).toEqual(live);
    // The reloaded surface still shows the DCP checkpoint text, read as ordinary history.
    expect(
      plain
        .deriveMessages()
        .map((message) => messageText(message as Message))
        .join('\n'),
    ).toContain(SUMMARY);
    expect(plain.events.at(-1)!.type).toBe('session/end-seed');
    expect(plain.events.length).toBe(harness.session.events.length + 1);
  });

  it('after a round trip through the store, the unmounted reload equals the live session and the cold DCP index', async () => {
    const harness = await dcpActiveSession();
    const dir = mkdtempSync(join(tmpdir(), 'sessionctx-interop-'));
    dirs.push(dir);
    const store = await JsonlSessionStore.open({ root: dir, compression: 'none' });
    await store.create(harness.session.header, harness.session.events);
    const { meta, events } = await store.inspect(harness.session.header.id);
    expect(events).toEqual(harness.session.events);
    const plain = Session.create(meta.id, { header: meta, seed: [...events] });
    expect(plain.deriveMessages()).toEqual(harness.session.deriveMessages());
    // Mounting DCP again later folds the same index from the stored log (DCP.md §3.4).
    expect(indexSnapshot(coldIndex(harness, events), events)).toEqual(indexSnapshot(harness.index(), harness.session.events));
  });
});

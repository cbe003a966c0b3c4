// The in-memory live registry used by hosts and tests (SESSION-LOG.md §1 "live session").
import { describe, expect, it } from 'vitest';
import { asSessionId, type SessionHeader } from '../../../../src/protocol/events.js';
import { InMemoryLiveRegistry, type LiveSession } from '../../../../src/main/engine/corpus/live-registry.js';

function live(id: string, createdAt: number): LiveSession {
  const header: SessionHeader = { version: 0, id: asSessionId(id), createdAt };
  return { header, events: [] };
}

describe('InMemoryLiveRegistry', () => {
  it('finds attached sessions by id and lists them in attach order', () => {
    const registry = new InMemoryLiveRegistry();
    const a = live('a', 1);
    const b = live('b', 2);
    registry.attach(a);
    registry.attach(b);
    expect(registry.get(asSessionId('a'))).toBe(a);
    expect(registry.get(asSessionId('missing'))).toBeUndefined();
    expect([...registry.list()]).toEqual([a, b]);
  });

  it('replaces a session attached under the same id', () => {
    const registry = new InMemoryLiveRegistry();
    const first = live('a', 1);
    const second = live('a', 1);
    registry.attach(first);
    registry.attach(second);
    expect(registry.get(asSessionId('a'))).toBe(second);
    expect([...registry.list()]).toHaveLength(1);
  });

  it('detaches by id and reports whether a session was attached', () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach(live('a', 1));
    expect(registry.detach(asSessionId('a'))).toBe(true);
    expect(registry.detach(asSessionId('a'))).toBe(false);
    expect(registry.get(asSessionId('a'))).toBeUndefined();
    expect([...registry.list()]).toEqual([]);
  });
});

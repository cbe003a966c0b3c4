/**
 * New user messages draw their id where dsh's `createMessage` draws it, from the global `crypto.randomUUID()` — so a
 * host that seeds that function (a deterministic dsh host, docs/DSH.md §4) logs the same ids with sessionctx's
 * resolver as with dsh's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createUserMessage } from '../../src/protocol/user-message.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createUserMessage ids', () => {
  it('takes the id from the global crypto.randomUUID, one draw per message', () => {
    const seeded = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'] as const;
    let draws = 0;
    vi.spyOn(globalThis.crypto, 'randomUUID').mockImplementation(
      () => seeded[draws++] as `${string}-${string}-${string}-${string}-${string}`,
    );
    const first = createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: 'a' }] });
    const second = createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: 'b' }] });
    expect([first.id, second.id]).toEqual([...seeded]);
    expect(draws).toBe(2);
    expect(Object.keys(first)).toEqual(['source', 'content', 'role', 'id']);
  });
});

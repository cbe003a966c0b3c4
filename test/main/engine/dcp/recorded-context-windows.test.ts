// The context windows a stored log records (`request/context`, as dsh writes it): the latest well-formed record of a
// (provider, model) pair wins, a malformed one is skipped, a pair without a record has no window.
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { recordedContextWindows } from '../../../../src/main/engine/dcp/recorded-context-windows.js';

function context(seq: number, data: unknown): SessionEvent {
  return { type: 'request/context', seq, time: seq, data } as SessionEvent;
}

describe('recordedContextWindows', () => {
  it('keeps the latest well-formed record per (provider, model) and skips malformed ones', () => {
    const lookup = recordedContextWindows([
      context(0, { provider: 'oracle', model: 'chat', contextWindow: 128000 }),
      context(1, { provider: 'oracle', model: 'small', contextWindow: 24000 }),
      context(2, { provider: 'oracle', model: 'chat', contextWindow: 200000 }),
      context(3, { provider: 'oracle', model: 'small', contextWindow: 0 }),
      context(4, { provider: 'oracle', model: 'small', contextWindow: 1.5 }),
      context(5, { provider: 'oracle', model: 'odd' }),
      context(6, 'not a record'),
      { type: 'request/header', seq: 7, time: 7, data: { header: { config: { provider: 'oracle', model: 'other' } } } } as SessionEvent,
    ]);
    expect(lookup('oracle', 'chat')).toBe(200000);
    expect(lookup('oracle', 'small')).toBe(24000);
    expect(lookup('oracle', 'odd')).toBeUndefined();
    expect(lookup('oracle', 'other')).toBeUndefined();
    // The pair is matched exactly, not by a joined string.
    expect(lookup('oracle,', 'chat')).toBeUndefined();
  });
});

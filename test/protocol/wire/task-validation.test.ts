// Replies from workers are checked before use (a real boundary): a malformed reply fails its task with
// SESSION_POOL_PROTOCOL, a failure reply is rebuilt, a good one passes unchanged.
import { describe, expect, it } from 'vitest';
import { settleReply } from '../../../src/main/engine/pool/worker-entry.js';
import { SessionPersistenceCorruptionError } from '../../../src/protocol/errors.js';
import { SessionPoolError } from '../../../src/protocol/wire/pool-errors.js';
import { validateTaskOutcome } from '../../../src/protocol/wire/task-validation.js';
import { serializeError } from '../../../src/protocol/wire/wire-error.js';
import { FAULT_ENTRY } from '../../support/fault-task.js';

const HEADER = { version: 0, id: 's', createdAt: 1 };
const STATS = { compacted: false, originalMessages: 1, retainedMessages: 1, omittedMessages: 0, omittedBytes: 0, truncated: false };
const PROTOCOL = new SessionPoolError('SESSION_POOL_PROTOCOL', 'worker sent a malformed readSource result');

describe('validateTaskOutcome', () => {
  it('accepts well-formed searchDocuments values and rejects malformed ones with SESSION_POOL_PROTOCOL', () => {
    const state = { resume: { checkpoint: {}, headerDigest: 'a', guard: 'b' }, committed: [0, 2], answer: [0, 2, 3] };
    const good = [
      { ok: true, value: { status: 'none' } },
      {
        ok: true,
        value: { status: 'rebuilt', state, removed: [], steps: [{ seq: 2, time: 1, documents: [{ role: 'user', text: 'hi' }] }] },
      },
      { ok: true, value: { status: 'appended', state, removed: [1], steps: [] } },
    ];
    for (const reply of good) expect(validateTaskOutcome('searchDocuments', reply)).toBe(reply);
    const bad = [
      { ok: true, value: { status: 'scanned' } },
      { ok: true, value: { status: 'rebuilt', state: { ...state, answer: [1.5] }, removed: [], steps: [] } },
      {
        ok: true,
        value: { status: 'rebuilt', state, removed: [], steps: [{ seq: 2, time: 1, documents: [{ role: 'reasoning', text: 'x' }] }] },
      },
      { ok: true, value: { status: 'appended', state, removed: [], steps: [{ seq: 2, time: 1, documents: [{ role: 'user', text: 7 }] }] } },
      { ok: true, value: { status: 'appended', state: { committed: [], answer: [] }, removed: [], steps: [] } },
    ];
    for (const reply of bad) expect(() => validateTaskOutcome('searchDocuments', reply)).toThrow(SessionPoolError);
  });

  it('accepts well-formed readSource values', () => {
    const rendered = {
      ok: true,
      value: {
        status: 'rendered',
        header: HEADER,
        render: { fits: true, sessionId: 's', capturedThroughSeq: null, json: '{}', stats: STATS },
      },
    };
    expect(validateTaskOutcome('readSource', rendered)).toBe(rendered);
    const oversized = { ok: true, value: { status: 'rendered', header: HEADER, render: { fits: false, minimumBudgetBytes: 417 } } };
    expect(validateTaskOutcome('readSource', oversized)).toBe(oversized);
  });

  it('rejects malformed readSource values with SESSION_POOL_PROTOCOL', () => {
    const malformed: unknown[] = [
      null,
      { ok: true },
      { ok: 'yes', value: {} },
      {
        ok: true,
        value: {
          status: 'rendered',
          header: HEADER,
          render: { fits: true, sessionId: 's', capturedThroughSeq: 1.5, json: '{}', stats: STATS },
        },
      },
      {
        ok: true,
        value: { status: 'rendered', header: HEADER, render: { fits: true, sessionId: 's', capturedThroughSeq: 1, json: 7, stats: STATS } },
      },
      {
        ok: true,
        value: {
          status: 'rendered',
          header: HEADER,
          render: { fits: true, sessionId: 's', capturedThroughSeq: 1, json: '{}', stats: { ...STATS, omittedBytes: -1 } },
        },
      },
      { ok: true, value: { status: 'rendered', header: { id: 5 }, render: { fits: false, minimumBudgetBytes: 417 } } },
      // An oversized source must say what budget would fit it (a positive safe integer).
      { ok: true, value: { status: 'rendered', header: HEADER, render: { fits: false } } },
      { ok: true, value: { status: 'rendered', header: HEADER, render: { fits: false, minimumBudgetBytes: 0 } } },
      { ok: true, value: { status: 'rendered', header: HEADER, render: { fits: false, minimumBudgetBytes: 1.5 } } },
      { ok: true, value: { status: 'unknown', header: HEADER } },
      { ok: true, value: { status: 'surface-failed', header: HEADER, error: { kind: 'error', name: 'E' } } },
      { ok: false, error: 'text' },
    ];
    for (const reply of malformed) expect(() => validateTaskOutcome('readSource', reply)).toThrow(PROTOCOL);
  });

  it('checks the per-file outcomes of observeTitles, including their count', () => {
    const fulfilled = { status: 'fulfilled', header: HEADER };
    expect(() => validateTaskOutcome('observeTitles', { ok: true, value: { outcomes: [fulfilled] } }, 1)).not.toThrow();
    expect(() => validateTaskOutcome('observeTitles', { ok: true, value: { outcomes: [fulfilled] } }, 2)).toThrow(
      'worker sent a malformed observeTitles result',
    );
    expect(() =>
      validateTaskOutcome('observeTitles', {
        ok: true,
        value: { outcomes: [{ status: 'rejected', phase: 'fold', error: serializeError(new Error('x')) }] },
      }),
    ).toThrow('worker sent a malformed observeTitles result');
  });

  it('checks inspect values: event array and count agree', () => {
    expect(() => validateTaskOutcome('inspect', { ok: true, value: { header: HEADER, events: [{}], eventCount: 1 } })).not.toThrow();
    expect(() => validateTaskOutcome('inspect', { ok: true, value: { header: HEADER, events: [{}], eventCount: 2 } })).toThrow(
      'worker sent a malformed inspect result',
    );
  });
});

describe('settleReply', () => {
  it('rebuilds a failure reply with its class, name, message and code', () => {
    const original = new SessionPersistenceCorruptionError('s', new Error('bad'));
    let thrown: unknown;
    try {
      settleReply(
        'inspect',
        { artifact: { sessionId: 's', path: '/p', root: '/', compression: 'none' } },
        { ok: false, error: serializeError(original) },
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SessionPersistenceCorruptionError);
    expect((thrown as Error).message).toBe(original.message);
  });

  it("checks the replies of a worker entry's extra kinds with that entry's check, and refuses kinds no entry serves", () => {
    const value = { value: 'v', threadId: 3 };
    expect(settleReply('testFault', { mode: 'echo' }, { ok: true, value }, FAULT_ENTRY)).toBe(value);
    expect(() => settleReply('testFault', { mode: 'echo' }, { ok: true, value: { value: 1, threadId: 3 } }, FAULT_ENTRY)).toThrow(
      new SessionPoolError('SESSION_POOL_PROTOCOL', 'worker sent a malformed testFault result'),
    );
    for (const entry of [undefined, FAULT_ENTRY]) {
      expect(() => settleReply('noSuchTask', {}, { ok: true, value }, entry)).toThrow(
        new SessionPoolError('SESSION_POOL_UNKNOWN_TASK', 'the session task runner serves no "noSuchTask" task'),
      );
    }
    expect(() => settleReply('testFault', { mode: 'echo' }, { ok: true, value })).toThrow(
      new SessionPoolError('SESSION_POOL_UNKNOWN_TASK', 'the session task runner serves no "testFault" task'),
    );
  });
});

// prepare() reads, failures and cancellation: SESSION-REFERENCE.md §7.2, §8 steps 4–6, D4; §15 items 30, 31, 32.
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionHeader, SessionId, SessionSurfaceSnapshot } from '../../../../src/protocol/events.js';
import type { SessionInspection, SessionStorage } from '../../../../src/main/engine/corpus/session-storage.js';
import { SessionReferenceError, cancelledError } from '../../../../src/protocol/reference-errors.js';
import {
  StubQuery,
  deferred,
  expectReferenceError,
  liveCorpus,
  promptData,
  service,
  settle,
  snapshotOf,
  target,
  trackUnhandledRejections,
  within,
} from './reference-builders.js';

const CANCELLED = 'SESSION_REFERENCE_CANCELLED';
const CANCELLED_TEXT = 'session reference preparation was cancelled';
const READ_FAILED = 'SESSION_REFERENCE_READ_FAILED';
const CONTENT = [{ type: 'text' as const, text: 'use @source' }];

let tracker: ReturnType<typeof trackUnhandledRejections> | undefined;
afterEach(() => {
  tracker?.stop();
  tracker = undefined;
});

/** Resolves with `snapshot` or rejects with the signal's reason once it aborts; records whether the abort was seen. */
function cooperativeRead(signal: AbortSignal | undefined, seen: { aborted: boolean }): Promise<SessionSurfaceSnapshot> {
  return new Promise((_resolve, reject) => {
    signal?.addEventListener('abort', () => {
      seen.aborted = true;
      reject(signal.reason);
    });
  });
}

describe('non-Error read failures (item 30)', () => {
  it('without a signal: READ_FAILED, message from String(value), the value itself as cause', async () => {
    const stub = new StubQuery({ readSurface: async () => Promise.reject('non-error read failure') });
    const error = await expectReferenceError(
      service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }]),
      READ_FAILED,
      'failed to read referenced session: non-error read failure',
    );
    expect(error.cause).toBe('non-error read failure');
  });

  it('with a signal: same message, the cause an Error wrapping String(value)', async () => {
    const stub = new StubQuery({ readSurface: async () => Promise.reject('non-error read failure') });
    const error = await expectReferenceError(
      service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }], new AbortController().signal),
      READ_FAILED,
      'failed to read referenced session: non-error read failure',
    );
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as Error).message).toBe('non-error read failure');
  });

  it('an Error rejection keeps its message and is the cause', async () => {
    const broken = new Error('broken');
    const stub = new StubQuery({ readSurface: async () => Promise.reject(broken) });
    for (const signal of [undefined, new AbortController().signal]) {
      const error = await expectReferenceError(
        service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }], signal),
        READ_FAILED,
        'failed to read referenced session: broken',
      );
      expect(error.cause).toBe(broken);
    }
  });

  it('§8 step 5: a read rejecting with a CANCELLED error while the caller is not aborted is still READ_FAILED', async () => {
    const inner = cancelledError('storage-side cancellation');
    const stub = new StubQuery({ readSurface: async () => Promise.reject(inner) });
    for (const signal of [undefined, new AbortController().signal]) {
      const error = await expectReferenceError(
        service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }], signal),
        READ_FAILED,
        'failed to read referenced session: session reference preparation was cancelled',
      );
      expect(error.cause).toBe(inner);
    }
  });

  it('the first failure in time wins, not the first in input order', async () => {
    const stub = new StubQuery({
      readSurface: (sessionId) =>
        new Promise((_resolve, reject) => {
          setTimeout(() => reject(new Error(`${sessionId} failure`)), sessionId === 'late' ? 40 : 5);
        }),
    });
    await expectReferenceError(
      service(stub).prepare(target(), CONTENT, [{ sessionId: 'late' }, { sessionId: 'early' }]),
      READ_FAILED,
      'failed to read referenced session: early failure',
    );
  });
});

describe('cancellation (item 31)', () => {
  it('a read that aborts the signal and then throws → CANCELLED with the reason as cause', async () => {
    const controller = new AbortController();
    const reason = new Error('turn cancelled');
    const stub = new StubQuery({
      readSurface: async () => {
        controller.abort(reason);
        throw new Error('storage failed after the abort');
      },
    });
    const error = await expectReferenceError(
      service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }], controller.signal),
      CANCELLED,
      CANCELLED_TEXT,
    );
    expect(error.cause).toBe(reason);
  });

  it('a read that resolves after aborting the signal → CANCELLED, no context', async () => {
    const controller = new AbortController();
    const stub = new StubQuery({
      readSurface: async () => {
        controller.abort('host cancelled');
        return snapshotOf('source', 'fact');
      },
    });
    const error = await expectReferenceError(
      service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }], controller.signal),
      CANCELLED,
      CANCELLED_TEXT,
    );
    expect(error.cause).toBe('host cancelled');
  });

  it('a read that never settles + abort → CANCELLED promptly; releasing it later is absorbed', async () => {
    tracker = trackUnhandledRejections();
    const hanging = deferred<SessionSurfaceSnapshot>();
    const stub = new StubQuery({ readSurface: () => hanging.promise });
    const controller = new AbortController();
    const call = service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }], controller.signal);
    await settle();
    expect(stub.surfaceCalls).toHaveLength(1);
    const reason = new Error('stop');
    controller.abort(reason);
    const error = await expectReferenceError(within(call), CANCELLED, CANCELLED_TEXT);
    expect(error.cause).toBe(reason);
    hanging.reject(new Error('late read failure'));
    await settle();
    expect(tracker.reasons).toEqual([]);
  });

  it('a pre-aborted signal → CANCELLED and no read starts', async () => {
    const stub = new StubQuery({});
    const controller = new AbortController();
    controller.abort('already gone');
    const error = await expectReferenceError(
      service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }], controller.signal),
      CANCELLED,
      CANCELLED_TEXT,
    );
    expect(error.cause).toBe('already gone');
    expect(stub.surfaceCalls).toHaveLength(0);
  });
});

describe('D4: the signal reaches the reads (item 32)', () => {
  it('the signal given to readSurface aborts when the caller aborts; no context is returned', async () => {
    tracker = trackUnhandledRejections();
    const seen = { aborted: false };
    const stub = new StubQuery({ readSurface: (_sessionId, signal) => cooperativeRead(signal, seen) });
    const controller = new AbortController();
    const call = service(stub).prepare(target(), CONTENT, [{ sessionId: 'source' }], controller.signal);
    await settle();
    const given = stub.surfaceCalls[0]?.signal;
    expect(given).toBeInstanceOf(AbortSignal);
    expect(given?.aborted).toBe(false);
    const reason = new Error('turn aborted');
    controller.abort(reason);
    expect(given?.aborted).toBe(true);
    expect(seen.aborted).toBe(true);
    const error = await expectReferenceError(within(call), CANCELLED, CANCELLED_TEXT);
    expect(error.cause).toBe(reason);
    await settle();
    expect(tracker.reasons).toEqual([]);
  });

  it('through the query layer, a storage stub observes the abort', async () => {
    tracker = trackUnhandledRejections();
    const listSignals: (AbortSignal | undefined)[] = [];
    const seen = { aborted: false };
    const storage: SessionStorage = {
      list: (signal) => {
        listSignals.push(signal);
        return new Promise<readonly SessionHeader[]>((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            seen.aborted = true;
            // Cleanup takes a moment, as a real backend's would.
            setTimeout(() => reject(signal.reason), 5);
          });
        });
      },
      inspect: (): Promise<SessionInspection> => Promise.reject(new Error('unexpected inspect')),
    };
    const { query } = liveCorpus([], storage);
    const controller = new AbortController();
    const call = service(query).prepare(target(), CONTENT, [{ sessionId: 'persisted-source' }], controller.signal);
    await settle();
    expect(listSignals).toHaveLength(1);
    expect(listSignals[0]?.aborted).toBe(false);
    controller.abort(new Error('cancel'));
    expect(seen.aborted).toBe(true);
    await expectReferenceError(within(call), CANCELLED, CANCELLED_TEXT);
    await settle();
    expect(tracker.reasons).toEqual([]);
  });

  it.each([
    ['with a caller signal', true],
    ['without a caller signal', false],
  ])('when one of two reads fails, the other read is aborted (%s)', async (_name, withSignal) => {
    tracker = trackUnhandledRejections();
    const seen = { aborted: false };
    const slowStarted = deferred<AbortSignal | undefined>();
    const stub = new StubQuery({
      readSurface: (sessionId: SessionId, signal) => {
        if (sessionId === 'slow') {
          slowStarted.resolve(signal);
          return cooperativeRead(signal, seen);
        }
        return new Promise((_resolve, reject) => setTimeout(() => reject(new Error('broken source')), 10));
      },
    });
    const caller = new AbortController();
    const error = await expectReferenceError(
      within(
        service(stub).prepare(target(), CONTENT, [{ sessionId: 'slow' }, { sessionId: 'broken' }], withSignal ? caller.signal : undefined),
      ),
      READ_FAILED,
      'failed to read referenced session: broken source',
    );
    expect(error).toBeInstanceOf(SessionReferenceError);
    const slowSignal = await slowStarted.promise;
    expect(slowSignal?.aborted).toBe(true);
    expect(seen.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
    await settle();
    expect(tracker.reasons).toEqual([]);
  });

  it('reads start at once, in input order, and all succeed into one context', async () => {
    const started: string[] = [];
    const gates = new Map([
      ['a', deferred<SessionSurfaceSnapshot>()],
      ['b', deferred<SessionSurfaceSnapshot>()],
    ]);
    const stub = new StubQuery({
      readSurface: (sessionId) => {
        started.push(sessionId);
        return (gates.get(sessionId) as ReturnType<typeof deferred<SessionSurfaceSnapshot>>).promise;
      },
    });
    const call = service(stub).prepare(target(), CONTENT, [{ sessionId: 'a' }, { sessionId: 'b' }], new AbortController().signal);
    await settle();
    // Both reads are in flight before either settles.
    expect(started).toEqual(['a', 'b']);
    gates.get('b')?.resolve(snapshotOf('b', 'second'));
    gates.get('a')?.resolve(snapshotOf('a', 'first'));
    const prepared = await within(call);
    expect(promptData(prepared.additionalContext).map((data) => data['sessionId'])).toEqual(['a', 'b']);
  });
});

// The pool renderer keeps readSurface semantics (SESSION-LOG.md §10.4 steps 1–8, §10.1 mapping) and the
// reference service's contract (SESSION-REFERENCE.md §8 "Placement"): live wins, listing and not-found
// rules, error mapping equal to the in-thread path, capture at call start, and cancellation that
// settles at once even when a read never settles (a never-settling listing, a worker stuck in a read). A FIFO in
// place of a log no longer blocks a worker at all: it is refused at once.
import { execFileSync } from 'node:child_process';
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import type { PoolRendererStorage } from '../../../../src/main/engine/pool/pool-source-renderer.js';
import type { PreparedReferences } from '../../../../src/main/engine/reference/reference-types.js';
import type { TaskRunOptions, TaskRunner } from '../../../../src/main/engine/pool/task-runner.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { SessionEvent, SessionHeader } from '../../../../src/protocol/events.js';
import type { TaskKind, TaskPayloads, TaskValues } from '../../../../src/protocol/wire/task-shapes.js';
import { header, promptData, referencesOf, target, userEvent, within } from '../reference/reference-builders.js';
import { makeTempDir, removeTempDir } from '../store/store-test-builders.js';
import { serviceWith, testPool } from './pool-builders.js';
import type { RendererKind } from './pool-builders.js';

const pool = testPool();
afterAll(() => pool.close());

const CONTENT = [{ type: 'text' as const, text: 'use @source' }];
const CANCELLED = {
  name: 'SessionReferenceError',
  code: 'SESSION_REFERENCE_CANCELLED',
  message: 'session reference preparation was cancelled',
};

/** Records every task it runs and can do something first (append, attach) before handing it on. */
class RecordingRunner implements TaskRunner {
  readonly calls: Array<{ kind: TaskKind; source?: string }> = [];
  before: ((kind: TaskKind, payload: unknown) => Promise<void> | void) | undefined;

  constructor(private readonly inner: TaskRunner) {}

  async run<K extends TaskKind>(kind: K, payload: TaskPayloads[K], options?: TaskRunOptions): Promise<TaskValues[K]> {
    this.calls.push({ kind, source: (payload as { source?: string }).source });
    await this.before?.(kind, payload);
    return this.inner.run(kind, payload, options);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

type Outcome = { value: PreparedReferences } | { error: Error & { code?: unknown; cause?: Error & { code?: unknown; cause?: unknown } } };

async function outcomeOf(promise: Promise<PreparedReferences>): Promise<Outcome> {
  return promise.then(
    (value): Outcome => ({ value }),
    (error: unknown): Outcome => ({ error: error as Error & { code?: unknown; cause?: Error & { code?: unknown } } }),
  );
}

/** name, code and message of an error and of its cause: what must be equal across renderers. */
function errorShape(outcome: Outcome): unknown {
  if (!('error' in outcome)) return { value: true };
  const { error } = outcome;
  const cause = error.cause;
  return {
    name: error.name,
    code: error.code,
    message: error.message,
    cause: cause === undefined ? undefined : { name: cause.name, code: cause.code, message: cause.message },
  };
}

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(dir);
});

async function storeWith(sessions: ReadonlyArray<{ header: SessionHeader; events: SessionEvent[] }>): Promise<JsonlSessionStore> {
  const store = await JsonlSessionStore.open({ root: join(dir, 'root'), compression: 'none' });
  for (const session of sessions) await store.create(session.header, session.events);
  return store;
}

function texts(count: number, prefix: string): SessionEvent[] {
  return Array.from({ length: count }, (_, seq) => userEvent(seq, `${prefix} ${seq}`));
}

describe('observation rules of readSurface (§10.4)', () => {
  it('item 75: the live copy wins; storage is not read for it', async () => {
    const store = await storeWith([{ header: header('shared', 20), events: [userEvent(0, 'persisted content')] }]);
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('shared', 20), events: [userEvent(0, 'live content')] });
    const runner = new RecordingRunner(pool);
    const { service } = serviceWith('pool', runner, { registry, storage: store });
    const prepared = await service.prepare(target(), CONTENT, [{ sessionId: 'shared' }]);
    expect(promptData(prepared.additionalContext)[0]?.['conversation']).toEqual([{ role: 'user', text: 'live content' }]);
    expect(runner.calls).toEqual([{ kind: 'readSource', source: 'live' }]);
  });

  it('step 4: a live session attached while the persisted source was read wins', async () => {
    const store = await storeWith([{ header: header('late', 4), events: [userEvent(0, 'stale persisted content')] }]);
    const registry = new InMemoryLiveRegistry();
    const runner = new RecordingRunner(pool);
    runner.before = (_kind, payload) => {
      if ((payload as { source: string }).source === 'persisted')
        registry.attach({ header: header('late', 4), events: [userEvent(0, 'attached live content')] });
    };
    const { service } = serviceWith('pool', runner, { registry, storage: store });
    const prepared = await service.prepare(target(), CONTENT, [{ sessionId: 'late' }]);
    expect(promptData(prepared.additionalContext)[0]?.['conversation']).toEqual([{ role: 'user', text: 'attached live content' }]);
    expect(runner.calls.map((call) => call.source)).toEqual(['persisted', 'live']);
  });

  it('item 77: no storage, or an id absent from the listing → SESSION_NOT_FOUND and no worker task', async () => {
    const runner = new RecordingRunner(pool);
    for (const storage of [undefined, await storeWith([{ header: header('other', 1), events: [] }])]) {
      const { service } = serviceWith('pool', runner, storage === undefined ? {} : { storage });
      const outcome = await outcomeOf(service.prepare(target(), CONTENT, [{ sessionId: 'absent' }]));
      expect(errorShape(outcome)).toEqual({
        name: 'SessionReferenceError',
        code: 'SESSION_REFERENCE_READ_FAILED',
        message: 'failed to read referenced session: session "absent" not found',
        cause: { name: 'SessionQueryError', code: 'SESSION_QUERY_SESSION_NOT_FOUND', message: 'session "absent" not found' },
      });
    }
    expect(runner.calls).toEqual([]);
  });

  it('item 76: a failing listing → PERSISTENCE_FAILED with the §10.1 text, cause kept', async () => {
    const offline = new Error('storage offline');
    const storage: PoolRendererStorage = {
      list: () => Promise.reject(offline),
      locate: () => Promise.resolve(undefined),
      config: { root: dir, compression: 'none' },
    };
    const { service } = serviceWith('pool', pool, { storage: storage as never });
    const outcome = await outcomeOf(service.prepare(target(), CONTENT, [{ sessionId: 'x' }]));
    expect(errorShape(outcome)).toEqual({
      name: 'SessionReferenceError',
      code: 'SESSION_REFERENCE_READ_FAILED',
      message: 'failed to read referenced session: session persistence listing failed: storage offline',
      cause: {
        name: 'SessionQueryError',
        code: 'SESSION_QUERY_PERSISTENCE_FAILED',
        message: 'session persistence listing failed: storage offline',
      },
    });
    expect((outcome as { error: { cause: { cause: unknown } } }).error.cause.cause).toBe(offline);
  });

  it('item 77: a header that changed between listing and inspection → SOURCE_CONFLICT', async () => {
    const store = await storeWith([{ header: header('moved', 1, '/before'), events: [userEvent(0, 'x')] }]);
    const storage: PoolRendererStorage = {
      list: async (signal) => (await store.list(signal)).map((listed) => ({ ...listed, cwd: '/after' })),
      locate: (id, signal) => store.locate(id, signal),
      config: store.config,
    };
    const { service } = serviceWith('pool', pool, { storage: storage as never });
    expect(errorShape(await outcomeOf(service.prepare(target(), CONTENT, [{ sessionId: 'moved' }])))).toEqual({
      name: 'SessionReferenceError',
      code: 'SESSION_REFERENCE_READ_FAILED',
      message: 'failed to read referenced session: session source headers conflict for session "moved"',
      cause: {
        name: 'SessionQueryError',
        code: 'SESSION_QUERY_SOURCE_CONFLICT',
        message: 'session source headers conflict for session "moved"',
      },
    });
  });
});

describe('error mapping equals the in-thread path', () => {
  async function bothRenderers(
    storage: JsonlSessionStore | undefined,
    registry: InMemoryLiveRegistry | undefined,
    sessionId: string,
  ): Promise<[unknown, unknown]> {
    const outcomes = await Promise.all(
      (['pool', 'in-thread'] as RendererKind[]).map((kind) =>
        outcomeOf(
          serviceWith(kind, pool, {
            ...(storage === undefined ? {} : { storage }),
            ...(registry === undefined ? {} : { registry }),
          }).service.prepare(target(), CONTENT, [{ sessionId }]),
        ),
      ),
    );
    return [errorShape(outcomes[0] as Outcome), errorShape(outcomes[1] as Outcome)];
  }

  it('item 80: a corrupt persisted log → CORRUPT_SESSION with the wrapped validation text', async () => {
    const { surfaceOp: _dropped, ...bare } = userEvent(1, 'no marker');
    const store = await storeWith([{ header: header('broken', 1), events: [userEvent(0, 'fine'), bare as SessionEvent] }]);
    const [pooled, inThread] = await bothRenderers(store, undefined, 'broken');
    expect(pooled).toEqual(inThread);
    expect(pooled).toMatchObject({
      code: 'SESSION_REFERENCE_READ_FAILED',
      cause: { code: 'SESSION_QUERY_CORRUPT_SESSION' },
    });
    expect((pooled as { message: string }).message).toMatch(
      /^failed to read referenced session: stored session "broken" is corrupt: stored session "broken" failed validation: Error: /,
    );
  });

  it('a format version this build cannot read → PERSISTENCE_FAILED with the refusal text', async () => {
    const store = await storeWith([{ header: header('future', 1), events: [userEvent(0, 'x')] }]);
    const path = (await store.locate('future' as never)) as string;
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"version":0', '"version":3'));
    const [pooled, inThread] = await bothRenderers(store, undefined, 'future');
    expect(pooled).toEqual(inThread);
    expect(pooled).toMatchObject({ cause: { code: 'SESSION_QUERY_PERSISTENCE_FAILED' } });
    expect((pooled as { message: string }).message).toContain('uses log format v3, but this harness reads only v0');
  });

  it('item 78: a non-contiguous live log → INVALID_SURFACE with the fold text', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('gap', 1), events: [userEvent(0, 'a'), userEvent(2, 'b')] });
    const [pooled, inThread] = await bothRenderers(undefined, registry, 'gap');
    expect(pooled).toEqual(inThread);
    expect(pooled).toMatchObject({
      message: 'failed to read referenced session: invalid session surface: session event seq 2 is not contiguous; expected 1',
      cause: { name: 'SessionQueryError', code: 'SESSION_QUERY_INVALID_SURFACE' },
    });
  });
});

describe('capture at call start (§10.4 last paragraph)', () => {
  it('a persisted source is read as of the call: bytes appended before the worker reads are not seen', async () => {
    const events = texts(5, 'before');
    const store = await storeWith([{ header: header('growing', 1), events }]);
    const runner = new RecordingRunner(pool);
    runner.before = async () => {
      await store.append(header('growing', 1), [userEvent(5, 'appended after the capture')]);
    };
    const { service } = serviceWith('pool', runner, { storage: store });
    const prepared = await service.prepare(target(), CONTENT, [{ sessionId: 'growing' }]);
    expect(referencesOf(prepared.additionalContext)[0]?.['capturedThroughSeq']).toBe(4);
    expect(JSON.stringify(promptData(prepared.additionalContext))).not.toContain('appended after the capture');
    // The next call captures the longer log.
    runner.before = undefined;
    const again = await service.prepare(target(), CONTENT, [{ sessionId: 'growing' }]);
    expect(referencesOf(again.additionalContext)[0]?.['capturedThroughSeq']).toBe(5);
  });

  it('a live source is read as of the call: events appended before the worker runs are not seen', async () => {
    const registry = new InMemoryLiveRegistry();
    const live = { header: header('live', 1), events: texts(3, 'live') };
    registry.attach(live);
    const runner = new RecordingRunner(pool);
    runner.before = () => {
      live.events.push(userEvent(3, 'appended after the capture'));
    };
    const { service } = serviceWith('pool', runner, { registry });
    const prepared = await service.prepare(target(), CONTENT, [{ sessionId: 'live' }]);
    expect(referencesOf(prepared.additionalContext)[0]?.['capturedThroughSeq']).toBe(2);
    expect(JSON.stringify(promptData(prepared.additionalContext))).not.toContain('appended after the capture');
  });
});

describe('cancellation never waits for a read', () => {
  it('a pre-aborted signal → CANCELLED and no task is submitted', async () => {
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('live', 1), events: texts(1, 'x') });
    const runner = new RecordingRunner(pool);
    const controller = new AbortController();
    controller.abort(new Error('turn cancelled'));
    const outcome = await outcomeOf(
      serviceWith('pool', runner, { registry }).service.prepare(target(), CONTENT, [{ sessionId: 'live' }], controller.signal),
    );
    expect(errorShape(outcome)).toMatchObject(CANCELLED);
    expect(runner.calls).toEqual([]);
  });

  it('a listing that never settles cannot hold the turn: abort → CANCELLED at once', async () => {
    const storage: PoolRendererStorage = {
      list: () => new Promise(() => undefined),
      locate: () => new Promise(() => undefined),
      config: { root: dir, compression: 'none' },
    };
    const controller = new AbortController();
    const preparing = outcomeOf(
      serviceWith('pool', pool, { storage: storage as never }).service.prepare(target(), CONTENT, [{ sessionId: 'x' }], controller.signal),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('turn cancelled'));
    const outcome = await within(preparing, 50);
    expect(errorShape(outcome)).toMatchObject(CANCELLED);
    expect((outcome as { error: { cause?: unknown } }).error.cause).toBe(controller.signal.reason);
  });

  it('a FIFO in place of a source log is refused at once, without blocking a worker; the pool keeps answering', async () => {
    const fifo = join(dir, 'session.jsonl');
    execFileSync('mkfifo', [fifo]);
    const storage: PoolRendererStorage = {
      list: () => Promise.resolve([header('fifo', 1)]),
      locate: () => Promise.resolve(fifo),
      config: { root: dir, compression: 'none' },
    };
    try {
      const { service } = serviceWith('pool', pool, { storage: storage as never });
      const refused = await within(outcomeOf(service.prepare(target(), CONTENT, [{ sessionId: 'fifo' }])), 2000);
      expect(errorShape(refused)).toMatchObject({
        code: 'SESSION_REFERENCE_READ_FAILED',
        cause: {
          name: 'SessionQueryError',
          code: 'SESSION_QUERY_PERSISTENCE_FAILED',
          message: `failed to inspect session "fifo": session store: "${fifo}" is a FIFO, not a regular file`,
        },
      });
    } finally {
      // Only a regression opens the FIFO: a read-write open never blocks on Linux and counts as a writer, so a
      // blocked reader's open would complete and then see EOF.
      const release = await open(fifo, 'r+');
      await release.close();
    }
    const answers = await Promise.all([0, 1, 2, 3].map(() => within(pool.run('testFault', { mode: 'echo', delayMs: 10 }), 2000)));
    expect(new Set(answers.map((answer) => answer.threadId)).size).toBe(2);
  });

  it('a worker stuck in a read cannot hold the turn; a failing sibling read does not wait for it; the pool recovers', async () => {
    const store = await storeWith([{ header: header('stuck', 1), events: [userEvent(0, 'hello')] }]);
    // Every readSource occupies a worker for 300 ms without polling its control port (a worker stuck in a slow
    // system call) and then never answers: only the caller's race can settle it. The workers are free again later.
    const stalling: TaskRunner = {
      run: <K extends TaskKind>(kind: K, payload: TaskPayloads[K], options?: TaskRunOptions): Promise<TaskValues[K]> =>
        (kind === 'readSource'
          ? pool.run('testFault', { mode: 'echo', delayMs: 300 }, options).then(() => new Promise<never>(() => undefined))
          : pool.run(kind, payload, options)) as Promise<TaskValues[K]>,
      close: () => Promise.resolve(),
    };
    const { service } = serviceWith('pool', stalling, { storage: store });
    // Abort while the worker is stuck: the caller settles at once.
    const controller = new AbortController();
    const preparing = outcomeOf(service.prepare(target(), CONTENT, [{ sessionId: 'stuck' }], controller.signal));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('turn cancelled'));
    expect(errorShape(await within(preparing, 50))).toMatchObject(CANCELLED);
    // A sibling that fails fails the whole preparation at once (first failure in time).
    const failing = await within(outcomeOf(service.prepare(target(), CONTENT, [{ sessionId: 'stuck' }, { sessionId: 'missing' }])), 500);
    expect(errorShape(failing)).toMatchObject({
      code: 'SESSION_REFERENCE_READ_FAILED',
      message: 'failed to read referenced session: session "missing" not found',
    });
    // Once the stuck reads are over (300 ms each), both threads answer again.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answers = await Promise.all([0, 1, 2, 3].map(() => within(pool.run('testFault', { mode: 'echo', delayMs: 10 }), 2000)));
    expect(new Set(answers.map((answer) => answer.threadId)).size).toBe(2);
  });
});

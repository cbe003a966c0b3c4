// DCP.md §19 D6 and §15.1: the `/dcp stats` ledger and invalidation figures recomputed from the log by one pure fold,
// run as a `dcpLedger` task on the worker pool for large logs and on the calling thread for small ones, with the
// same output either way; the capture is synchronous; a failing pool degrades to the calling thread.
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { foldLedger } from '../../../../src/protocol/dcp/ledger-fold.js';
import { createUserMessage } from '../../../../src/protocol/user-message.js';
import { DcpConfigError } from '../../../../src/protocol/dcp/config-error.js';
import { SessionPoolError } from '../../../../src/protocol/wire/pool-errors.js';
import { validateTaskOutcome } from '../../../../src/protocol/wire/task-validation.js';
import { dcpPlugin } from '../../../../src/main/engine/dcp/dcp-plugin.js';
import { resolveFullLogTasks } from '../../../../src/main/engine/dcp/ledger-service.js';
import { LiveLogTracker } from '../../../../src/main/engine/live/live-log-tracker.js';
import { InThreadTaskRunner } from '../../../../src/main/engine/pool/in-thread-runner.js';
import type { TaskRunner } from '../../../../src/main/engine/pool/task-runner.js';
import { WorkerPool } from '../../../../src/main/engine/pool/worker-pool.js';
import type { FullLogTasksOptions } from '../../../../src/main/engine/dcp/ledger-service.js';
import { dcpActiveSession } from './dcp-active-session.js';
import { createDcpHarness, texts, turn } from './dcp-harness.js';
import type { DcpHarness } from './dcp-harness.js';
import { computeLedger, invalidationLines } from './ledger-oracle.js';

const pool = new WorkerPool({ size: 1 });
afterAll(() => pool.close());

/** The DCP-active log (compress, cleanup, dedup, purge, expansion, recompression, sweep, manual, a native bracket). */
const activeEvents: Promise<readonly SessionEvent[]> = dcpActiveSession().then((harness) => harness.session.events);

/** A DCP harness seeded with the DCP-active log, with `fullLogTasks` when given. */
async function seeded(fullLogTasks?: FullLogTasksOptions): Promise<DcpHarness> {
  const seed = [...(await activeEvents)];
  return createDcpHarness({ seed, script: texts(2), ...(fullLogTasks === undefined ? {} : { pluginOptions: { fullLogTasks } }) });
}

/** A runner that fails every task with `error`. */
function failingRunner(error: Error): TaskRunner {
  return { run: () => Promise.reject(error), close: () => Promise.resolve() };
}

describe('the ledger fold (DCP.md §15.1, §14 rule 1)', () => {
  it('equals the index-and-meter oracle on a DCP-active log, ledger and every invalidation figure', async () => {
    const harness = await dcpActiveSession();
    const { session } = harness;
    const records = harness.index().invalidations.list();
    expect(records.length).toBeGreaterThan(2);
    const fold = foldLedger(session.events, records);
    const expected = computeLedger(harness.index(), session);
    expect(fold.ledger).toEqual(expected);
    // Each DCP class the log holds shows up, so the comparison covers every row of the §15.1 table.
    expect(expected.blockCount).toBeGreaterThanOrEqual(2);
    expect(expected.pruneReplacements).toBeGreaterThanOrEqual(2);
    expect(expected.inlineCleanups).toBeGreaterThanOrEqual(1);
    expect(expected.expansionTokens).not.toBe(0);
    expect(fold.reReadTokens).toEqual(invalidationLines(records, session).map((line) => line.reReadTokens));
    expect(fold.eventCount).toBe(session.events.length);
  });

  it('refuses a log with a seq gap or a replace of nodes that are not on the surface (RangeError)', async () => {
    const events = await activeEvents;
    const gap = [...events.slice(0, 3), ...events.slice(4)];
    expect(() => foldLedger(gap, [])).toThrow(new RangeError('ledger fold: event seq 4 is not contiguous; expected 3'));
    const replaceAt = events.findIndex((event) => typeof event.surfaceOp === 'object');
    // The same replace folded without its earlier history: the nodes it names were never appended.
    const orphan = { ...events[replaceAt]!, seq: 0 };
    expect(() => foldLedger([orphan], [])).toThrow(
      new RangeError('ledger fold: the replace at seq 0 names a range that is not on the surface'),
    );
  });

  it('calls the abort poll while it folds and stops when it throws', async () => {
    const events = await activeEvents;
    let polls = 0;
    expect(() =>
      foldLedger(events, [], () => {
        polls += 1;
        throw new Error('stop');
      }),
    ).toThrow('stop');
    expect(polls).toBe(1);
  });
});

describe('/dcp stats through the worker pool (§19 D6)', () => {
  it('gives the same output through a real pool thread as on the calling thread, and the pool answered it', async () => {
    const local = await seeded();
    const pooled = await seeded({ runner: pool, minEvents: 0 });
    const localStats = await local.runCommand('/dcp stats');
    const pooledStats = await pooled.runCommand('/dcp stats');
    expect(localStats.kind).toBe('success');
    expect(pooledStats).toEqual(localStats);
    expect(pooledStats.text).toContain('recent invalidations: s');
    expect(pooled.runtime.ledgers.runs).toEqual({ pool: 1, inThread: 0, poolFailures: 0 });
    expect(local.runtime.ledgers.runs).toEqual({ pool: 0, inThread: 1, poolFailures: 0 });
  });

  it('folds a log below minEvents on the calling thread', async () => {
    const events = await activeEvents;
    const harness = await seeded({ runner: pool, minEvents: events.length + 1000 });
    expect((await harness.runCommand('/dcp stats')).kind).toBe('success');
    expect(harness.runtime.ledgers.runs).toEqual({ pool: 0, inThread: 1, poolFailures: 0 });
  });

  it('captures the log synchronously once its byte log is current: events appended while the task runs are not folded', async () => {
    const harness = await seeded({ runner: new InThreadTaskRunner(), minEvents: 0 });
    const { session } = harness;
    await harness.runtime.ledgers.fold(session, []);
    const before = session.events.length;
    const folding = harness.runtime.ledgers.fold(session, []);
    session.append('user/message', createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: 'late' }] }), {
      surfaceOp: 'append',
    });
    const fold = await folding;
    expect(fold.eventCount).toBe(before);
    expect(session.events.length).toBe(before + 1);
  });

  it('encodes a reopened long log in slices that yield to the event loop, and stats taken meanwhile are still exact', async () => {
    const liveLogs = new LiveLogTracker();
    const local = await seeded();
    const harness = await seeded({ runner: pool, minEvents: 0, liveLogs, catchUpSliceMs: 0.001 });
    const { session } = harness;
    harness.index();
    // The first slice ran synchronously and stopped at its tiny budget: most of the log is still to be encoded.
    const encodedAtOnce = liveLogs.encodedEvents(session)!;
    expect(encodedAtOnce).toBeGreaterThan(0);
    expect(encodedAtOnce).toBeLessThan(session.events.length);
    let yielded = false;
    setImmediate(() => {
      yielded = true;
    });
    const stats = await harness.runCommand('/dcp stats');
    expect(yielded).toBe(true);
    expect(stats).toEqual(await local.runCommand('/dcp stats'));
    expect(harness.runtime.ledgers.runs.pool).toBe(1);
    expect(liveLogs.encodedEvents(session)).toBe(session.events.length);
  });

  it('falls back to the calling thread when the pool fails, logs a warning, and the output is unchanged', async () => {
    const local = await seeded();
    const broken = await seeded({ runner: failingRunner(new SessionPoolError('SESSION_POOL_WORKER_FAILED', 'thread died')), minEvents: 0 });
    const stats = await broken.runCommand('/dcp stats');
    expect(stats).toEqual(await local.runCommand('/dcp stats'));
    expect(broken.runtime.ledgers.runs).toEqual({ pool: 0, inThread: 1, poolFailures: 1 });
    expect(
      broken.logs.some(
        (line) => line.level === 'warn' && line.text === 'DCP stats folded on the main thread: the worker pool failed (thread died)',
      ),
    ).toBe(true);
  });

  it('reports a fold failure that is not a pool failure as the command error', async () => {
    const broken = await seeded({ runner: failingRunner(new TypeError('fold exploded')), minEvents: 0 });
    const stats = await broken.runCommand('/dcp stats');
    expect(stats).toEqual({ kind: 'error', text: 'fold exploded' });
  });

  it('keeps the byte log of a session that reached minEvents current as it grows, so captures are O(1)', async () => {
    const liveLogs = new LiveLogTracker();
    const minEvents = 80;
    const harness = createDcpHarness({ script: texts(8), pluginOptions: { fullLogTasks: { runner: pool, minEvents, liveLogs } } });
    await turn(harness, 'one');
    const { session } = harness;
    expect(session.events.length).toBeLessThan(minEvents);
    expect(liveLogs.encodedEvents(session)).toBeUndefined();
    let turns = 1;
    while (session.events.length < minEvents) await turn(harness, `turn ${++turns}`);
    // Crossing minEvents starts a sliced catch-up of the events so far; once it is done, every append is encoded as it lands.
    await liveLogs.trackGradually(session, 2);
    expect(liveLogs.encodedEvents(session)).toBe(session.events.length);
    await turn(harness, 'one more');
    expect(liveLogs.encodedEvents(session)).toBe(session.events.length);
  });
});

describe('fullLogTasks validation and the dcpLedger wire check', () => {
  it.each([0, -1, Number.POSITIVE_INFINITY, Number.NaN])('refuses catchUpSliceMs %s with DCP_CONFIG_INVALID', (catchUpSliceMs) => {
    expect(() => resolveFullLogTasks({ runner: pool, catchUpSliceMs })).toThrow(
      expect.objectContaining({ code: 'DCP_CONFIG_INVALID', key: 'fullLogTasks.catchUpSliceMs' }),
    );
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])('refuses minEvents %s with DCP_CONFIG_INVALID', (minEvents) => {
    let caught: unknown;
    try {
      resolveFullLogTasks({ runner: pool, minEvents });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DcpConfigError);
    expect(caught).toMatchObject({ code: 'DCP_CONFIG_INVALID', key: 'fullLogTasks.minEvents' });
  });

  it('refuses a runner that cannot run tasks, already when the plugin is created', () => {
    expect(() => dcpPlugin({ fullLogTasks: { runner: {} as TaskRunner } })).toThrow(
      'dcp config: fullLogTasks.runner must be a task runner (for example a WorkerPool)',
    );
  });

  it('rejects a malformed or mis-sized dcpLedger reply as SESSION_POOL_PROTOCOL', () => {
    const ledger = {
      shadowedTokens: 1,
      checkpointTokens: 1,
      blockCount: 1,
      expansionTokens: 0,
      pruneTokens: 0,
      pruneReplacements: 0,
      cleanupTokens: 0,
      inlineCleanups: 0,
      markerTokens: 4,
    };
    const good = { ok: true, value: { ledger, reReadTokens: [7], eventCount: 12 } };
    expect(validateTaskOutcome('dcpLedger', good, 1)).toBe(good);
    const bad = [
      { ok: true, value: { ledger, reReadTokens: [7], eventCount: 12.5 } },
      { ok: true, value: { ledger: { ...ledger, markerTokens: 'x' }, reReadTokens: [7], eventCount: 12 } },
      { ok: true, value: { ledger, reReadTokens: ['7'], eventCount: 12 } },
    ];
    for (const reply of bad)
      expect(() => validateTaskOutcome('dcpLedger', reply, 1)).toThrow(expect.objectContaining({ code: 'SESSION_POOL_PROTOCOL' }));
    expect(() => validateTaskOutcome('dcpLedger', good, 2)).toThrow(expect.objectContaining({ code: 'SESSION_POOL_PROTOCOL' }));
  });
});

/**
 * The per-session view of `sessionctx/dsh-dcp` (docs/DSH-DCP.md §3) fed, event by event, the logs dsh + dsh-dcp
 * wrote for the fixture conversations (`test/fixtures/dcp-dsh/*.dsh.json`), compared after every event with the
 * stand-in host's own session folding the same log (HOST.md §2): surface, meter, tool pairing, turn/step and bracket
 * state, request header and context window. Also: what the view does with an event it saw already, a gap, a write
 * dsh does not publish, and a listener that throws.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DshSessionView } from '../../src/dsh-dcp/dsh-session-view.js';
import { SessionViews } from '../../src/dsh-dcp/session-views.js';
import { replayDcpIndex } from '../../src/main/engine/dcp/cold-replay.js';
import { currentWindowLookup, DcpRuntime } from '../../src/main/engine/dcp/dcp-runtime.js';
import { silentLogger } from '../../src/main/host-kit/silent-logger.js';
import { resolveDcpConfig } from '../../src/protocol/dcp/config.js';
import { indexSnapshot } from '../main/engine/dcp/index-snapshot.js';
import type { DshSession } from '../../src/dsh-dcp/dsh-dcp-host-shapes.js';
import { recordedContextWindows } from '../../src/main/engine/dcp/recorded-context-windows.js';
import { Session } from '../../src/main/stand-in/host/session.js';
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.js';
import { DCP_FIXTURE_SCENARIOS } from '../support/dcp-fixture-comparison.js';
import { DCP_DSH } from '../support/fixtures.js';

const header = (id: string): SessionHeader => ({ version: 0, id, createdAt: 0 }) as SessionHeader;

/** A dsh session over a growing log: `publish` decides whether an append reaches the view (dsh's `session/event`). */
function fakeDshSession(id: string, publish: (event: SessionEvent) => void): DshSession & { push(event: SessionEvent): void } {
  const log: SessionEvent[] = [];
  const session = {
    id,
    header: header(id),
    get events(): readonly SessionEvent[] {
      return Object.freeze([...log]);
    },
    surface: { nodes: [] as number[] },
    append(type: string, data: unknown, ...intent: Array<{ surfaceOp?: unknown; sourceEventSeqs?: unknown }>): SessionEvent {
      const event = Object.freeze({ type, seq: log.length, time: 0, data, ...(intent[0] ?? {}) }) as SessionEvent;
      log.push(event);
      publish(event);
      return event;
    },
    deriveMessages: () => [],
    push(event: SessionEvent) {
      log.push(event);
    },
  };
  return session;
}

/** A dsh session whose log is `events`. */
function fakeDshSessionWith(events: readonly SessionEvent[]): ReturnType<typeof fakeDshSession> {
  const session = fakeDshSession('with', () => {});
  for (const event of events) session.push(event);
  return session;
}

/** Everything the view and the stand-in session must agree on. */
function state(
  session: Pick<
    Session,
    | 'surface'
    | 'meter'
    | 'toolPairing'
    | 'openTurn'
    | 'openStep'
    | 'openBrackets'
    | 'highestTurn'
    | 'latestRequestHeader'
    | 'requestContext'
  >,
) {
  const positions = Array.from({ length: session.surface.length }, (_, position) => position);
  return {
    surface: positions.map((position) => session.surface.at(position)),
    pairing: [-1, ...positions].map((position) => session.toolPairing.countThrough(position)),
    measure: session.meter.measure(),
    openTurn: session.openTurn(),
    openStep: session.openStep(),
    openBrackets: session.openBrackets(),
    highestTurn: session.highestTurn(),
    header: session.latestRequestHeader(),
    context: session.requestContext(),
  };
}

describe('the dsh session view', () => {
  for (const name of DCP_FIXTURE_SCENARIOS) {
    it(`${name}: fed dsh's log event by event, it agrees with the stand-in host's fold after every event`, () => {
      const events = (JSON.parse(readFileSync(join(DCP_DSH, `${name}.dsh.json`), 'utf8')) as { events: SessionEvent[] }).events;
      // The stand-in's model registry, as dsh's records of it so far tell it (a window is known once dsh logged it).
      let seen = 0;
      const oracle = Session.create(name, {
        header: header(name),
        contextWindowOf: (provider, model) => recordedContextWindows(events.slice(0, seen))(provider, model),
      });
      const dsh = fakeDshSession(name, () => {});
      const view = new DshSessionView(dsh, (error) => {
        throw error;
      });
      const notified: number[] = [];
      view.on('event', (event) => notified.push(event.seq));
      for (const event of events) {
        oracle.append(event.type as never, event.data as never, { surfaceOp: event.surfaceOp, sourceEventSeqs: event.sourceEventSeqs });
        seen += 1;
        dsh.push(event);
        view.observe(event);
        expect(state(view), `after s${event.seq} ${event.type}`).toEqual(state(oracle));
        expect(view.meter.estimateOf(event.seq)).toBe(oracle.meter.estimateOf(event.seq));
      }
      expect(notified).toEqual(events.map((event) => event.seq));
      expect(view.events).toEqual(events);
    });
  }

  for (const name of DCP_FIXTURE_SCENARIOS) {
    it(`${name}: DCP's index built in the view's first fold, then fed by the view, equals a cold replay of the log`, () => {
      const events = (JSON.parse(readFileSync(join(DCP_DSH, `${name}.dsh.json`), 'utf8')) as { events: SessionEvent[] }).events;
      const runtime = new DcpRuntime(resolveDcpConfig({}).config, silentLogger);
      const views = new SessionViews(
        (error) => {
          throw error;
        },
        () => {
          const index = runtime.createIndex();
          return { observe: (event, delta, view) => index.apply(event, delta, view), done: (view) => runtime.adoptIndex(view, index) };
        },
      );
      const dsh = fakeDshSession(name, () => {});
      const half = Math.floor(events.length / 2);
      for (const event of events.slice(0, half)) dsh.push(event);
      const view = views.viewOf(dsh);
      expect(runtime.counters.folds).toBe(1);
      for (const event of events.slice(half)) {
        dsh.push(event);
        views.observe(dsh, event);
      }
      const adopted = runtime.indexFor(view);
      expect(runtime.counters.folds).toBe(1);
      const cold = replayDcpIndex(events, runtime.indexOptions(), currentWindowLookup(view));
      expect(indexSnapshot(adopted, events)).toEqual(indexSnapshot(cold, events));
    });
  }

  describe('the sliced first fold of a long log', () => {
    /** A `SessionViews` whose index rider counts its `done` calls; slices of one batch each (`sliceMs: 0`). */
    function slicedViews(minEvents = 10) {
      const runtime = new DcpRuntime(resolveDcpConfig({}).config, silentLogger);
      const done: DshSessionView[] = [];
      const views = new SessionViews(
        (error) => {
          throw error;
        },
        () => {
          const index = runtime.createIndex();
          return {
            observe: (event, delta, view) => index.apply(event, delta, view),
            done: (view) => {
              done.push(view);
              runtime.adoptIndex(view, index);
            },
          };
        },
        { minEvents, sliceMs: 0 },
      );
      return { runtime, views, done };
    }

    /** A log of `count` events: the s2 fixture's (a prefix of it), then plain events. */
    function longLog(count: number): SessionEvent[] {
      const events = (JSON.parse(readFileSync(join(DCP_DSH, 's2-compress.dsh.json'), 'utf8')) as { events: SessionEvent[] }).events;
      const out = [...events];
      while (out.length < count)
        out.push(Object.freeze({ type: 'session/note', seq: out.length, time: 0, data: { n: out.length } }) as SessionEvent);
      return out.slice(0, count);
    }

    it('yields to the event loop between slices, folds the events appended meanwhile, and ends with the state of a fold done at once', async () => {
      const events = longLog(2_000);
      const { runtime, views, done } = slicedViews();
      const dsh = fakeDshSession('sliced', () => {});
      for (const event of events.slice(0, 1_500)) dsh.push(event);
      const ready = views.ready(dsh);
      expect(ready).toBeInstanceOf(Promise);
      expect(views.peek(dsh)).toBeUndefined();
      let ticks = 0;
      const counting = (): void => {
        ticks += 1;
        if (done.length === 0) setImmediate(counting);
      };
      setImmediate(counting);
      // dsh appends (and publishes) while the fold is under way: the view ignores the notification and reads the log.
      for (const event of events.slice(1_500)) {
        dsh.push(event);
        views.observe(dsh, event);
      }
      const view = await ready;
      // 2,000 events in slices of one 256-event batch, a macrotask hop after each: other work ran between them (a fold
      // done at once lets none run).
      expect(ticks).toBeGreaterThanOrEqual(3);
      expect(done).toEqual([view]);
      expect(views.peek(dsh)).toBe(view);
      expect(view.events).toEqual(events);
      const once = new DshSessionView(fakeDshSessionWith(events), () => {});
      expect(state(view)).toEqual(state(once));
      const adopted = runtime.indexFor(view);
      expect(runtime.counters.folds).toBe(1);
      const cold = replayDcpIndex(events, runtime.indexOptions(), currentWindowLookup(view));
      expect(indexSnapshot(adopted, events)).toEqual(indexSnapshot(cold, events));
      // Once current, published events are folded as they come.
      const next = dsh.append('session/note', { n: 'after' });
      views.observe(dsh, next);
      expect(view.events.at(-1)).toBe(next);
    });

    it('a short log is folded at once; every caller of a long one shares the same fold; a synchronous lookup finishes it now', async () => {
      const { views, done } = slicedViews(100);
      const short = fakeDshSessionWith(longLog(99));
      expect(views.ready(short)).toBeInstanceOf(DshSessionView);
      const long = fakeDshSessionWith(longLog(1_000));
      const first = views.ready(long);
      expect(views.ready(long)).toBe(first);
      const now = views.viewOf(long);
      expect(now.current).toBe(true);
      expect(now.events).toHaveLength(1_000);
      await expect(first).resolves.toBe(now);
      expect(done).toEqual([views.peek(short), now]);
    });

    it('a session dsh disposes during the fold fails the waiting caller with DSH_DCP_SESSION_DISPOSED and leaves no view', async () => {
      const { views, done } = slicedViews();
      const dsh = fakeDshSessionWith(longLog(2_000));
      const ready = views.ready(dsh);
      views.drop(dsh);
      await expect(ready).rejects.toMatchObject({ name: 'DshDcpError', code: 'DSH_DCP_SESSION_DISPOSED' });
      expect(views.size).toBe(0);
      expect(done).toEqual([]);
      // A later contact starts a fresh fold.
      const again = await views.ready(dsh);
      expect(again.events).toHaveLength(2_000);
    });
  });

  it("ignores an event it folded already, fills a gap from dsh's log, and folds a write dsh did not publish", () => {
    const events = (JSON.parse(readFileSync(join(DCP_DSH, 's2-compress.dsh.json'), 'utf8')) as { events: SessionEvent[] }).events;
    let view: DshSessionView | undefined;
    const dsh = fakeDshSession('gaps', (event) => view?.observe(event));
    for (const event of events.slice(0, 10)) dsh.push(event);
    view = new DshSessionView(dsh, () => {});
    expect(view.events.length).toBe(10);
    const notified: number[] = [];
    view.on('event', (event) => notified.push(event.seq));
    view.observe(events[9]!);
    expect(notified).toEqual([]);
    for (const event of events.slice(10, 20)) dsh.push(event);
    view.observe(events[19]!);
    expect(notified).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    // A write through the view: dsh publishes it (the fake does), and the view's own catch-up finds nothing more to do.
    const written = view.append('command/run', { commandId: 'cmd-1', name: 'dcp', source: { kind: 'user' } });
    expect(written.seq).toBe(20);
    expect(notified.at(-1)).toBe(20);
    expect(view.events.length).toBe(21);
  });

  it('a listener that throws is reported, and every other listener still sees the event', () => {
    const failures: string[] = [];
    const dsh = fakeDshSession('listeners', () => {});
    const view = new DshSessionView(dsh, (error, event) => failures.push(`${(error as Error).message} at s${event.seq}`));
    const seen: number[] = [];
    view.on('event', () => {
      throw new Error('boom');
    });
    view.on('event', (event) => seen.push(event.seq));
    const event = dsh.append('session/end-seed', {});
    view.observe(event);
    expect(failures).toEqual(['boom at s0']);
    expect(seen).toEqual([0]);
  });

  it('refuses an ignorable live append and unknown notification names', () => {
    const view = new DshSessionView(
      fakeDshSession('refusals', () => {}),
      () => {},
    );
    expect(() => view.append('session/end-seed', {}, { ignorable: true })).toThrow(/cannot be ignorable/);
    expect(() => view.on('other' as 'event', () => {})).toThrow(/unknown session notification/);
  });
});

// DCP.md §3.4 (§18 item 48 for the parts built here) and the issue-6 "Done when" property: seeded random
// sessions through the real loop — plain turns, tool pairs (some failing, some repeated), random compress calls
// (valid and invalid refs, several ranges), standalone native brackets and reloads. Each reload starts a new
// harness from the log, whose index is a cold replay of that prefix and then follows the tail incrementally;
// at every reload and at the end it must equal a cold replay of the whole log. Every log must also keep the
// request invariant (checked by the harness on each dispatch), write only known types, price every replace
// directly before it, and reload to the same messages.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../../src/main/stand-in/host/model-client.js';
import type { ScriptEntry, ScriptedReply } from '../../../../src/main/stand-in/host/scripted-model.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import type { ToolDefinition } from '../../../../src/main/stand-in/host/tool-definition.js';
import { compactRange } from '../../stand-in/host/host-builders.js';
import type { DcpHarness } from './dcp-harness.js';
import { coldIndex, createDcpHarness, expectHealthyLog, readTool } from './dcp-harness.js';
import { indexSnapshot } from './index-snapshot.js';

/** One step of a random session. Fractions pick positions or refs relative to what exists at that time. */
type Action =
  | { readonly kind: 'plain'; readonly size: number }
  | { readonly kind: 'tools'; readonly paths: readonly number[]; readonly fail: boolean }
  | {
      readonly kind: 'compress';
      readonly picks: ReadonlyArray<readonly [number, number]>;
      readonly bogus: boolean;
      readonly wild: boolean;
      readonly summarySize: number;
    }
  | { readonly kind: 'native'; readonly at: number; readonly length: number }
  | { readonly kind: 'reload' };

const actionArbitrary: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('plain' as const), size: fc.integer({ min: 10, max: 600 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      paths: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 2 }),
      fail: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('compress' as const),
      picks: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), {
        minLength: 1,
        maxLength: 3,
      }),
      bogus: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      wild: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      summarySize: fc.integer({ min: 5, max: 120 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('native' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      length: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reload' as const) }) },
);

const failTool: ToolDefinition = {
  name: 'fail',
  description: 'Always fails.',
  parameters: { type: 'object' },
  execute: () => {
    throw Object.assign(new Error('file not observed'), { name: 'FsError', code: 'FS_NOT_OBSERVED' });
  },
};

/**
 * The active boundary refs on the current surface, in surface order. Unless `wild`, only refs whose node is at
 * least one turn old, so that most ranges stay outside the retention window and really commit.
 */
function activeRefs(harness: DcpHarness, wild: boolean): string[] {
  const index = harness.index();
  const refs: string[] = [];
  const { surface } = harness.session;
  const openTurn = index.openTurn ?? Number.MAX_SAFE_INTEGER;
  for (let position = 0; position < surface.length; position++) {
    const seq = surface.at(position)!;
    const ref = index.markerRefAt(seq) ?? index.activeBlockRefAt(seq);
    if (ref !== undefined && (wild || index.turnOf(seq) < openTurn)) refs.push(ref);
  }
  return refs;
}

/** The model's compress reply, choosing refs from what the index shows when the request arrives. */
function compressChoice(
  harness: () => DcpHarness,
  action: Extract<Action, { kind: 'compress' }>,
): (request: ModelRequest) => ScriptedReply {
  return () => {
    const refs = activeRefs(harness(), action.wild);
    const content = action.picks.map(([a, b], entry) => {
      // Distinct refs whenever two exist: start somewhere, end strictly after it.
      const first = Math.min(refs.length - 1, Math.floor(a * refs.length));
      const last = Math.min(refs.length - 1, first + 1 + Math.floor(b * (refs.length - first - 1)));
      const startRef = action.bogus && entry === 0 ? 'm9999' : (refs[first] ?? 'm0001');
      const endRef = refs[last] ?? 'm0002';
      return { startRef, endRef, summary: `Summary ${entry}: ${'s'.repeat(action.summarySize)}` };
    });
    return { toolCalls: [{ name: 'compress', args: { topic: 'random', content } }] };
  };
}

interface RunOutcome {
  readonly harness: DcpHarness;
  readonly reloads: number;
}

async function runSession(
  actions: readonly Action[],
  contextWindow: number | undefined,
  dcp: Record<string, unknown>,
): Promise<RunOutcome> {
  const queue: Array<ScriptedReply | ((request: ModelRequest) => ScriptedReply)> = [];
  const script: ScriptEntry[] = Array.from({ length: 400 }, () => (request: ModelRequest) => {
    const next = queue.shift() ?? { text: 'done' };
    return typeof next === 'function' ? next(request) : next;
  });
  const options = { tools: [readTool, failTool], script, contextWindow, dcp };
  let harness = createDcpHarness(options);
  let reloads = 0;
  let natives = 0;
  let turnNumber = 0;
  for (const action of actions) {
    switch (action.kind) {
      case 'plain':
        queue.push({ text: `answer ${'a'.repeat(action.size)}` });
        break;
      case 'tools':
        queue.push(
          {
            toolCalls: action.paths.map((path) =>
              action.fail ? { name: 'fail', args: { path } } : { name: 'read', args: { path: `f${path}.txt` } },
            ),
          },
          { text: 'tools done' },
        );
        break;
      case 'compress': {
        const current = harness;
        queue.push(
          compressChoice(() => current, action),
          { text: 'compressed' },
        );
        break;
      }
      case 'native': {
        const { surface } = harness.session;
        if (surface.length === 0) continue;
        const start = Math.min(surface.length - 1, Math.floor(action.at * surface.length));
        const end = Math.min(surface.length - 1, start + action.length - 1);
        natives += 1;
        compactRange(harness.session, `native-${natives}`, surface.at(start)!, surface.at(end)!, `native summary ${natives}`);
        continue;
      }
      case 'reload': {
        // The live index (cold at the previous load, incremental since) equals a cold replay of the whole log.
        expect(indexSnapshot(harness.index(), harness.session.events)).toEqual(indexSnapshot(coldIndex(harness), harness.session.events));
        const events: SessionEvent[] = [...harness.session.events];
        harness = createDcpHarness({ ...options, seed: events });
        reloads += 1;
        continue;
      }
      default:
        throw new Error('unknown action');
    }
    turnNumber += 1;
    harness.prompt(`prompt ${turnNumber} ${'p'.repeat(40 + (turnNumber % 7) * 30)}`);
    await harness.runUntilIdle();
  }
  return { harness, reloads };
}

const configArbitrary = fc.record({
  references: fc.record({ maxAliasEntries: fc.integer({ min: 0, max: 3 }) }),
  nudge: fc.record({ frequencySteps: fc.integer({ min: 1, max: 3 }), iterationThreshold: fc.integer({ min: 1, max: 4 }) }),
  compress: fc.record({ retainRecentTurns: fc.integer({ min: 1, max: 2 }), minNetSavingsTokens: fc.constantFrom(1, 40) }),
});

describe('random sessions with DCP', () => {
  it('§3.4: cold prefix + incremental tail equals a cold replay of the whole log (200 seeded sequences)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(actionArbitrary, { minLength: 3, maxLength: 14 }),
        fc.constantFrom(undefined, 3000, 20000),
        configArbitrary,
        async (actions, window, dcp) => {
          const { harness } = await runSession(actions, window, dcp);
          expect(harness.errors).toEqual([]);
          expect(indexSnapshot(harness.index(), harness.session.events)).toEqual(indexSnapshot(coldIndex(harness), harness.session.events));
        },
      ),
      { numRuns: 200, seed: 60606 },
    );
  }, 240_000);

  it('model-visible messages always equal the log, only known types are written, every replace is priced', async () => {
    let committed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(actionArbitrary, { minLength: 4, maxLength: 16 }),
        fc.constantFrom(undefined, 5000),
        configArbitrary,
        async (actions, window, dcp) => {
          const { harness } = await runSession(actions, window, dcp);
          expect(harness.errors).toEqual([]);
          committed += harness.index().maxBlockNumber;
          expectHealthyLog(harness);
        },
      ),
      { numRuns: 100, seed: 7070 },
    );
    // The generator must really exercise commits, not only failures.
    expect(committed).toBeGreaterThan(20);
  }, 240_000);
});

/**
 * Driving DCP pre-steps over a §19 corpus session, shared by the P6 benchmarks: a seeded session with its
 * runtime and index, one whole turn around the real pre-step listener, and the interleaved per-size step timing.
 */
import type { DcpConfig } from '../../src/protocol/dcp/config.js';
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import type { UserMessage } from '../../src/protocol/user-message.js';
import { createUserMessage } from '../../src/protocol/user-message.js';
import { Agent } from '../../src/main/stand-in/host/agent.js';
import { silentLogger } from '../../src/main/host-kit/silent-logger.js';
import { createPluginContext } from '../../src/main/stand-in/host/plugin-context.js';
import { ScriptedModel } from '../../src/main/stand-in/host/scripted-model.js';
import { Session } from '../../src/main/stand-in/host/session.js';
import type { DcpIndex } from '../../src/main/engine/dcp/dcp-index.js';
import { createDcpPreStepListener } from '../../src/main/engine/dcp/dcp-pre-step.js';
import type { DcpPluginOptions } from '../../src/main/engine/dcp/dcp-plugin.js';
import { dcpPlugin } from '../../src/main/engine/dcp/dcp-plugin.js';
import { DcpRuntime } from '../../src/main/engine/dcp/dcp-runtime.js';
import { generateDcpCorpus } from './dcp-corpus.js';
import type { MeasuredRow } from './measure.js';
import type { PreStepDecision } from '../../src/main/host-api/host-api.js';

/** A seeded session with its DCP runtime (index already built by the cold replay). */
export interface DcpLoaded {
  readonly session: Session;
  readonly runtime: DcpRuntime;
  readonly index: DcpIndex;
  /** The agent the DCP plugin is mounted on; only for a session loaded with {@link DcpMount}. */
  readonly agent?: Agent;
}

/**
 * Mount DCP as a host does: an agent over the session with `dcpPlugin(pluginOptions)` applied, so that commands
 * such as `/dcp stats` run end to end through `agent.runCommand`.
 */
export interface DcpMount {
  readonly pluginOptions: DcpPluginOptions;
}

/** The DCP pre-step listener type the step driver calls. */
export type DcpListener = ReturnType<typeof createDcpPreStepListener>;

const SIGNAL = new AbortController().signal;

function open(id: string, seed: readonly SessionEvent[], config: DcpConfig, clockStart: number, mount?: DcpMount): DcpLoaded {
  let now = clockStart;
  const session = Session.create(id, { header: { version: 0, id: asSessionId(id), createdAt: now }, seed, now: () => now++ });
  if (mount === undefined) {
    const runtime = new DcpRuntime(config, silentLogger);
    return { session, runtime, index: runtime.indexFor(session) };
  }
  // A resolved configuration is itself a complete valid `dcp` namespace, so the plugin resolves it to the same values.
  const agent = new Agent({ session, model: new ScriptedModel({ script: [] }) });
  const plugin = dcpPlugin(mount.pluginOptions);
  plugin.apply(createPluginContext(agent, { config: { dcp: config }, logger: silentLogger }));
  const runtime = plugin.runtime;
  if (runtime === undefined) throw new Error('DCP was not mounted');
  return { session, runtime, index: runtime.indexFor(session), agent };
}

/**
 * A session seeded with the §19 corpus of `size` events, named `<prefix>-<size>`; with `mount`, DCP is mounted
 * through its plugin on an agent, else a bare runtime follows the session. `seed` reuses an already generated corpus.
 */
export function loadDcpSession(
  size: number,
  config: DcpConfig,
  prefix = 'p6',
  mount?: DcpMount,
  seed?: readonly SessionEvent[],
): DcpLoaded {
  return open(`${prefix}-${size}`, seed ?? generateDcpCorpus(size), config, 1_770_000_000_000, mount);
}

/** A fresh copy of a loaded log: the same events replayed into a new session, with a new runtime and index. */
export function reopenDcpSession(loaded: DcpLoaded, config: DcpConfig): DcpLoaded {
  return open(`${loaded.session.id}-copy`, loaded.session.events, config, 1_780_000_000_000);
}

/** The user prompt of `turn` (a 200-char text, as in the corpus). */
export function userPrompt(turn: number): UserMessage {
  return createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: `prompt ${turn} ${'p'.repeat(180)}` }] });
}

/**
 * One whole turn around the measured pre-step: `turn/start`, the DCP listener (default decision downstream),
 * `step/start`, the decision messages, an assistant answer, `step/end`, `turn/end`. The index follows every
 * append through its notification, so the step's index update is part of the cost.
 */
export async function dcpStep(loaded: DcpLoaded, listener: DcpListener): Promise<void> {
  const { session } = loaded;
  const turn = (session.highestTurn() ?? 0) + 1;
  session.append('turn/start', { turn });
  const prompt = userPrompt(turn);
  const payload = { agent: undefined as unknown as Agent, session, messages: [prompt], turn, step: 0, signal: SIGNAL };
  const decision = (await listener(payload, async () => ({ kind: 'enter', messages: [prompt] }))) as Extract<
    PreStepDecision,
    { kind: 'enter' }
  >;
  session.append('step/start', { turn, step: 1 });
  for (const message of decision.messages) session.append('user/message', message, { surfaceOp: 'append' });
  session.append(
    'assistant/message',
    {
      turn,
      step: 1,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `answer ${turn}` }],
        source: { kind: 'model', provider: 'bench', model: 'bench-1' },
        id: `bench-a-${turn}`,
      },
    },
    { surfaceOp: 'append' },
  );
  session.append('step/end', { turn, step: 1 });
  session.append('turn/end', { turn, reason: { kind: 'completed' } });
}

/** The element at `fraction` of a sorted sample (nearest rank, floor). */
export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}

/** A measured row with its 95th percentile. */
export interface StepRow extends MeasuredRow {
  readonly p95Ms: number;
}

/** A row of median, p95 and min–max from raw samples. */
export function stepRow(name: string, samples: readonly number[]): StepRow {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    name,
    medianMs: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    minMs: sorted[0]!,
    maxMs: sorted.at(-1)!,
    samples: sorted.length,
  };
}

/** How many steps {@link measureDcpSteps} runs. */
export interface StepPlan {
  /** Rounds, each on a fresh copy of every size's log. */
  readonly rounds: number;
  /** Unmeasured steps per size before the first round (§19: the first 100 steps are warm-up). */
  readonly firstWarmUp: number;
  /** Unmeasured steps at the start of every round. */
  readonly warmSteps: number;
  /** Measured steps per round. */
  readonly measuredSteps: number;
}

/** The plan of the issue-6 P6 run. */
export const P6_STEP_PLAN: StepPlan = { rounds: 8, firstWarmUp: 100, warmSteps: 10, measuredSteps: 50 };

/**
 * Times single pre-steps side by side. A log grows by 6 events per step, so every round starts from a fresh copy
 * of the nominal log and measures only a few dozen steps: the sizes stay within a few percent of their labels.
 * Sizes are interleaved round by round so that machine noise spreads over all of them alike.
 */
export async function measureDcpSteps(
  sizes: readonly number[],
  loadedBySize: ReadonlyMap<number, DcpLoaded>,
  config: DcpConfig,
  plan: StepPlan = P6_STEP_PLAN,
  label = 'pre-step',
): Promise<StepRow[]> {
  const samples = new Map<number, number[]>(sizes.map((size) => [size, []]));
  for (const size of sizes) {
    const warm = reopenDcpSession(loadedBySize.get(size)!, config);
    const listener = createDcpPreStepListener(warm.runtime, true);
    for (let index = 0; index < plan.firstWarmUp; index++) await dcpStep(warm, listener);
  }
  for (let round = 0; round < plan.rounds; round++) {
    for (const size of sizes) {
      const loaded = reopenDcpSession(loadedBySize.get(size)!, config);
      const listener = createDcpPreStepListener(loaded.runtime, true);
      for (let index = 0; index < plan.warmSteps; index++) await dcpStep(loaded, listener);
      for (let index = 0; index < plan.measuredSteps; index++) {
        const start = performance.now();
        await dcpStep(loaded, listener);
        samples.get(size)!.push(performance.now() - start);
      }
    }
  }
  return sizes.map((size) => stepRow(`${label} @ ${size}`, samples.get(size)!));
}

/**
 * One scripted DCP conversation of `test/fixtures/dcp-dsh/` (`<name>.scenario.json`, sessionctx's `script run`
 * format) run on a real dsh host with `sessionctx/dsh-dcp` mounted (`dcp-host.mts`): the scenario's `dcp`
 * configuration, canned tools, scripted replies and context window; its steps in order — prompts as direct user
 * messages, steering, `/…` lines through dsh's command registry — each until the agent is idle. Returns what the
 * fixture comparison reads (`dist/test/support/dcp-fixture-comparison.js`) and what the host's checks found.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DcpDshKit } from './dcp-kit.mts';
import type { CannedTool, LogLine, RecordedModelRequest, ScriptReply } from './dcp-host.mts';
import { bootDcpHost } from './dcp-host.mts';

/** `test/fixtures/dcp-dsh/`. */
export const DCP_FIXTURES = fileURLToPath(new URL('../../fixtures/dcp-dsh/', import.meta.url));

/** A scenario file. */
interface ScenarioFile {
  readonly session?: { readonly id?: string; readonly cwd?: string };
  readonly config?: { readonly dcp?: unknown };
  readonly model: readonly ScriptReply[];
  readonly tools?: readonly CannedTool[];
  readonly steps: ReadonlyArray<{ readonly prompt?: string; readonly steer?: string; readonly command?: string }>;
  readonly contextWindow?: number;
}

/** A logged event as the comparison reads it. */
export interface RunEvent {
  readonly type: string;
  readonly seq: number;
  readonly data: Record<string, unknown>;
  readonly surfaceOp?: unknown;
}

/** What one run produced. */
export interface DcpScenarioRun {
  readonly events: readonly RunEvent[];
  readonly requests: readonly RecordedModelRequest[];
  /** What each command step returned, in order. */
  readonly commands: ReadonlyArray<{ readonly kind: string; readonly text?: string }>;
  readonly mismatches: readonly string[];
  readonly agentErrors: readonly unknown[];
  /** Every warn or error line a plugin logged, except the plugin's own `/dcp` notices (a sweep skipped under manual mode). */
  readonly problems: readonly LogLine[];
  /** The session's final derived messages (dsh's). */
  readonly derived: readonly unknown[];
}

/** Reads `<name>.scenario.json`. */
export function readScenario(name: string): ScenarioFile {
  return JSON.parse(readFileSync(`${DCP_FIXTURES}${name}.scenario.json`, 'utf8')) as ScenarioFile;
}

/** Reads what dsh + dsh-dcp recorded for `name`. */
export function readRecording(name: string): { readonly events: RunEvent[]; readonly requests: RecordedModelRequest[] } {
  return JSON.parse(readFileSync(`${DCP_FIXTURES}${name}.dsh.json`, 'utf8')) as { events: RunEvent[]; requests: RecordedModelRequest[] };
}

/** Runs scenario `name` (or a scenario object) on `kit`'s release. */
export async function runDcpScenario(
  kit: DcpDshKit,
  scenarioOrName: string | ScenarioFile,
  options: { readonly storage?: boolean } = {},
): Promise<DcpScenarioRun> {
  const scenario = typeof scenarioOrName === 'string' ? readScenario(scenarioOrName) : scenarioOrName;
  const host = await bootDcpHost({
    kit,
    dcp: scenario.config?.dcp ?? {},
    replies: scenario.model,
    tools: scenario.tools ?? [],
    ...(scenario.contextWindow === undefined ? {} : { contextWindow: scenario.contextWindow }),
    storage: options.storage === true,
  });
  try {
    const id = scenario.session?.id ?? (typeof scenarioOrName === 'string' ? scenarioOrName : 'dcp-scenario');
    const agent = await host.createAgent(id, scenario.session?.cwd === undefined ? {} : { cwd: scenario.session.cwd });
    const commands: Array<{ kind: string; text?: string }> = [];
    for (const step of scenario.steps) {
      if (step.prompt !== undefined) await host.prompt(agent, step.prompt);
      else if (step.steer !== undefined) await host.steer(agent, step.steer);
      else if (step.command !== undefined) {
        const execution = await host.command(agent, step.command);
        commands.push(execution === undefined ? { kind: 'error', text: `Unknown command "${step.command}".` } : { ...execution.result });
      }
    }
    return {
      events: structuredClone(agent.session.events) as RunEvent[],
      requests: host.requests,
      commands,
      mismatches: host.mismatches,
      agentErrors: host.agentErrors,
      problems: host.logs.filter((line) => line.type !== 'info' && !(line.name === 'sessionctx-dcp' && line.text.startsWith('/dcp'))),
      derived: structuredClone(agent.session.deriveMessages()),
    };
  } finally {
    await host.dispose();
  }
}

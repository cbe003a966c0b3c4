/**
 * `sessionctx script run <scenario.json>`: runs a scripted scenario on the real host (scripted
 * model, canned tools, the reference service and DCP mounted) and writes the session into the
 * store, so people and tests can produce real logs and see what the model saw. A run that did not go as scripted
 * (a turn that ended with an error, a failed command step) exits 1 with `SCENARIO_RUN_FAILED`, listing what went
 * wrong; the session it wrote is kept, since its log is the record of what happened.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { resolveDcpConfig } from '../../../../protocol/dcp/config.js';
import { parseScenario } from '../../../stand-in/scenario/scenario.js';
import { ScenarioError } from '../../../stand-in/scenario/scenario-error.js';
import { runScenario } from '../../../stand-in/scenario/run-scenario.js';
import { ScenarioRunError } from '../../../stand-in/scenario/scenario-run-error.js';
import { scenarioDcpPlugins } from '../../../stand-in/scenario/scenario-dcp.js';
import type { CliIo } from '../cli-io.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { withEngine } from '../open-engine.js';
import { stderrLogger } from '../stderr-logger.js';
import { writeJson, writeLines } from '../cli-io.js';
import { cliInvocation } from '../invocation.js';
import { expandHome } from '../../../engine/config/home-path.js';

/** What `script run` needs. */
interface ScriptRunRequest {
  /** The scenario file (relative to the working directory). */
  readonly file: string;
}

async function readScenarioFile(io: CliIo, file: string): Promise<unknown> {
  const path = isAbsolute(file) ? file : resolve(io.cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(`cannot read scenario ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ScenarioError(
      `scenario ${JSON.stringify(path)} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Runs the scenario and prints the session id, the final surface and each tool result.
 *
 * @throws ScenarioRunError `SCENARIO_RUN_FAILED` after the session was written, when the run had errors: with
 * `json` nothing else is printed (the error's `details` carry the report, `errors` included); without, the report
 * is printed first and the errors follow on standard error.
 */
async function runScriptFile(context: CommandContext, options: ScriptRunRequest): Promise<void> {
  const { io } = context;
  const root = context.resolved.config.root;
  const scenario = parseScenario(await readScenarioFile(io, options.file));
  // Resolved once, here: a bad DCP configuration fails the run loudly instead of silently running without DCP; its
  // warnings (unknown keys) come from the mounted plugin, through the logger.
  const dcp = resolveDcpConfig(scenario.config.dcp ?? {});
  const run = await withEngine(
    context,
    async (engine) => {
      const store = engine.store;
      if (store === undefined) throw new TypeError('script run needs a session root');
      // DCP's full-log folds of a long scenario session run on the engine's pool, started only if one is needed.
      return runScenario(scenario, store, {
        plugins: scenarioDcpPlugins(dcp, engine.runner),
        logger: stderrLogger(io),
      });
    },
    { createsRoot: true },
  );
  const report = {
    sessionId: run.sessionId,
    surface: run.surface,
    toolResults: run.toolResults,
    commands: run.commands,
    errors: run.errors,
  };
  const failed =
    run.errors.length > 0
      ? new ScenarioRunError(run, { surface: run.surface, toolResults: run.toolResults, commands: run.commands })
      : undefined;
  if (context.json) {
    // One JSON document on stdout: the report, or the error whose details carry it.
    if (failed !== undefined) throw failed;
    writeJson(io, report);
    return;
  }
  writeLines(io, [
    `session ${run.sessionId} written to ${run.path}`,
    `${run.modelRequests} model request${run.modelRequests === 1 ? '' : 's'}; ${run.surface.events.length} surface events; captured through seq ${run.surface.capturedThroughSeq}`,
    ...run.toolResults.map(
      (result) => `tool ${result.name} (${result.callId})${result.isError ? ' failed' : ''}: ${result.text.split('\n')[0] ?? ''}`,
    ),
    ...run.commands.map((command) => `${command.input} → ${command.kind}: ${command.text.split('\n')[0] ?? ''}`),
    `inspect it with: ${cliInvocation(process.argv[1], io.cwd)} show ${run.sessionId} --root ${root}`,
  ]);
  if (failed !== undefined) throw failed;
}

/** The `script` group's line in the help. */
export const SCRIPT_GROUP_DESCRIPTION = 'run scripted scenarios on the real host';

/** `sessionctx script run <scenario>`. */
export const scriptRunCommand: CliCommandDefinition<[scenario: string]> = {
  name: ['script', 'run'],
  usage: {
    description:
      'run a scenario (prompts, scripted model replies, tool results, /commands) on the real host with DCP and write the session into the root',
    arguments: [{ name: '<scenario>', description: 'the scenario JSON file' }],
    examples: ['sessionctx script run examples/compress-scenario.json --root ~/scenario-sessions'],
  },
  options: [],
  run(context, { args: [file] }) {
    return runScriptFile(context, { file: expandHome(file, context.io.env) });
  },
};

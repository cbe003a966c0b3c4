/**
 * The `sessionctx` dispatcher: builds the commander program from the command definitions of `commands/` (each its
 * usage, options and run function), parses the command line once, resolves the configuration once, and calls the
 * command's `run` with the parsed arguments and options.
 */
import { Command, Option } from 'commander';
import type { CliIo } from './cli-io.js';
import type { CliCommandDefinition, CliUsage, CommonOptions } from './cli-command.js';
import type { CommandContext } from './command-context.js';
import { CONFIG_FILE_NAME, resolveCompositionConfig } from '../config/composition-config.js';
import { ALL_COMMANDS, COMMAND_GROUPS } from './commands/all-commands.js';
import { packageVersion } from './package-version.js';

export { packageVersion };

const ROOT_HELP =
  'the session root (default: $SESSIONCTX_ROOT, else "root" in the config file, else $DSH_HOME/sessions, else ~/.dsh/sessions)';

/** Adds the common options after the command's own; `root: false` for commands that read no root. */
function withCommonOptions(command: Command, { root = true, workers = true }: Pick<CliUsage, 'root' | 'workers'>): Command {
  if (root) command.option('--root <dir>', ROOT_HELP);
  command.option('--config <file>', `the configuration file (default: ./${CONFIG_FILE_NAME} when present)`);
  command.option('--json', 'machine-readable output; a failure prints {"error":{"code","message"}}');
  if (workers) command.option('--no-workers', 'run every stage on the main thread instead of the worker pool');
  return command;
}

/** Everything the program needs from its caller. */
export interface ProgramRun {
  readonly io: CliIo;
  readonly signal: AbortSignal | undefined;
}

/** Resolves the configuration once for one command run: flags (the command's own and `--root`), environment, file. */
async function contextFor(run: ProgramRun, definition: CliCommandDefinition, options: CommonOptions): Promise<CommandContext> {
  const resolved = await resolveCompositionConfig({
    cwd: run.io.cwd,
    env: run.io.env,
    ...(options.config !== undefined ? { configFile: options.config } : {}),
    flags: { root: options.root, ...definition.configFlags?.(options) },
  });
  return { io: run.io, json: options.json === true, resolved, workers: options.workers !== false, signal: run.signal };
}

/** The commander command a definition's name leads to, creating a group (`index`, `script`) the first time. */
function commandFor(program: Command, name: readonly string[]): Command {
  const [first, verb] = name;
  if (first === undefined) throw new TypeError('a command definition needs a name');
  if (verb === undefined) return program.command(first);
  const group =
    program.commands.find((command) => command.name() === first) ?? program.command(first).description(COMMAND_GROUPS[first] ?? '');
  return group.command(verb);
}

/** Declares one definition on the program: description, arguments, options, examples, and the action calling `run`. */
function declare(program: Command, run: ProgramRun, definition: CliCommandDefinition): void {
  const { usage } = definition;
  const command = commandFor(program, definition.name).description(usage.description);
  for (const argument of usage.arguments ?? []) command.argument(argument.name, argument.description);
  for (const option of definition.options) {
    const declared = new Option(option.flags, option.description);
    if (option.parse !== undefined) declared.argParser(option.parse);
    if (option.required === true) declared.makeOptionMandatory();
    command.addOption(declared);
  }
  withCommonOptions(command, usage);
  command.addHelpText('after', `\nExamples:\n${usage.examples.map((line) => `  $ ${line}`).join('\n')}\n`);
  command.action(async (...received: unknown[]) => {
    // commander passes the declared arguments in order, then the options, then the command itself.
    const args = received.slice(0, -2);
    const options = command.opts<CommonOptions>();
    const context = await contextFor(run, definition, options);
    return definition.run(context, { args, options });
  });
}

/**
 * Builds the program for one run.
 * @param run - the process view and the cancellation signal.
 * @returns the configured commander program; `parseAsync(argv, { from: 'user' })` runs it.
 */
export function buildProgram(run: ProgramRun): Command {
  const { io } = run;
  const program = new Command('sessionctx');
  program
    .description("Read DeepSeek Harness session logs, reference other sessions in a message, and prune a long session's context (DCP).")
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Parse errors are reported by runCli (JSON with --json, one line without), not by commander.
      outputError: () => undefined,
    })
    .exitOverride()
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      '\nExit status: 0 ok, 1 failed, 2 usage error. Run "sessionctx <command> --help" for a command\'s options and examples.\n',
    );
  for (const definition of ALL_COMMANDS) declare(program, run, definition);
  return program;
}

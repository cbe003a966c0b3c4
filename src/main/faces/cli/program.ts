/**
 * The `sessionctx` dispatcher: builds the commander program from the command definitions of `commands/` (each its
 * usage, options and run function), parses the command line once, resolves the configuration once, and calls the
 * command's `run` with the parsed arguments and options. Only the module of the command a command line names is
 * imported (`--version` imports none, the general help all of them), and the configuration code only when a
 * command runs or a help text shows defaults. Every default a help text prints is the value the configuration
 * resolves to for this run (flag-free: environment, file, default), never a number written into a description.
 */
import { Command, Option } from './commander.js';
import type { CliIo } from './cli-io.js';
import type { CliCommandDefinition, CliOption, CliUsage, CommonOptions } from './cli-command.js';
import type { CommandContext } from './command-context.js';
import type { ResolvedCompositionConfig } from '../../engine/config/composition-config.js';
import type { CompositionConfigKey } from '../../engine/config/composition-config.js';
import { CONFIG_FILE_NAME } from '../../engine/config/config-file.js';
import { COMMAND_MODULES, loadCommandModules } from './commands/all-commands.js';
import { packageVersion } from './package-version.js';

export { packageVersion };

const ROOT_HELP =
  'the session root (default: $SESSIONCTX_ROOT, else "root" in the config file, else $DSH_HOME/sessions, else ~/.dsh/sessions';

/** Everything the program needs from its caller. */
export interface ProgramRun {
  readonly io: CliIo;
  readonly signal: AbortSignal | undefined;
}

/** The configuration a help text shows defaults from, resolved for this run. */
interface HelpConfig {
  readonly resolved: ResolvedCompositionConfig;
  describe(key: CompositionConfigKey): string;
}

/** The value a command line gives an option (`--config F` or `--config=F`), before commander parses it. */
function optionValue(argv: readonly string[], flag: string): string | undefined {
  for (let at = 0; at < argv.length; at++) {
    const word = argv[at] as string;
    if (word === flag) return argv[at + 1];
    if (word.startsWith(`${flag}=`)) return word.slice(flag.length + 1);
  }
  return undefined;
}

/**
 * The configuration as this run resolves it without the command's own flags (`--config` and `--root` count), for
 * the defaults of a help text; the defaults alone when it cannot be resolved (a bad file is reported when a command
 * runs, not by a help text).
 */
async function helpConfig(io: CliIo, argv: readonly string[]): Promise<HelpConfig> {
  const config = await import('../../engine/config/composition-config.js');
  const configFile = optionValue(argv, '--config');
  const resolved = await config
    .resolveCompositionConfig({
      cwd: io.cwd,
      env: io.env,
      ...(configFile !== undefined ? { configFile } : {}),
      flags: { root: optionValue(argv, '--root') },
    })
    .catch(() => config.defaultCompositionConfig({ cwd: io.cwd, env: io.env }));
  return { resolved, describe: (key) => config.describeConfigSource(resolved, key) };
}

/** An option's help: its description, then the default this run resolves its configuration key to. */
function optionHelp(option: CliOption, help: HelpConfig | undefined): string {
  if (option.configKey === undefined || help === undefined) return option.description;
  const [key, ...path] = option.configKey.split('.') as [CompositionConfigKey, ...string[]];
  // A namespace's key (`search.defaultLimit`) is read inside the namespace's resolved value.
  const value = JSON.stringify(
    path.reduce<unknown>((within, name) => (within as Record<string, unknown> | undefined)?.[name], help.resolved.config[key]),
  );
  const source = help.describe(key);
  return `${option.description} (default: ${option.configKey} = ${value}${source === 'default' ? '' : `, from ${source}`})`;
}

/** Adds the common options after the command's own; `root: false` for commands that read no root. */
function withCommonOptions(
  command: Command,
  { root = true, workers = true }: Pick<CliUsage, 'root' | 'workers'>,
  help: HelpConfig | undefined,
): Command {
  if (root) command.option('--root <dir>', `${ROOT_HELP}${help === undefined ? '' : `; here: ${help.resolved.config.root}`})`);
  command.option('--config <file>', `the configuration file (default: ./${CONFIG_FILE_NAME} when present)`);
  command.option('--json', 'machine-readable output; a failure prints {"error":{"code","message"}}');
  if (workers) command.option('--no-workers', 'run every stage on the main thread instead of the worker pool');
  return command;
}

/** Resolves the configuration once for one command run: flags (the command's own and `--root`), environment, file. */
async function contextFor(run: ProgramRun, definition: CliCommandDefinition, options: CommonOptions): Promise<CommandContext> {
  const { resolveCompositionConfig } = await import('../../engine/config/composition-config.js');
  const resolved = await resolveCompositionConfig({
    cwd: run.io.cwd,
    env: run.io.env,
    ...(options.config !== undefined ? { configFile: options.config } : {}),
    flags: { root: options.root, ...definition.configFlags?.(options) },
  });
  return { io: run.io, json: options.json === true, resolved, workers: options.workers !== false, signal: run.signal };
}

/** The commander command a definition's name leads to, creating a group (`index`, `script`) the first time. */
function commandFor(program: Command, name: readonly string[], groupDescription: string | undefined): Command {
  const [first, verb] = name;
  if (first === undefined) throw new TypeError('a command definition needs a name');
  if (verb === undefined) return program.command(first);
  const group = program.commands.find((command) => command.name() === first) ?? program.command(first).description(groupDescription ?? '');
  return group.command(verb);
}

/** Declares one definition on the program: description, arguments, options, examples, and the action calling `run`. */
function declare(
  program: Command,
  run: ProgramRun,
  definition: CliCommandDefinition,
  groupDescription: string | undefined,
  help: HelpConfig | undefined,
): void {
  const { usage } = definition;
  const command = commandFor(program, definition.name, groupDescription).description(usage.description);
  for (const argument of usage.arguments ?? []) command.argument(argument.name, argument.description);
  for (const option of definition.options) {
    const declared = new Option(option.flags, optionHelp(option, help));
    if (option.parse !== undefined) declared.argParser(option.parse);
    if (option.required === true) declared.makeOptionMandatory();
    command.addOption(declared);
  }
  withCommonOptions(command, usage, help);
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
 * The command words whose modules a command line needs: none for `--version`, the named command's (also after
 * `help`), and every one for the general help, no command, or a word that is no command (commander suggests one).
 */
function wordsToLoad(argv: readonly string[]): readonly string[] | undefined {
  const known = (word: string | undefined): word is string => COMMAND_MODULES.some(([name]) => name === word);
  const [first, second] = argv;
  if (first === '-V' || first === '--version') return [];
  if (known(first)) return [first];
  if (first === 'help' && known(second)) return [second];
  return undefined;
}

/** Whether a command line asks for a help text (the only output that shows configured defaults). */
function asksForHelp(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || argv.some((word) => word === '-h' || word === '--help');
}

/**
 * Builds the program for one command line, importing only the command modules it needs.
 * @param run - the process view and the cancellation signal.
 * @param argv - the arguments after the executable's name.
 * @returns the configured commander program; `parseAsync(argv, { from: 'user' })` runs it.
 */
export async function buildProgram(run: ProgramRun, argv: readonly string[]): Promise<Command> {
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
  const [modules, help] = await Promise.all([
    loadCommandModules(wordsToLoad(argv)),
    asksForHelp(argv) ? helpConfig(io, argv) : Promise.resolve(undefined),
  ]);
  for (const module of modules)
    for (const definition of module.definitions) declare(program, run, definition, module.groupDescription, help);
  return program;
}

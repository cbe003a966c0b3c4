/**
 * The `sessionctx` command line as a commander program: every command, its arguments and options with their
 * defaults, and an example, in one place. Parsing stops here: each action resolves the configuration once and
 * hands parsed values to its command's run function.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import type { CliIo } from './cli-io.js';
import { writeJson, writeLines } from './cli-io.js';
import type { CommandContext } from './command-context.js';
import { CONFIG_FILE_NAME, describeConfig, resolveCompositionConfig } from '../config/composition-config.js';
import type { ConfigInputs } from '../config/composition-config.js';
import { expandHome } from '../config/home-path.js';
import { UsageError } from './usage-error.js';
import { CliError } from './cli-error.js';
import { assertRootExists } from './open-engine.js';
import { runCandidatesCommand } from './commands/candidates-command.js';
import { runMentionCommand } from './commands/mention-command.js';
import { runPrepareCommand } from './commands/prepare-command.js';
import { runSessionsCommand } from './commands/sessions-command.js';
import { runShowCommand } from './commands/show-command.js';
import { runScriptCommand } from './commands/script-command.js';
import { runIndexCommand } from './commands/index-command.js';
import { runDemoCommand } from './commands/demo-command.js';
import { runDcpCommand } from './commands/dcp-command.js';

/** The package version, read from the package's own `package.json` (three folders above `dist/src/main/cli`). */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** The options every command takes, as commander hands them over. */
interface CommonOptions {
  readonly root?: string;
  readonly config?: string;
  readonly json?: boolean;
  readonly workers?: boolean;
}

const ROOT_HELP = 'the session root (default: $SESSIONCTX_ROOT, else "root" in the config file, else $DSH_HOME/sessions, else ~/.dsh/sessions)';

/**
 * A positive whole number for a numeric flag. Anything else — `abc`, `0`, `-1`, `1.5` — is a usage error that
 * names the flag (commander adds the flag's name to the message).
 */
function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(parsed) || parsed <= 0) throw new InvalidArgumentError('it must be a positive whole number.');
  return parsed;
}

/** Adds the common options; `root: false` for commands that read no root. */
function withCommonOptions(command: Command, { root = true, workers = true }: { root?: boolean; workers?: boolean } = {}): Command {
  if (root) command.option('--root <dir>', ROOT_HELP);
  command.option('--config <file>', `the configuration file (default: ./${CONFIG_FILE_NAME} when present)`);
  command.option('--json', 'machine-readable output; a failure prints {"error":{"code","message"}}');
  if (workers) command.option('--no-workers', 'run every stage on the main thread instead of the worker pool');
  return command;
}

function examples(command: Command, lines: readonly string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
}

/** Everything the program needs from its caller. */
export interface ProgramRun {
  readonly io: CliIo;
  readonly signal: AbortSignal | undefined;
}

async function contextFor(run: ProgramRun, options: CommonOptions, flags: ConfigInputs['flags'] = {}): Promise<CommandContext> {
  const resolved = await resolveCompositionConfig({
    cwd: run.io.cwd,
    env: run.io.env,
    ...(options.config !== undefined ? { configFile: options.config } : {}),
    flags: { root: options.root, ...flags },
  });
  return { io: run.io, json: options.json === true, resolved, workers: options.workers !== false, signal: run.signal };
}

/** The message of `prepare`: one argument, or `--message-file F` (`-` for standard input), not both. */
async function readMessage(io: CliIo, positional: string | undefined, messageFile: string | undefined): Promise<string> {
  if (messageFile !== undefined) {
    if (positional !== undefined) throw new UsageError('give the message either as an argument or with --message-file, not both');
    if (messageFile === '-') return io.readStdin();
    const expanded = expandHome(messageFile, io.env);
    const path = isAbsolute(expanded) ? expanded : resolve(io.cwd, expanded);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new CliError('CLI_INPUT_UNREADABLE', `cannot read the message file "${path}": ${(error as { code?: string }).code ?? String(error)}`, { cause: error });
    }
  }
  if (positional === undefined) throw new UsageError('sessionctx prepare needs the message: an argument, or --message-file F (- for standard input)');
  return positional;
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
    .description('Read DeepSeek Harness session logs, reference other sessions in a message, and prune a long session\'s context (DCP).')
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
    .addHelpText('after', '\nExit status: 0 ok, 1 failed, 2 usage error. Run "sessionctx <command> --help" for a command\'s options and examples.\n');

  examples(
    withCommonOptions(
      program
        .command('sessions')
        .description('list the sessions of a root with their titles; with --query (or --target/--cwd/--limit), the ranked sessions a message could cite, each with its mention')
        .option('--query <text>', 'discovery: match titles and ids against this text (an empty query lists the most relevant)')
        .option('--target <id>', 'discovery: the citing session (excluded from the results; its cwd ranks); an id or unambiguous prefix')
        .option('--cwd <dir>', 'discovery: rank as if citing from this working directory')
        .option('--limit <n>', 'discovery: how many candidates at most (default: candidateLimit, 20)', positiveInteger),
    ),
    ['sessionctx sessions --root ~/.dsh/sessions', 'sessionctx sessions --query "billing" --cwd ~/projects/webshop --limit 5', 'sessionctx sessions --json | jq ".sessions[].header.id"'],
  ).action(async (options: CommonOptions & { query?: string; target?: string; cwd?: string; limit?: number }) => {
    const context = await contextFor(run, options);
    const discovery = options.query !== undefined || options.target !== undefined || options.cwd !== undefined || options.limit !== undefined;
    if (!discovery) return runSessionsCommand(context);
    return runCandidatesCommand(context, { query: options.query ?? '', target: options.target, cwd: options.cwd, limit: options.limit });
  });

  examples(
    withCommonOptions(
      program
        .command('show')
        .description("print a session's current surface (what its model sees), or with --log its whole log")
        .argument('<id>', 'a session id, or an unambiguous prefix of one (with or without "session-")')
        .option('--log', 'print every logged event (crash closers included) instead of the surface'),
    ),
    ['sessionctx show session-9d029d81', 'sessionctx show 9d029d81 --log --json'],
  ).action(async (id: string, options: CommonOptions & { log?: boolean }) => runShowCommand(await contextFor(run, options), { id, log: options.log === true }));

  examples(
    withCommonOptions(
      program
        .command('mention')
        .description('print the canonical mention @[label](dsh-session:…) for a session; the label is its title when the root names it')
        .argument('<id>', 'a session id, or an unambiguous prefix of a listed one')
        .option('--label <text>', 'the visible label (default: the session\'s title, else the id)'),
    ),
    ['sessionctx mention session-9d029d81-e515-48ac-b168-fef7011f3491', 'sessionctx mention 9d029d81 --label "the webshop work"'],
  ).action(async (id: string, options: CommonOptions & { label?: string }) => runMentionCommand(await contextFor(run, options), { id, label: options.label }));

  examples(
    withCommonOptions(
      program
        .command('prepare')
        .description('print what the model would receive for a user message citing other sessions: the message and the snapshot context')
        .argument('[message]', 'the user message with @[label](dsh-session:…) mentions')
        .requiredOption('--target <id>', 'the citing session (it need not exist yet); an id or unambiguous prefix')
        .option('--message-file <file>', 'read the message from a file, or - for standard input')
        .option('--max-bytes <n>', 'the byte budget of the snapshot context (default: maxReferenceBytes, 65536)', positiveInteger)
        .option('--max-references <n>', 'how many sessions one message may cite (default: maxReferences, 8)', positiveInteger),
    ),
    [
      'sessionctx prepare --target session-new "Continue from @[billing](dsh-session:session-9d029d81-e515-48ac-b168-fef7011f3491)."',
      'sessionctx mention 9d029d81 | sessionctx prepare --target session-new --message-file -',
    ],
  ).action(async (message: string | undefined, options: CommonOptions & { target: string; messageFile?: string; maxBytes?: number; maxReferences?: number }) => {
    const context = await contextFor(run, options, { maxReferenceBytes: options.maxBytes, maxReferences: options.maxReferences });
    const text = await readMessage(io, message, options.messageFile);
    return runPrepareCommand(context, { target: options.target, message: text });
  });

  const index = program
    .command('index')
    .description('build, inspect or remove the persistent title index that makes discovery fast');
  for (const [verb, summary] of [
    ['build', 'observe every session\'s title through the index (an unchanged log costs one stat); a progress bar on a terminal'],
    ['status', 'say where the index is, how many entries it holds and whether it is valid'],
    ['clear', 'remove this root\'s index (the next discovery rebuilds it)'],
  ] as const) {
    examples(withCommonOptions(index.command(verb).description(summary), { workers: verb === 'build' }), [`sessionctx index ${verb} --root ~/.dsh/sessions`]).action(async (options: CommonOptions) => {
      const context = await contextFor(run, options);
      if (verb === 'status') await assertRootExists(context.resolved.config.root);
      return runIndexCommand(context, verb);
    });
  }

  const script = program.command('script').description('run scripted scenarios on the real host');
  examples(
    withCommonOptions(
      script
        .command('run')
        .description('run a scenario (prompts, scripted model replies, tool results, /commands) on the real host with DCP and write the session into the root')
        .argument('<scenario>', 'the scenario JSON file'),
    ),
    ['sessionctx script run examples/compress-scenario.json --root /tmp/sessions'],
  ).action(async (file: string, options: CommonOptions) => runScriptCommand(await contextFor(run, options), { file: expandHome(file, io.env) }));

  examples(
    withCommonOptions(
      program
        .command('dcp')
        .description('run one /dcp command on a stored session; commands that change it (manual on|off, sweep, decompress --into-context, recompress, compress) append their events')
        .argument('<subcommand>', 'stats, context, show, manual, sweep, compress, decompress or recompress')
        .argument('[args...]', 'the subcommand\'s arguments (a block such as b1, on|off|status, a focus text)')
        .requiredOption('--session <id>', 'the stored session')
        .option('--raw', 'show: print the block\'s stored text as is')
        .option('--into-context', 'decompress: put the expansion into the session\'s context'),
    ),
    ['sessionctx dcp stats --session session-9d029d81', 'sessionctx dcp show b1 --raw --session session-9d029d81', 'sessionctx dcp manual on --session session-9d029d81'],
  ).action(async (subcommand: string, args: string[], options: CommonOptions & { session: string; raw?: boolean; intoContext?: boolean }) => {
    const context = await contextFor(run, options);
    return runDcpCommand(context, {
      sessionId: options.session,
      args: [subcommand, ...args, ...(options.raw === true ? ['--raw'] : []), ...(options.intoContext === true ? ['--into-context'] : [])],
    });
  });

  examples(
    withCommonOptions(program.command('config').description('print the effective configuration and where each value came from (flag, SESSIONCTX_* environment, config file, default)'), { workers: false }),
    ['sessionctx config', 'SESSIONCTX_ROOT=~/sessions sessionctx config --json'],
  ).action(async (options: CommonOptions) => {
    const { resolved } = await contextFor(run, options);
    if (options.json === true) writeJson(io, { config: resolved.config, sources: resolved.sources, file: resolved.file ?? null });
    else writeLines(io, [resolved.file !== undefined ? `config file: ${resolved.file}` : `config file: none (looked for ${CONFIG_FILE_NAME} in ${io.cwd})`, ...describeConfig(resolved)]);
  });

  examples(
    withCommonOptions(
      program
        .command('demo')
        .description('write a demo corpus (to a temporary directory, removed at the end, unless --root or --keep) and walk through discovery, mentions, snapshots, budgets, errors and DCP')
        .option('--keep', 'keep the temporary corpus and print where it is (a --root corpus is always kept; the root must be missing or empty)'),
      { workers: false },
    ),
    ['sessionctx demo', 'sessionctx demo --keep', 'sessionctx demo --root /tmp/demo-sessions'],
  ).action(async (options: CommonOptions & { keep?: boolean }) => {
    const context = await contextFor(run, options);
    return runDemoCommand(io, { root: options.root === undefined ? undefined : context.resolved.config.root, json: context.json, keep: options.keep === true }, run.signal);
  });

  return program;
}

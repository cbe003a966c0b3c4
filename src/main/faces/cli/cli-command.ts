/**
 * The shape of one `sessionctx` command: its usage (what `--help` shows), its options, and what it runs with the
 * values the dispatcher (`program.ts`) parsed. Every command is one such definition under `commands/`; the
 * dispatcher builds the commander program from them and calls `run` with one {@link ParsedCommandLine}.
 */
import type { CompositionConfigKey, ConfigInputs } from '../../engine/config/composition-config.js';
import type { CommandContext } from './command-context.js';

/** A positional argument, as the help shows it. */
export interface CliArgument {
  /** `<id>` (required), `[message]` (optional) or `[args...]` (the rest). */
  readonly name: string;
  readonly description: string;
}

/** One option of a command. */
export interface CliOption {
  /** commander's flags text: `--limit <n>`, `--log`, `--no-workers`. */
  readonly flags: string;
  readonly description: string;
  /** Parses the option's text; a thrown `InvalidArgumentError` is a usage error naming the flag. */
  readonly parse?: (value: string) => unknown;
  /** A usage error when absent. */
  readonly required?: boolean;
  /**
   * The configuration key whose value the option overrides: the help appends its default as resolved for this run
   * (`(default: maxReferences = 3, default)`, or the value the config file or the environment sets), so no help
   * text states a default of its own. A key of a namespace is written with a dot (`search.defaultLimit`); its source
   * is the namespace's.
   */
  readonly configKey?: CompositionConfigKey | `${CompositionConfigKey}.${string}`;
}

/** What `sessionctx <command> --help` shows, and which common options the command takes. */
export interface CliUsage {
  readonly description: string;
  readonly arguments?: readonly CliArgument[];
  /** Command lines shown under "Examples:". */
  readonly examples: readonly string[];
  /** `--root <dir>`; default true (false for commands that read no root). */
  readonly root?: boolean;
  /** `--no-workers`; default true. */
  readonly workers?: boolean;
}

/** The options every command takes (`--root` and `--no-workers` where its usage says so). */
export interface CommonOptions {
  readonly root?: string;
  readonly config?: string;
  readonly json?: boolean;
  /** `false` with `--no-workers`. */
  readonly workers?: boolean;
}

/** One parsed command line: the positional arguments in declaration order, and the options by name. */
export interface ParsedCommandLine<Args extends readonly unknown[], Options extends object> {
  readonly args: Args;
  readonly options: Options & CommonOptions;
}

/**
 * One command.
 * @typeParam Args - its positional arguments as parsed (`[id: string]`; a variadic argument is a `string[]`).
 * @typeParam Options - its own options as parsed (the common ones are added).
 */
export interface CliCommandDefinition<Args extends readonly unknown[] = readonly unknown[], Options extends object = object> {
  /** The words after `sessionctx`: `['sessions']`, or a group and a verb: `['index', 'build']`. */
  readonly name: readonly string[];
  readonly usage: CliUsage;
  /** Its own options, in the order the help lists them (before the common ones). */
  readonly options: readonly CliOption[];
  /**
   * The configuration keys its options set, resolved as flags (`prepare --max-bytes N` is `maxReferenceBytes`).
   * @param options - the parsed options.
   */
  configFlags?(options: Options): ConfigInputs['flags'];
  /**
   * Runs the command.
   * @param context - the process view, the output mode and the configuration resolved once.
   * @param line - the parsed arguments and options.
   */
  run(context: CommandContext, line: ParsedCommandLine<Args, Options>): Promise<void>;
}

/**
 * `commander`, the CLI's option parser, loaded through `require`: it is CommonJS, and an ES `import` adds Node's
 * CommonJS export detection to every command's start-up (issue 26: start-up within a few × of `node -e ''`). The
 * CLI's modules import these names from here, never from the package.
 */
import { createRequire } from 'node:module';

const commander = createRequire(import.meta.url)('commander') as typeof import('commander');

/** commander's `Command` (a program or subcommand). */
export const Command = commander.Command;
/** The instance type of {@link Command}. */
export type Command = import('commander').Command;
/** commander's `Option` (one option's definition). */
export const Option = commander.Option;
/** The instance type of {@link Option}. */
export type Option = import('commander').Option;
/** What an option parser throws for a value it refuses. */
export const InvalidArgumentError = commander.InvalidArgumentError;
/** What commander throws (with an exit code) instead of exiting the process. */
export const CommanderError = commander.CommanderError;
/** The instance type of {@link CommanderError}. */
export type CommanderError = import('commander').CommanderError;

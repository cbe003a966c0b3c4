/**
 * Every `sessionctx` command in help order, and the groups whose verbs are commands (`index build`, `script run`).
 */
import type { CliCommandDefinition } from '../cli-command.js';
import { configCommand } from './config-command.js';
import { dcpCommand } from './dcp-command.js';
import { demoCommand } from './demo-command.js';
import { INDEX_GROUP_DESCRIPTION, indexCommands } from './index-command.js';
import { mcpCommand } from './mcp-command.js';
import { mentionCommand } from './mention-command.js';
import { prepareCommand } from './prepare-command.js';
import { SCRIPT_GROUP_DESCRIPTION, scriptRunCommand } from './script-command.js';
import { serveCommand } from './serve-command.js';
import { searchCommand } from './search-command.js';
import { sessionsCommand } from './sessions-command.js';
import { showCommand } from './show-command.js';

/** The description of each group, by its word. */
export const COMMAND_GROUPS: Readonly<Record<string, string>> = {
  index: INDEX_GROUP_DESCRIPTION,
  script: SCRIPT_GROUP_DESCRIPTION,
};

/**
 * The commands, in the order `sessionctx --help` lists them. Each keeps its own argument and option types; the
 * dispatcher sees them through the common shape, whose `run` receives what commander parsed for their declarations.
 */
export const ALL_COMMANDS: readonly CliCommandDefinition[] = [
  sessionsCommand,
  searchCommand,
  showCommand,
  mentionCommand,
  prepareCommand,
  ...indexCommands,
  scriptRunCommand,
  dcpCommand,
  mcpCommand,
  serveCommand,
  configCommand,
  demoCommand,
];

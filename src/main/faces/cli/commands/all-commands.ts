/**
 * Every `sessionctx` command in help order, each behind a loader: the dispatcher imports only the module of the
 * command a command line names (`sessionctx sessions` never loads the MCP SDK, the Web server or the scenario
 * runner), and every module only to print the general help or to suggest a command for a typo.
 */
import type { CliCommandDefinition } from '../cli-command.js';

/** What one command module contributes: its definitions, and the description of its group when it is one. */
export interface CommandModule {
  readonly definitions: readonly CliCommandDefinition[];
  /** For a group (`index`, `script`): what `sessionctx --help` says of it. */
  readonly groupDescription?: string;
}

/**
 * The first word of each command and how to load its module, in the order `sessionctx --help` lists them. Each
 * definition keeps its own argument and option types; the dispatcher sees them through the common shape.
 */
export const COMMAND_MODULES: ReadonlyArray<readonly [word: string, load: () => Promise<CommandModule>]> = [
  ['sessions', async () => ({ definitions: [(await import('./sessions-command.js')).sessionsCommand] })],
  ['search', async () => ({ definitions: [(await import('./search-command.js')).searchCommand] })],
  ['show', async () => ({ definitions: [(await import('./show-command.js')).showCommand] })],
  ['mention', async () => ({ definitions: [(await import('./mention-command.js')).mentionCommand] })],
  ['prepare', async () => ({ definitions: [(await import('./prepare-command.js')).prepareCommand] })],
  [
    'index',
    async () => {
      const module = await import('./index-command.js');
      return { definitions: module.indexCommands, groupDescription: module.INDEX_GROUP_DESCRIPTION };
    },
  ],
  [
    'script',
    async () => {
      const module = await import('./script-command.js');
      return { definitions: [module.scriptRunCommand], groupDescription: module.SCRIPT_GROUP_DESCRIPTION };
    },
  ],
  [
    'fleet',
    async () => {
      const module = await import('./fleet-command.js');
      return { definitions: module.fleetCommands, groupDescription: module.FLEET_GROUP_DESCRIPTION };
    },
  ],
  ['dcp', async () => ({ definitions: [(await import('./dcp-command.js')).dcpCommand] })],
  ['mcp', async () => ({ definitions: [(await import('./mcp-command.js')).mcpCommand] })],
  ['serve', async () => ({ definitions: [(await import('./serve-command.js')).serveCommand] })],
  ['config', async () => ({ definitions: [(await import('./config-command.js')).configCommand] })],
  ['demo', async () => ({ definitions: [(await import('./demo-command.js')).demoCommand] })],
];

/**
 * Loads the modules of the given first words (all of them when `words` is `undefined`), in help order.
 * @param words - the command words a command line names; unknown words load nothing.
 */
export async function loadCommandModules(words?: readonly string[]): Promise<CommandModule[]> {
  const chosen = COMMAND_MODULES.filter(([word]) => words === undefined || words.includes(word));
  return Promise.all(chosen.map(([, load]) => load()));
}
